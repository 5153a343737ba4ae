"""Phase B's view of the committed snapshot: typed records and `load_snapshot`.

Loading is a `json.load` plus small records (docgen.records); the heavy lock walk happened when the snapshot was made
(`docgen.snapshot.build`), never when docs are checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from docgen import __version__
from docgen.errors import InputError
from docgen.io import read_json_object
from docgen.names import normalize
from docgen.records import Memo
from docgen.snapshot.registry import Registry, RegistryEntry

if TYPE_CHECKING:
    from collections.abc import Iterable

FORMAT = 1
# NeMo-RL registers about 30 actors; the cap keeps `docgen check` within the large-input bound however a
# snapshot grows (bench/large_inputs.py, registry-5000-actors and registry-50000-actors).
MAX_ACTORS = 5_000
# Platform the install sets are computed for: the image is built for linux/amd64 with CPython 3.13.
PLATFORM = "linux x86_64, CPython 3.13"

# Packages worth naming in the docs when an extra adds them; source-built and editable packages are always named.
NOTABLE_PACKAGES = (
    "torch", "ray", "transformers", "vllm", "flashinfer-python", "deep-ep", "deep-gemm", "flash-attn",
    "transformer-engine", "megatron-core", "megatron-bridge", "nemo-automodel", "nemo-gym",
    "nvidia-modelopt", "mamba-ssm", "causal-conv1d", "nv-grouped-gemm", "sglang", "tensorrt-llm",
    "nvidia-resiliency-ext",
)


def combo_key(extras: Iterable[str]) -> str:
    """Name of an install set: the sorted, PEP 685-normalised extras joined by '+'; '' is the base venv."""
    return "+".join(sorted({normalize(e) for e in extras}))


class SnapshotPackage(NamedTuple):
    key: str
    name: str
    version: str | None
    source_kind: str
    source: str
    source_built: bool
    editable: bool


class SharedBuildFact(NamedTuple):
    key: str
    extras: tuple[str, ...]


class Snapshot(NamedTuple):
    path: str
    provenance: dict
    project_name: str
    extras: tuple[str, ...]                       # as written in pyproject.toml, in file order
    extra_requirements: dict[str, tuple[str, ...]]
    conflicts: tuple[tuple[tuple[str | None, str], ...], ...]
    default_groups: tuple[str, ...]
    groups: tuple[str, ...]
    overrides: tuple[str, ...]
    sources: tuple[dict, ...]
    workspace_members: tuple[str, ...]
    registry: "object"                            # docgen.snapshot.registry.Registry
    packages: dict[str, SnapshotPackage]
    install_sets: dict[str, tuple[str, ...]]
    shared_builds: tuple[SharedBuildFact, ...]
    requires_python: str | None = None            # pyproject's requires-python (else the lock's)
    uv_required_version: str | None = None        # pyproject's [tool.uv] required-version (None: not stated)
    text: str = ""                                # the snapshot as read: where a fact is, for findings

    def line_of(self, needle: str) -> int | None:
        """The line of the snapshot where ``needle`` (a JSON string, quotes included) first appears."""
        return _line_of(self.text, needle) if self.text else None

    def install_set(self, extras: Iterable[str] = ()) -> tuple[SnapshotPackage, ...]:
        key = combo_key(extras)
        if key not in self.install_sets:
            raise InputError(self.path, None, f"the snapshot has no install set for extras {key or '(none)'!r}; "
                             "re-run `docgen snapshot` (it stores every combination the registry uses)")
        return _MEMO.answer(self, ("install_set", key), lambda: tuple(self.packages[k] for k in self.install_sets[key]))

    def package(self, name: str, extras: Iterable[str] = ()) -> SnapshotPackage | None:
        """The package called `name` in the install set of `extras` (None when that set does not reach it)."""
        wanted = normalize(name)
        for pkg in self.install_set(extras):
            if pkg.name == wanted:
                return pkg
        return None

    def key_packages(self, extra: str) -> tuple[SnapshotPackage, ...]:
        """Notable packages an extra adds over the base venv, or installs at another version than the base."""
        def compute():
            base = {(p.name, p.version) for p in self.install_set(())}
            return tuple(p for p in self.install_set((extra,)) if (p.name, p.version) not in base and _is_notable(p))
        return _MEMO.answer(self, ("key_packages", extra), compute)

    def base_key_packages(self) -> tuple[SnapshotPackage, ...]:
        return tuple(p for p in self.install_set(()) if _is_notable(p))


# the docs ask for the same install sets and key packages dozens of times a run; each walks ~300 packages
_MEMO = Memo()


def _is_notable(pkg: SnapshotPackage) -> bool:
    return pkg.name in NOTABLE_PACKAGES or pkg.source_built or pkg.editable


# ---------------------------------------------------------------------------------------------- schema
# The snapshot's shape, checked before anything reads it: a wrong type anywhere is bad input naming its key
# path (e.g. `shared_builds.extras = "fsdp"` would otherwise iterate as five one-letter extras and drop a
# package from the docs without a word). A dict is an object with exactly these keys; MapOf is an object
# keyed by any string; a one-element list is a list of that; a tuple lists the allowed scalar types.

class MapOf(NamedTuple):
    value: object


class MayLack(NamedTuple):
    """A key older snapshots may lack (added after format 1 was first written); checked when present."""
    value: object


_STR, _OPT_STR = (str,), (str, type(None))
_PACKAGE = {"name": _STR, "version": _OPT_STR, "source_kind": _STR, "source": _STR,
            "source_built": (bool,), "editable": (bool,)}
SCHEMA = {
    "format": (int,),
    "provenance": MapOf(object),            # free-form: printed, never computed with
    "project": {
        "name": _STR,
        "extras": MapOf([_STR]),
        "conflicts": [[{"package": _OPT_STR, "extra": _STR}]],
        "default_groups": [_STR],
        "groups": [_STR],
        "overrides": [_STR],
        "sources": [{"name": _STR, "kind": _STR, "detail": _OPT_STR, "marker": _OPT_STR}],
        "workspace_members": [_STR],
        "requires_python": MayLack(_OPT_STR),
        "uv_required_version": MayLack(_STR),   # [tool.uv] required-version, when NeMo-RL states one
    },
    "registry": {
        "executables": MapOf(_STR),
        "actors": [{"actor": _STR, "member": _OPT_STR, "command": _STR, "command_system": _STR, "source": _STR}],
    },
    "lock": {
        "version": (int,),
        "revision": (int,),
        "packages": MapOf(_PACKAGE),
        "install_sets": MapOf([_STR]),
        "shared_builds": [{"package": _STR, "extras": [_STR]}],
    },
}

_TYPE_NAMES = {str: "a string", int: "an integer", bool: "a boolean", float: "a number",
               type(None): "null", list: "a list", dict: "an object"}


def _kind(value: object) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _expected(schema: object) -> str:
    if isinstance(schema, tuple) and not isinstance(schema, MapOf):
        return " or ".join(_TYPE_NAMES[t] for t in schema)
    if isinstance(schema, list):
        if isinstance(schema[0], (list, dict, MapOf)) or not isinstance(schema[0], tuple):
            return "a list"
        return "a list of " + " or ".join(_TYPE_NAMES[t].split(" ", 1)[-1] + ("s" if t is not type(None) else "") for t in schema[0])
    return "an object"


def _flat_record(shape: object) -> bool:
    """An object schema whose every field is a plain type check (a lock package)."""
    return type(shape) is dict and all(type(field) is tuple for field in shape.values())


def _fits_record(value: object, shape: dict) -> bool:
    if type(value) is not dict or value.keys() != shape.keys():
        return False
    for key, field in shape.items():   # a loop, not all(...): this runs for every package of the lock
        if type(value[key]) not in field:
            return False
    return True


def schema_errors(data: object, schema: object = SCHEMA, path: tuple = ()) -> "Iterable[tuple[tuple, str]]":
    """(key path, message) for every place `data` does not fit `schema`; iterative, so nesting depth
    costs no recursion."""
    stack = [(data, schema, path)]
    while stack:
        value, shape, where = stack.pop()
        if shape is object:
            continue
        if isinstance(shape, MayLack):
            shape = shape.value
        if isinstance(shape, MapOf):
            if type(value) is not dict:
                yield where, f"is {_kind(value)} ({_short_repr(value)}), expected an object"
                continue
            if type(shape.value) is tuple and all(type(item) in shape.value for item in value.values()):
                continue   # the common case, checked without a stack entry per item
            if _flat_record(shape.value) and all(_fits_record(item, shape.value) for item in value.values()):
                continue
            stack.extend((item, shape.value, (*where, key)) for key, item in reversed(list(value.items())))
        elif isinstance(shape, tuple):
            # bool is an int subclass; a schema that wants an integer does not want true
            if type(value) not in shape:
                yield where, f"is {_kind(value)} ({_short_repr(value)}), expected {_expected(shape)}"
        elif isinstance(shape, list):
            if type(value) is not list:
                yield where, f"is {_kind(value)} ({_short_repr(value)}), expected {_expected(shape)}"
                continue
            if type(shape[0]) is tuple and all(type(item) in shape[0] for item in value):
                continue
            stack.extend((item, shape[0], (*where, i)) for i, item in reversed(list(enumerate(value))))
        else:
            if type(value) is not dict:
                yield where, f"is {_kind(value)} ({_short_repr(value)}), expected an object"
                continue
            missing = [key for key in shape if key not in value and not isinstance(shape[key], MayLack)]
            unknown = [key for key in value if key not in shape]
            if missing:
                yield where, f"lacks key {missing[0]!r}"
            if unknown:
                yield where, f"has unknown key {unknown[0]!r}"
            stack.extend((value[key], shape[key], (*where, key)) for key in reversed(list(shape)) if key in value)


def key_path(path: tuple) -> str:
    """`lock.shared_builds[0].extras`; keys that are not identifiers in brackets: `lock.packages["a==1"]`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out or "(the top level)"


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _short_repr(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, (list, dict)) else ("[...]" if isinstance(value, list) else "{...}")
    return text if len(text) <= 40 else text[:37] + "..."


