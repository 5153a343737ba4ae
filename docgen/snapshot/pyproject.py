"""Read a project's pyproject.toml (NeMo-RL's, or a workspace member's) into facts with lines.

tomllib gives values but no positions, so lines come from a light scan of the raw text: the table
headers, the `key = ` lines inside each table, and each array element's string found in order
below its key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from docgen.errors import InputError
from docgen.io import read_toml
from docgen.names import normalize


@dataclass(frozen=True)
class Requirement:
    text: str
    name: str  # PEP 503-normalized
    line: int


@dataclass(frozen=True)
class ConflictItem:
    package: str | None
    extra: str | None
    group: str | None


@dataclass(frozen=True)
class SourceSpec:
    name: str
    kind: str  # 'git' | 'path' | 'editable' | 'url' | 'index' | 'workspace'
    detail: str  # url / path / index name; git carries '@rev' (rev, tag or branch)
    marker: str | None
    line: int


@dataclass(frozen=True)
class ProjectFacts:
    path: str
    name: str
    requires_python: str | None
    extras: dict[str, tuple[Requirement, ...]]
    groups: dict[str, tuple[Requirement, ...]]
    default_groups: tuple[str, ...]
    conflicts: tuple[tuple[ConflictItem, ...], ...]
    overrides: tuple[Requirement, ...]
    constraints: tuple[Requirement, ...]
    sources: tuple[SourceSpec, ...]
    workspace_members: tuple[str, ...]
    extra_lines: dict[str, int]
    uv_required_version: str | None = None   # [tool.uv] required-version: the uv releases that may sync it


_REQ_NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_BRACE = re.compile(r"\{")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=""")


class _Lines:
    """Where tables and keys sit in the raw text (1-based lines)."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")  # tomllib ends lines at "\n" only (read_input made CRLF LF)
        self.tables: dict[str, int] = {}
        self.keys: dict[tuple[str, str], int] = {}
        table = ""
        in_multiline = 0  # depth of an open array/inline table: keys inside are not table keys
        for number, raw in enumerate(self.lines, 1):
            if in_multiline <= 0:
                header = _HEADER.match(raw)
                if header:
                    table = ".".join(p.strip().strip("\"'") for p in header.group(1).split("."))
                    self.tables.setdefault(table, number)
                    continue
                key = _KEY.match(raw)
                if key:
                    self.keys.setdefault((table, key.group(1).strip("\"'")), number)
            in_multiline += _bracket_depth(raw)

    def key(self, table: str, key: str) -> int:
        return self.keys.get((table, key)) or self.tables.get(table) or 1

    def find(self, start: int, pattern: re.Pattern[str] | _Quoted,
             taken: set[tuple[int, str]] | None = None) -> int | None:
        """First line >= start (1-based) matching pattern and not yet `taken` for this pattern
        (so a value repeated in one array gets its own line each time)."""
        for number in range(start, len(self.lines) + 1):
            if pattern.search(self.lines[number - 1]):
                if taken is None:
                    return number
                if (number, pattern.pattern) not in taken:
                    taken.add((number, pattern.pattern))
                    return number
        return None


class _Quoted:
    """Finds a string value written in either TOML quote; plain substring tests, because compiling one
    regular expression per requirement made reading NeMo-RL's pyproject.toml cost more than parsing it."""

    def __init__(self, value: str) -> None:
        self.needles = (f'"{value}"', f"'{value}'")
        self.pattern = value

    def search(self, line: str) -> bool:
        return any(needle in line for needle in self.needles)


def _bracket_depth(line: str) -> int:
    """Net count of opening brackets outside strings and comments."""
    depth, quote = 0, ""
    for char in line:
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return depth


