"""Which repository docgen works on, and where that repository keeps docgen's inputs and outputs.

The root is found the way users know from other tools, never from where docgen is installed:
  1. `--root DIR` (or the folder of `--config FILE`) when given;
  2. else, from the working directory upwards, the first folder holding a `docgen.toml` or a
     `pyproject.toml` with a `[tool.docgen]` table;
  3. else the top of the git work tree holding the working directory (defaults apply);
  4. else bad input (exit 2): docgen will not guess a tree to check.

The configuration names the inputs and the outputs, relative to the root. Every key is optional:

    [tool.docgen]                                  # or the same keys at the top of docgen.toml
    dockerfile = "Dockerfile.nmp-rl-base"
    snapshot = "snapshot/nemo-rl.json"
    pages = ["README.md", "docs/**/*.md"]          # the pages docgen owns; others are not its business
    facts = "docs/.docgen-facts.json"
    image-size = "docs/data/image-size.json"
    required = ["quick-inventory", ...]            # generators the pages must use (default: every one)
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from docgen.errors import CONTROL_CHARS, InputError
from docgen.io import OWNED_RECORDS, confined_input, owned_problem, parse_toml, read_input
from docgen.text import line_at

CONFIG_FILE = "docgen.toml"
DEFAULTS = {
    "dockerfile": "Dockerfile.nmp-rl-base",
    "snapshot": "snapshot/nemo-rl.json",
    "pages": ("README.md", "docs/**/*.md"),
    "facts": "docs/.docgen-facts.json",
    "image-size": "docs/data/image-size.json",
    "required": None,   # None: every generator docgen has
    "quoted": (),       # other files of the repository whose values the pages quote (read as assignments)
}


class Project(NamedTuple):
    root: Path                     # absolute, resolved
    config_file: Path | None       # where the configuration came from (None: defaults, git top level)
    how: str                       # how the root was found, for --verbose and the JSON report
    dockerfile: Path
    snapshot: Path
    pages: tuple[str, ...]         # globs relative to the root
    facts: Path
    image_size: Path
    required: tuple[str, ...] | None
    quoted: tuple[Path, ...] = ()  # files whose assignments are facts the pages may name

    def display(self, path: str | Path) -> str:
        """A path as reports show it: relative to the root when inside it."""
        try:
            return Path(os.path.abspath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def page_paths(self) -> list[Path]:
        """The pages the globs match, sorted, without hidden folders or files. A folder the globs reach but
        docgen cannot list is bad input naming it (a glob alone would skip it without a word)."""
        found: set[Path] = set()
        for pattern in self.pages:
            _check_listable(self.root, pattern)
            for path in self.root.glob(pattern):
                rel = path.relative_to(self.root)
                if any(part.startswith(".") for part in rel.parts) or not path.name.endswith(".md"):
                    continue
                if path.is_symlink() or not path.is_dir():   # FIFOs, devices: found, then refused by the reader
                    found.add(path)
        return sorted(found)

    def verbose_line(self, pages_read: int | None = None) -> str:
        """What --verbose prints: which tree, configuration and inputs a run used."""
        line = (f"docgen: root {self.root} ({self.how}); config {self.config_file or 'none (defaults)'}; "
                f"dockerfile {self.display(self.dockerfile)}; snapshot {self.display(self.snapshot)}")
        if pages_read is not None:
            line += f"; {pages_read} pages; facts {self.display(self.facts)}"
        return line

    def describe(self) -> dict:
        return {"root": str(self.root), "found_by": self.how,
                "config": str(self.config_file) if self.config_file else None,
                "dockerfile": self.display(self.dockerfile), "snapshot": self.display(self.snapshot),
                "pages": list(self.pages), "facts": self.display(self.facts),
                "image_size": self.display(self.image_size),
                "required": list(self.required) if self.required is not None else "all"}


def _check_listable(root: Path, pattern: str) -> None:
    """Every folder `pattern` can reach below its literal part (hidden ones aside, as page_paths skips them)
    can be listed; else an InputError naming the folder."""
    parts = Path(pattern).parts
    fixed = 0
    while fixed < len(parts) - 1 and not any(c in parts[fixed] for c in "*?["):
        fixed += 1
    if fixed == len(parts) - 1 and not any(c in parts[-1] for c in "*?["):
        return   # a plain file name
    base = root.joinpath(*parts[:fixed])
    if not base.is_dir():
        return
    deep = "**" in parts[fixed:]
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                subfolders = [Path(e.path) for e in entries
                              if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)]
        except OSError as exc:
            raise InputError(folder, None, f"cannot list this folder of pages ({exc.strerror or exc}); "
                                           f"the pages glob {pattern!r} reaches it") from None
        if deep:
            stack.extend(subfolders)


# ------------------------------------------------------------------------------------------------ discovery

class _Config(NamedTuple):
    path: Path
    text: str
    data: dict     # the whole file as TOML


def _read_config(path: Path, text: str | None = None) -> _Config:
    if text is None:
        text = read_input(path, "the docgen configuration")
    return _Config(path, text, parse_toml(path, text))


def _config_in(folder: Path) -> _Config | None:
    if (folder / CONFIG_FILE).is_file():
        return _read_config(folder / CONFIG_FILE)
    pyproject = folder / "pyproject.toml"
    if not pyproject.is_file():
        return None
    # TOML can spell the table `[tool.docgen]`, `[tool]` + `docgen.key = ...`, `tool.docgen.key = ...` or
    # with quoted keys; all of them hold the word, unless an escape spells it. A file without either
    # cannot configure docgen and is not parsed.
    text = read_input(pyproject, "the docgen configuration")
    if "docgen" not in text and "\\u" not in text and "\\U" not in text:
        return None
    config = _read_config(pyproject, text)
    tool = config.data.get("tool")
    return config if isinstance(tool, dict) and "docgen" in tool else None


def _git_top(start: Path) -> Path | None:
    """The work tree holding `start`: the nearest folder with a `.git` entry (a folder, or the file a
    `git worktree` or a submodule has)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def find_project(root: str | Path | None = None, config: str | Path | None = None,
                 cwd: str | Path | None = None) -> Project:
    here = Path(os.path.abspath(cwd or os.getcwd()))
    if config is not None:
        config_path = Path(os.path.abspath(config))
        if not config_path.is_file():
            raise InputError(config_path, None, "--config: no such file")
        base = Path(os.path.abspath(root)) if root is not None else config_path.parent
        return _load(base, _read_config(config_path), "--config")
    if root is not None:
        base = Path(os.path.abspath(root))
        if not base.is_dir():
            raise InputError(base, None, "--root: not a directory")
        return _load(base, _config_in(base), "--root")
    for folder in (here, *here.parents):
        found = _config_in(folder)
        if found is not None:
            return _load(folder, found, f"found {found.path.name} upwards from the working directory")
    top = _git_top(here)
    if top is not None:
        return _load(top, None, "git top level (no docgen configuration found)")
    raise InputError(here, None, f"no {CONFIG_FILE} or pyproject.toml with [tool.docgen] here or above, and not "
                                 "inside a git work tree; run docgen in the repository or pass --root")


