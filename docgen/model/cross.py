"""Facts two inputs state each, read from both sides so the lint can hold them to each other:

- `python_requirement`: the Python the Dockerfile installs against NeMo-RL's ``requires-python`` and the
  interpreter the snapshot's install sets were resolved for;
- `cuda_mismatches`: the CUDA major of the base image against the ``+cuNNN`` builds of torch and vLLM in
  the lock;
- `arch_lists` and `arch_floor`: every CUDA architecture list the build compiles for (any ARG or ENV whose
  name holds ``ARCH``), and the hardware floor they leave together: the highest of their minima;
  `arch_names` names a list's architectures (``ARCH_NAMES``), and `arch_comment_mismatches` holds the
  comment above an architecture ARG to its list;
- `hard_coded_paths`: a RUN step that writes out a path a build ARG holds, instead of the variable;
- `uv_requirement`: the uv the Dockerfile installs against NeMo-RL's ``[tool.uv] required-version``;
- `bake_names`: the secrets and named contexts a bake file hands the build against the secrets the
  Dockerfile's RUN steps mount and the stages and `--from` sources it names.

Each fact names its line on the Dockerfile side and, where the snapshot has one, on the snapshot side.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from docgen.fact import version_allowed
from docgen.inputs.quoted import target_attributes
from docgen.inputs.syntax import Arg
from docgen.model.stages import arg_uses
from docgen.snapshot.load import PLATFORM
from docgen.text import line_at

if TYPE_CHECKING:
    from docgen.model import ImageModel


class Mismatch(NamedTuple):
    """One fact two inputs state differently: where each side says it, and what each says."""
    check: str
    line: int | None              # Dockerfile line (the `where` file's, when one is given)
    other: str                    # the other side: `path:line` or a path
    message: str
    where: str | None = None      # the file the finding stands in, when not the Dockerfile


def _snapshot_where(model: "ImageModel", needle: str) -> str:
    line = model.snapshot.line_of(needle)
    return model.snapshot.path if line is None else f"{model.snapshot.path}:{line}"


def _judged_args(model: "ImageModel", name: str) -> list[Arg]:
    """Each value build ARG `name` takes where the build uses it (`arg_uses`), once per ARG line that sets it,
    as that ARG with that value; when no instruction expands it, every ARG of the name that has a default."""
    found: dict[int, Arg] = {}
    for value, origin, _ in arg_uses(model.dockerfile, name):
        if isinstance(origin, Arg):
            found.setdefault(origin.line, origin._replace(default=value))   # a bare `ARG NAME`: the global's
    if found:
        return list(found.values())
    return [a for a in model.dockerfile.args if a.name == name and a.default is not None]


# --------------------------------------------------------------------------------------------- Python

def _release(text: str) -> tuple[int, ...] | None:
    parts = text.strip().split(".")
    return tuple(int(p) for p in parts) if parts and all(p.isdigit() for p in parts) else None


def python_requirement(model: "ImageModel") -> list[Mismatch]:
    """PYTHON_VERSION against `requires-python`, and against the CPython the snapshot resolved for."""
    found = []
    for arg in _judged_args(model, "PYTHON_VERSION"):
        found += _python_against(model, arg)
    return found


def _python_against(model: "ImageModel", arg: Arg) -> list[Mismatch]:
    version = _release(arg.default) if arg.default else None
    if version is None or arg.default is None:
        return []
    found = []
    spec = model.snapshot.requires_python
    # `3.13` (a system Python) names a series: it fits when some release of it does
    if spec and version_allowed(arg.default, spec) is False:
        found.append(Mismatch("python-vs-requires", arg.line, _snapshot_where(model, "requires_python"),
                              f"ARG PYTHON_VERSION={arg.default} does not satisfy NeMo-RL's requires-python "
                              f"{spec}: `uv sync` refuses to install the project with it"))
    resolved = re.search(r"CPython (\d+)\.(\d+)", PLATFORM)
    if resolved and version[:2] != (int(resolved.group(1)), int(resolved.group(2))):
        found.append(Mismatch("python-vs-snapshot", arg.line, model.snapshot.path,
                              f"ARG PYTHON_VERSION={arg.default}, but the snapshot's install sets were resolved "
                              f"for {PLATFORM}: the packages the pages list are another interpreter's"))
    return found


# ------------------------------------------------------------------------------------------------- uv

def uv_requirement(model: "ImageModel") -> list[Mismatch]:
    """UV_VERSION against NeMo-RL's `[tool.uv] required-version`, when the snapshot records one: uv
    refuses to sync a project whose required version it does not satisfy. A bare version is `==VERSION`,
    as uv reads it; a specifier `packaging` cannot read is left to uv."""
    spec = model.snapshot.uv_required_version
    if not spec:
        return []
    wanted = f"=={spec.strip()}" if _release(spec) is not None else spec
    found = []
    for arg in _judged_args(model, "UV_VERSION"):
        if not arg.default or _release(arg.default) is None or version_allowed(arg.default, wanted) is not False:
            continue
        found.append(Mismatch("uv-vs-required", arg.line, _snapshot_where(model, "uv_required_version"),
                              f"ARG UV_VERSION={arg.default} does not satisfy NeMo-RL's [tool.uv] required-version "
                              f"{spec}: that uv refuses to sync the project"))
    return found


# ----------------------------------------------------------------------------------------------- CUDA

_IMAGE_CUDA = re.compile(r"cuda[-_:]?v?(\d+)\.\d+", re.IGNORECASE)
_WHEEL_CUDA = re.compile(r"(?<![a-z])cu(\d{2,3})(?!\d)")
CUDA_PACKAGES = ("torch", "vllm")


def _base_image(model: "ImageModel") -> tuple[str, int | None] | None:
    """The outside image the build's stages rest on (expanded), with the line that states it: the global
    ARG the FROM names when there is one, else the FROM line itself."""
    for stage in model.dockerfile.stages:
        image, is_stage = model.dockerfile.base(stage)
        if is_stage or image.lower() == "scratch" or not _IMAGE_CUDA.search(image):
            continue
        ref = re.fullmatch(r"\$\{?(\w+)\}?", stage.base)
        arg = model.dockerfile.origin(ref.group(1), stage.line) if ref else None   # the global ARG the FROM sees
        return image, arg.line if arg else stage.line
    return None


def cuda_mismatches(model: "ImageModel") -> list[Mismatch]:
    """The base image's CUDA major against the `+cuNNN` build of torch and vLLM in any install set."""
    base = _base_image(model)
    if base is None:
        return []
    image, line = base
    cuda = _IMAGE_CUDA.search(image)
    assert cuda is not None   # _base_image gives only an image whose tag names its CUDA
    major = int(cuda.group(1))
    found = []
    seen = set()
    for pkg in model.snapshot.packages.values():
        if pkg.name not in CUDA_PACKAGES or pkg.key in seen:
            continue
        seen.add(pkg.key)
        build = _WHEEL_CUDA.search(f"{pkg.version or ''} {pkg.source.rsplit('/', 1)[-1]}")
        if build is None:
            continue
        wheel_major = int(build.group(1)[:-1])
        if wheel_major != major:
            found.append(Mismatch("cuda-vs-wheels", line, _snapshot_where(model, pkg.key),
                                  f"the base image {image} is CUDA {major}, but the lock installs {pkg.name} "
                                  f"{pkg.version} built for CUDA {wheel_major} (cu{build.group(1)})"))
    return found