def _requirements(lines: _Lines, table: str, key: str, values: object, path: Path) -> tuple[Requirement, ...]:
    key_line = lines.key(table, key)
    if not isinstance(values, list):
        raise InputError(path, key_line, f"[{table}] {key} must be a list of requirement strings")
    out: list[Requirement] = []
    cursor = key_line
    taken: set[tuple[int, str]] = set()
    for value in values:
        if not isinstance(value, str):
            continue  # e.g. {include-group = ...}: expanded by the caller
        line = lines.find(cursor, _Quoted(value), taken)
        if line is None:
            line = key_line
        else:
            cursor = line
        name = _REQ_NAME.match(value)
        if not name:
            raise InputError(path, line, f"cannot read a package name in requirement {value!r}")
        out.append(Requirement(value, normalize(name.group(1)), line))
    return tuple(out)


def _groups(lines: _Lines, raw: dict, path: Path) -> dict[str, tuple[Requirement, ...]]:
    own = {name: _requirements(lines, "dependency-groups", name, values, path) for name, values in raw.items()}

    def expand(name: str, stack: tuple[str, ...]) -> tuple[Requirement, ...]:
        reqs = list(own[name])
        for value in raw[name]:
            if isinstance(value, dict) and "include-group" in value:
                included = next((g for g in raw if normalize(g) == normalize(value["include-group"])), None)
                if included is None or included in stack:
                    raise InputError(path, lines.key("dependency-groups", name),
                                     f"group {name!r} includes unknown or cyclic group {value['include-group']!r}")
                reqs.extend(expand(included, stack + (included,)))
        return tuple(reqs)

    return {name: expand(name, (name,)) for name in raw}


def _conflicts(lines: _Lines, raw: object, facts_name: str, extras: dict, groups: dict, path: Path):
    key_line = lines.key("tool.uv", "conflicts")
    if not isinstance(raw, list):
        raise InputError(path, key_line, "[tool.uv] conflicts must be a list of lists")
    known_extras = {normalize(e) for e in extras}
    known_groups = {normalize(g) for g in groups}
    cursor = key_line
    taken: set[tuple[int, str]] = set()
    sets = []
    for conflict_set in raw:
        items = []
        for item in conflict_set if isinstance(conflict_set, list) else [conflict_set]:
            if not isinstance(item, dict):
                raise InputError(path, cursor, "each [tool.uv] conflicts entry must be an inline table")
            conflict = ConflictItem(item.get("package"), item.get("extra"), item.get("group"))
            what = "extra" if conflict.extra else "group" if conflict.group else "package"
            value = conflict.extra or conflict.group or conflict.package or ""
            line = lines.find(cursor, re.compile(rf"""\b{what}\s*=\s*["']{re.escape(value)}["']"""), taken)
            if line is not None:
                cursor = line
            here = line or cursor
            ours = conflict.package is None or normalize(conflict.package) == normalize(facts_name)
            if ours and conflict.extra and normalize(conflict.extra) not in known_extras:
                raise InputError(path, here, f"conflict names extra {conflict.extra!r}, "
                                 "which [project.optional-dependencies] does not define")
            if ours and conflict.group and normalize(conflict.group) not in known_groups:
                raise InputError(path, here, f"conflict names group {conflict.group!r}, "
                                 "which [dependency-groups] does not define")
            items.append(conflict)
        sets.append(tuple(items))
    return tuple(sets)


def _sources(lines: _Lines, raw: dict, path: Path) -> tuple[SourceSpec, ...]:
    out = []
    for name, spec in raw.items():
        key_line = lines.key("tool.uv.sources", name)
        entries = spec if isinstance(spec, list) else [spec]
        cursor = key_line
        for entry in entries:
            line = key_line
            if isinstance(spec, list):  # one inline table per line under the key
                found = lines.find(cursor + (entry is not entries[0]), _BRACE)
                if found is not None:
                    line = cursor = found
            if not isinstance(entry, dict):
                raise InputError(path, line, f"source for {name!r} must be an inline table")
            out.append(SourceSpec(name, *_source_kind(entry, name, line, path), entry.get("marker"), line))
    return tuple(out)