def _line_of_path(text: str, path: tuple) -> int:
    """Best-effort line of a key path: find each object key in turn after the previous one."""
    pos = 0
    for part in path:
        if isinstance(part, str):
            found = text.find(json.dumps(part) + ":", pos)
            if found < 0:
                found = text.find(json.dumps(part), pos)
            if found < 0:
                break
            pos = found
    return text.count("\n", 0, pos) + 1


# --------------------------------------------------------------------------------------------- loading

def load_snapshot(path: str | Path, *, text: str | None = None, data: dict | None = None,
                  shown: str | None = None) -> Snapshot:
    """The snapshot at `path`; or, given `text` (and optionally its parsed `data`), one made in memory
    (`docgen diff` on an RL checkout), with `path` only naming it in messages. `shown` names it in messages
    and findings as the user knows it (relative to the project root) when the reader is given another path."""
    if text is None:
        text, data = read_json_object(path, "the snapshot")
    elif data is None:
        data = json.loads(text)
    path = Path(shown) if shown is not None else Path(path)
    if data.get("format") != FORMAT:
        found = data.get("format")
        raise InputError(path, 1, f"unsupported snapshot format {found!r} (docgen {__version__} reads {FORMAT})")
    for where, problem in schema_errors(data):
        raise InputError(path, _line_of_path(text, where),
                         f"malformed snapshot: {key_path(where)} {problem}; re-run `docgen snapshot`")
    if len(data["registry"]["actors"]) > MAX_ACTORS:
        raise InputError(path, _line_of_path(text, ("registry", "actors")),
                         f"the registry holds {len(data['registry']['actors'])} actors, over docgen's cap of "
                         f"{MAX_ACTORS}; the pages would hold tables no reader could use")
    try:
        project = data["project"]
        reg = data["registry"]
        lock = data["lock"]
        lines = _actor_lines(text, [a["actor"] for a in reg["actors"]])
        entries = tuple(
            RegistryEntry(actor=a["actor"], member=a["member"], command=a["command"],
                          command_system=a["command_system"], source=a["source"], file=str(path), line=line)
            for a, line in zip(reg["actors"], lines))
        for a, line in zip(reg["actors"], lines):
            for field in ("actor", "command", "command_system"):
                if not isinstance(a[field], str):
                    raise InputError(path, line or _line_of(text, field) or 1,
                                     f"malformed snapshot: actor field {field!r} is {a[field]!r}, not a string")
        registry = Registry(executables=dict(reg["executables"]), entries=entries)
        # positional: the schema check above made sure each package has exactly these keys (cheaper than
        # keywords, which counts with a few hundred packages per snapshot and two in a diff: bench/diff_speed.py)
        packages = {k: SnapshotPackage(k, v["name"], v["version"], v["source_kind"], v["source"],
                                       v["source_built"], v["editable"]) for k, v in lock["packages"].items()}
        referenced = [(k, members) for k, members in lock["install_sets"].items() if not all(map(packages.__contains__, members))]
        referenced = [(f"install set {k!r}", m) for k, members in referenced for m in members]
        referenced += [("shared build", s["package"]) for s in lock["shared_builds"]]
        for where, key in referenced:   # only the sets naming an unknown package are looked at one by one
            if key not in packages:
                raise InputError(path, _line_of(text, key) or 1,
                                 f"malformed snapshot: {where} names package {key!r}, which lock.packages lacks; "
                                 "re-run `docgen snapshot`")
        return Snapshot(
            path=str(path),
            provenance=data["provenance"],
            project_name=project["name"],
            extras=tuple(project["extras"]),
            extra_requirements={k: tuple(v) for k, v in project["extras"].items()},
            conflicts=tuple(tuple((c["package"], c["extra"]) for c in group) for group in project["conflicts"]),
            default_groups=tuple(project["default_groups"]),
            groups=tuple(project["groups"]),
            overrides=tuple(project["overrides"]),
            sources=tuple(project["sources"]),
            workspace_members=tuple(project["workspace_members"]),
            registry=registry,
            packages=packages,
            install_sets={k: tuple(v) for k, v in lock["install_sets"].items()},
            shared_builds=tuple(SharedBuildFact(key=s["package"], extras=tuple(s["extras"]))
                                for s in lock["shared_builds"]),
            requires_python=project.get("requires_python"),
            uv_required_version=project.get("uv_required_version"),
            text=text,
        )
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        # json keeps no positions; name the line of the field when it is there, else the first line
        field_name = str(exc).strip("'\"")
        raise InputError(path, _line_of(text, field_name) or 1,
                         f"malformed snapshot: missing or wrong field {exc}; re-run `docgen snapshot`") from None


def _actor_lines(text: str, actors: list[str]) -> list[int | None]:
    """Line of each actor in the snapshot's registry section, in one forward scan (actors are in order)."""
    pos = max(text.find('"registry"'), 0)
    line = text.count("\n", 0, pos) + 1
    out: list[int | None] = []
    for actor in actors:
        found = text.find(f'"{actor}"', pos)
        if found < 0:
            out.append(None)
            continue
        line += text.count("\n", pos, found)
        pos = found
        out.append(line)
    return out


def _line_of(text: str, needle: str) -> int | None:
    idx = text.find(f'"{needle}"')
    return None if idx < 0 else text.count("\n", 0, idx) + 1