# ------------------------------------------------------------------------------------- architectures

class ArchList(NamedTuple):
    name: str                               # the ARG or ENV
    line: int
    value: str
    archs: tuple[tuple[int, int], ...]      # compute capabilities, (major, minor)

    @property
    def minimum(self) -> tuple[int, int]:
        return min(self.archs)   # arch_lists keeps no list without an architecture


def _capability(word: str) -> tuple[int, int] | None:
    """`9.0`, `9.0+PTX`, `90`, `90a`, `100`, `sm_90`, `compute_100a` -> (major, minor); None for `all`."""
    word = word.lower().removeprefix("sm_").removeprefix("compute_")
    word = re.sub(r"(\+ptx|[af])$", "", word)
    if re.fullmatch(r"\d+\.\d", word):
        major, minor = word.split(".")
        return int(major), int(minor)
    if re.fullmatch(r"\d{2,3}", word):
        return int(word[:-1]), int(word[-1])
    return None


def format_capability(arch: tuple[int, int]) -> str:
    return f"{arch[0]}.{arch[1]}"


def capabilities(value: str) -> tuple[tuple[int, int], ...]:
    """The compute capabilities an architecture list names (`"9.0 10.0"`, `"90;100"`, `"sm_90,sm_100a"`),
    in its order; words that name none (`all`, `native`) are left out."""
    return tuple(c for w in re.split(r"[\s;,]+", value) if w and (c := _capability(w)))