def _source_kind(entry: dict, name: str, line: int, path: Path) -> tuple[str, str]:
    if "git" in entry:
        ref = entry.get("rev") or entry.get("tag") or entry.get("branch")
        return "git", entry["git"] + (f"@{ref}" if ref else "")
    if "path" in entry:
        return ("editable" if entry.get("editable") else "path"), entry["path"]
    if "url" in entry:
        return "url", entry["url"]
    if "index" in entry:
        return "index", entry["index"]
    if entry.get("workspace"):
        return "workspace", name
    raise InputError(path, line, f"source for {name!r} has no git, path, url, index or workspace key")


def _load(path: Path) -> tuple[str, dict]:
    text, data = read_toml(path)
    if not isinstance(data.get("project"), dict):
        raise InputError(path, 1, "no [project] table")
    return text, data


def _default_groups(uv: dict, groups: Iterable[str]) -> tuple[str, ...]:
    """uv's default groups: [tool.uv] default-groups, "all", or just `dev` when unset."""
    chosen = uv.get("default-groups")
    if chosen == "all":
        return tuple(groups)
    if chosen is None:
        return ("dev",) if "dev" in groups else ()
    return tuple(chosen)


def read_root_facts(path: str | Path) -> tuple[str, tuple[str, ...]]:
    """Just the project name and default groups: what the lock reader needs, without the line scan."""
    path = Path(path)
    data = _load(path)[1]
    name = data["project"].get("name")
    if not isinstance(name, str) or not name:
        raise InputError(path, None, "[project] has no name")
    return name, _default_groups(data.get("tool", {}).get("uv", {}), data.get("dependency-groups", {}))


def read_pyproject(path: str | Path) -> ProjectFacts:
    path = Path(path)
    text, data = _load(path)
    lines = _Lines(text)
    project = data["project"]
    name = project.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(path, lines.tables.get("project", 1), "[project] has no name")

    raw_extras = project.get("optional-dependencies", {})
    extras = {e: _requirements(lines, "project.optional-dependencies", e, v, path) for e, v in raw_extras.items()}
    extra_lines = {e: lines.key("project.optional-dependencies", e) for e in raw_extras}
    groups = _groups(lines, data.get("dependency-groups", {}), path)

    uv = data.get("tool", {}).get("uv", {})
    default_groups = _default_groups(uv, groups)

    return ProjectFacts(
        path=str(path),
        name=name,
        requires_python=project.get("requires-python"),
        extras=extras,
        groups=groups,
        default_groups=default_groups,
        conflicts=_conflicts(lines, uv.get("conflicts", []), name, extras, groups, path),
        overrides=_requirements(lines, "tool.uv", "override-dependencies", uv.get("override-dependencies", []), path),
        constraints=_requirements(lines, "tool.uv", "constraint-dependencies",
                                  uv.get("constraint-dependencies", []), path),
        sources=_sources(lines, uv.get("sources", {}), path),
        workspace_members=tuple(uv.get("workspace", {}).get("members", ())),
        extra_lines=extra_lines,
        uv_required_version=_required_version(lines, uv.get("required-version"), path),
    )


def _required_version(lines: _Lines, value: object, path: Path) -> str | None:
    """`[tool.uv] required-version` as written: a PEP 440 specifier set, or a bare version, which uv reads
    as `==VERSION`."""
    if value is None:
        return None
    line = lines.key("tool.uv", "required-version")
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, line, f"[tool.uv] required-version must be a version specifier string, not {value!r}")
    try:
        Version(value.strip())
    except InvalidVersion:
        try:
            SpecifierSet(value)
        except InvalidSpecifier:
            raise InputError(path, line, f"[tool.uv] required-version {value!r} is neither a version nor a "
                             "PEP 440 specifier set (uv refuses it too)") from None
    return value.strip()