def _line_of(text: str, key: str) -> int | None:
    """The line setting `key`, also as a dotted key (`docgen.key = `) or quoted."""
    found = re.search(rf"^[ \t]*(?:[\w\"'.-]+\.)?[\"']?{re.escape(key)}[\"']?[ \t]*=", text, re.M)
    return line_at(text, found.start()) if found else None


def _load(root: Path, config: _Config | None, how: str) -> Project:
    settings = _settings(config) if config is not None else {}
    values = {**DEFAULTS, **settings}
    root = Path(os.path.realpath(root))

    def path_of(key: str) -> Path:
        return root / values[key]

    required = values["required"]
    _check_paths(root, config, {key: path_of(key) for key in ("dockerfile", "snapshot", "facts", "image-size")})
    return Project(root=root, config_file=config.path if config is not None else None, how=how,
                   dockerfile=path_of("dockerfile"), snapshot=path_of("snapshot"),
                   pages=tuple(values["pages"]), facts=path_of("facts"), image_size=path_of("image-size"),
                   required=tuple(required) if required is not None else None,
                   quoted=tuple(root / q for q in values["quoted"]))


def _check_paths(root: Path, config: _Config | None, paths: dict[str, Path]) -> None:
    """The configured files: inputs reached without leaving the root through a symlink; the files docgen
    writes (facts, image-size, snapshot) named as its records, outside .git, and none the same file as
    another configured file or the configuration itself."""
    def bad(key: str, message: str) -> InputError:
        line = _line_of(config.text, key) if config is not None else None
        if line is None or config is None:   # a default: the file itself is what is wrong
            return InputError(paths[key], None, f"{key}: {message}")
        return InputError(config.path, line, f"{key}: {message}")

    for key in ("dockerfile", "snapshot", "image-size"):
        why = confined_input(root, paths[key])
        if why:
            raise InputError(paths[key], None, f"{key}: {why}")
    seen: dict[str, str] = {}
    if config is not None:
        seen[os.path.realpath(config.path)] = "the configuration file"
    for key, path in paths.items():
        real = os.path.realpath(path)
        if real in seen:
            raise bad(key, f"{path.relative_to(root).as_posix()!r} is also {seen[real]}; docgen writes only "
                           "files of its own")
        seen[real] = f"the {key} setting"
        if key in OWNED_RECORDS:
            problem = owned_problem(root, path, key)
            if problem:
                raise bad(key, f"{path.relative_to(root).as_posix()!r}: {problem}")


def _settings(config: _Config) -> dict:
    config_file, text, data = config
    if config_file.name == "pyproject.toml":
        data = data.get("tool", {}).get("docgen", {})
    elif isinstance(data.get("tool"), dict) and "docgen" in data["tool"]:
        data = data["tool"]["docgen"]   # docgen.toml may use the same table as pyproject.toml
    if not isinstance(data, dict):
        raise InputError(config_file, None, "[tool.docgen] must be a table")
    for key, value in data.items():
        def bad(message: str) -> InputError:
            return InputError(config_file, _line_of(text, key), message)

        if key not in DEFAULTS:
            raise bad(f"unknown docgen setting {key!r} (known: {', '.join(DEFAULTS)})")
        if key in ("pages", "required", "quoted"):   # `required = []`: the pages need no particular generator
            if not (isinstance(value, list) and (value or key in ("required", "quoted"))
                    and all(isinstance(v, str) and v for v in value)):
                raise bad(f"{key}: expected a {'' if key == 'required' else 'non-empty '}list of strings")
        elif not (isinstance(value, str) and value):
            raise bad(f"{key}: expected a path relative to the root")
        for path in (value if isinstance(value, list) else [value]):
            if CONTROL_CHARS.search(path):   # a NUL would reach the OS as an "embedded null byte" ValueError
                raise bad(f"{key}: {path!r} holds a control character; a {'name' if key == 'required' else 'path'} "
                          "cannot")
            if key != "required" and (os.path.isabs(path) or ".." in Path(path).parts):
                raise bad(f"{key}: {path!r} must stay inside the root")
    return data