# NVIDIA's name for each compute capability generation: the model's knowledge, so a page names the
# architectures a list compiles for from the list itself, never from a comment beside it.
ARCH_NAMES = {"7.0": "Volta", "7.2": "Volta", "7.5": "Turing", "8.0": "Ampere", "8.6": "Ampere", "8.7": "Ampere",
              "8.9": "Ada", "9.0": "Hopper", "10.0": "Blackwell", "10.3": "Blackwell",
              "12.0": "Blackwell (consumer)", "12.1": "Blackwell (consumer)"}
# The family words a comment may use for them.
_ARCH_WORD = re.compile(r"\b(Volta|Turing|Ampere|Ada(?: Lovelace)?|Hopper|Blackwell)\b", re.IGNORECASE)


def arch_names(archs: tuple[tuple[int, int], ...]) -> tuple[str, ...]:
    """The architecture names of a list, each once, in the list's order; a capability docgen has no name
    for is named by its number (`compute capability 11.0`)."""
    names: list[str] = []
    for arch in archs:
        name = ARCH_NAMES.get(format_capability(arch), f"compute capability {format_capability(arch)}")
        if name not in names:
            names.append(name)
    return tuple(names)


def without_arch_names(comment: str) -> str:
    """A comment with every parenthesis that holds only architecture names (`(Hopper; Blackwell)`) taken
    out: the page renders those names from the list instead of copying the comment's."""
    def drop(match: re.Match[str]) -> str:
        rest = _ARCH_WORD.sub("", match.group(1))
        return "" if _ARCH_WORD.search(match.group(1)) and not re.sub(r"[\s;,/&+]|\band\b", "", rest) else match.group(0)
    return re.sub(r"\s*\(([^()]*)\)", drop, comment)


def arch_lists(model: "ImageModel") -> tuple[ArchList, ...]:
    """Every CUDA architecture list the build sets (ARG defaults and ENV values whose name holds ARCH),
    the last value of each name."""
    found: dict[str, ArchList] = {}
    items = [(a.name, a.default, a.line) for a in model.dockerfile.args if a.default is not None]
    items += [(e.key, e.value, e.line) for e in model.dockerfile.envs]
    for name, value, line in sorted(items, key=lambda item: item[2]):
        if "ARCH" not in name.upper():
            continue
        archs = capabilities(value)
        if archs:
            found[name] = ArchList(name, line, value, archs)
    return tuple(found.values())


def arch_floor(model: "ImageModel") -> tuple[ArchList, tuple[int, int]] | None:
    """The oldest GPU every part of the image runs on: the highest of the lists' minima, and the list
    that sets it (None: the build names no architecture)."""
    lists = arch_lists(model)
    if not lists:
        return None
    setter = max(lists, key=lambda a: a.minimum)
    return setter, setter.minimum


def arch_mismatches(model: "ImageModel") -> list[Mismatch]:
    """A list that compiles for GPUs below the floor another list sets: those GPUs cannot run the image
    (the docs state the floor), so the lower entries are wasted build time, or the other list lost them."""
    floor = arch_floor(model)
    if floor is None:
        return []
    setter, arch = floor
    return [Mismatch("arch-floor", a.line, f"{model.dockerfile.path}:{setter.line}",
                     f"{a.name}={a.value!r} compiles for {', '.join(format_capability(x) for x in a.archs if x < arch)}, "
                     f"below the hardware floor {format_capability(arch)} that {setter.name}={setter.value!r} sets "
                     f"(the docs state the highest minimum); drop them here or add them to {setter.name}")
            for a in arch_lists(model) if a.minimum < arch]


def arch_comment_mismatches(model: "ImageModel") -> list[Mismatch]:
    """The comment above an architecture-list ARG is the Dockerfile's own words: where it names an
    architecture (Hopper, Blackwell, ...) the list's default does not compile for, it went stale when the
    list moved. Found at the comment's line, naming the ARG's."""
    path = model.dockerfile.path
    found = []
    for arg in model.dockerfile.args:
        if "ARCH" not in arg.name.upper() or not arg.comment or arg.default is None:
            continue
        archs = capabilities(arg.default)
        if not archs:
            continue
        families = {name.split(" ")[0].lower() for name in arch_names(archs)}
        comment_lines = arg.comment.split("\n")
        for index, text in enumerate(comment_lines):
            stale = [w.group(1) for w in _ARCH_WORD.finditer(text) if w.group(1).split(" ")[0].lower() not in families]
            if stale:
                found.append(Mismatch("arch-comment", arg.line - len(comment_lines) + index, f"{path}:{arg.line}",
                                      f"the comment on {arg.name} names {', '.join(dict.fromkeys(stale))}, which "
                                      f"{arg.name}={arg.default!r} does not compile for "
                                      f"({'; '.join(arch_names(archs))}): update the comment"))
    return found


# ------------------------------------------------------------------------------------------ paths

def _run_texts(model: "ImageModel"):
    """(stage, first line, text) of each RUN: its heredoc bodies at their lines, else its arguments."""
    for ins in model.dockerfile.instructions:
        if ins.keyword != "RUN":
            continue
        if ins.heredocs:
            for heredoc in ins.heredocs:
                yield ins.stage, heredoc.start_line, heredoc.body
        else:
            yield ins.stage, ins.start_line, ins.args


def hard_coded_paths(model: "ImageModel") -> list[Mismatch]:
    """A RUN that spells out a path a build ARG holds (directly, or through an ENV it sets): a
    `--build-arg` moves the variable and leaves the literal behind. Paths only ENV literals hold are
    left alone: no build argument can move them apart."""
    dockerfile = model.dockerfile
    path = dockerfile.path
    held: dict[str, list[tuple[str, str, int]]] = {}   # path -> (kind, name, line) of each declaration
    arg_names = {a.name for a in dockerfile.args}
    for a in dockerfile.args:
        if a.default and a.default.startswith("/") and len(a.default) > 1:
            held.setdefault(a.default.rstrip("/"), []).append(("ARG", a.name, a.line))
    for e in dockerfile.envs:
        if e.raw and e.value.startswith("/") and any(f"${n}" in e.raw or f"${{{n}" in e.raw for n in arg_names):
            held.setdefault(e.value.rstrip("/"), []).append(("ENV", e.key, e.line))
    if not held:
        return []
    pattern = re.compile(r"(?<![\w./$-])(" + "|".join(re.escape(p) for p in sorted(held, key=len, reverse=True))
                         + r")(?![\w.-])")
    found = []
    for stage, first, text in _run_texts(model):
        for match in pattern.finditer(text):
            line = first + line_at(text, match.start()) - 1
            holders = held[match.group(1)]
            # the names that hold the path at this line, as BuildKit scopes them; an ENV first (the image keeps it)
            visible = sorted((h for h in holders if (dockerfile.value(h[1], line) or "").rstrip("/") == match.group(1)),
                             key=lambda h: h[0] != "ENV")
            kind, name, at = (visible or holders)[0]
            hint = f"use ${{{name}}}" if visible else f"declare `ARG {name}` in stage {stage!r} and use ${{{name}}}"
            found.append(Mismatch("hard-coded-path", line, f"{path}:{at}",
                                  f"RUN hard-codes {match.group(1)}, which {kind} {name} holds: {hint}"))
    return found


def bake_names(model: "ImageModel") -> list[Mismatch]:
    """A secret or a named context a bake file that builds this Dockerfile hands the build, which the
    Dockerfile never reads: a secret no RUN mounts (its steps go on without it), a context that names no stage
    and no `--from` source (the build uses its own stage instead). `line` is the bake file's."""
    dockerfile = model.dockerfile
    secrets, sources = set(), {s.name.lower() for s in dockerfile.stages if s.name}
    for ins in dockerfile.instructions:
        for mount in ins.flags.get("mount", ()):
            fields = _fields(mount)
            if fields.get("type") == "secret":
                secrets.add(fields.get("id") or fields.get("target", "").rpartition("/")[2])
        sources.update(s.lower() for s in ins.flags.get("from", ()))
    sources.update(s.base.lower() for s in dockerfile.stages)
    found = []
    for quoted in model.quoted:
        if Path(dockerfile.path).name not in quoted.text:   # not a bake file of this Dockerfile
            continue
        for target, key, value, line in target_attributes(quoted.text):
            fields = _fields(value)
            if key == "secret" and fields.get("id") and fields["id"] not in secrets:
                found.append(Mismatch("bake-names", line, dockerfile.path,
                                      f"target {target!r} passes secret {fields['id']!r}, which no RUN of "
                                      f"{dockerfile.path} mounts ({', '.join(sorted(secrets)) or 'none'}): the "
                                      "build never reads it", quoted.path))
            elif key.startswith("contexts.") and key[9:].lower() not in sources:
                found.append(Mismatch("bake-names", line, dockerfile.path,
                                      f"target {target!r} passes context {key[9:]!r}, which {dockerfile.path} "
                                      "names in no FROM and no --from: the build never reads it", quoted.path))
    return found


def _fields(value: str) -> dict[str, str]:
    """`type=secret,id=cacert` (a RUN mount, a bake secret) as its fields."""
    return dict(f.partition("=")[::2] for f in value.split(","))

