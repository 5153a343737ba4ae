"""Phase B's view of the committed snapshot: typed records and `load_snapshot`.

Loading is a `json.load` plus small records (docgen.records); the heavy lock walk happened when the snapshot was made
(`docgen.snapshot.build`), never when docs are checked.
"""

from __future__ import annotations

import json
import keyword
import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

from docgen import __version__
from docgen.errors import CONTROL_CHARS, InputError
from docgen.fact import Fact
from docgen.io import read_json_object
from docgen.names import normalize
from docgen.records import Memo
from docgen.text import LineCounter, line_at
from docgen.snapshot.registry import REGISTRY_MODULE, Registry, RegistryEntry

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


_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")


def _requirement_said(requirement: str) -> tuple[str, str]:
    """A requirement as prose speaks of it: its name, and where it comes from: ("transformer-engine", "git
    v2.14.1") (the ref of a git source), ("flash-attn", "url"), ("transformers", ">=5.5.0,<5.6.0"),
    ("mamba-ssm", "unpinned")."""
    m = _REQUIREMENT_NAME.match(requirement.strip())
    name = normalize(m.group(0)) if m else requirement.strip()
    rest = requirement.strip()[m.end() if m else 0:].split(";")[0]
    if "@" in rest:
        url = rest.partition("@")[2].strip()
        if url.startswith("git+"):
            where = url.split("://", 1)[-1]
            return name, f"git {where.rpartition('@')[2] if '@' in where else 'default branch'}"
        return name, "url"
    return name, re.sub(r"^\[[^\]]*\]", "", rest.strip()).strip() or "unpinned"


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
    registry: Registry
    packages: dict[str, SnapshotPackage]
    install_sets: dict[str, tuple[str, ...]]
    shared_builds: tuple[SharedBuildFact, ...]
    requires_python: str | None = None            # pyproject's requires-python (else the lock's)
    uv_required_version: str | None = None        # pyproject's [tool.uv] required-version (None: not stated)
    text: str = ""                                # the snapshot as read: where a fact is, for findings

    def line_of(self, needle: str) -> int | None:
        """The line of the snapshot where ``needle`` (a JSON string, quotes included) first appears."""
        if not self.text:
            return None
        return _STRING_LINES.answer(self, "lines", lambda: _string_lines(self.text)).get(needle)

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

    @property
    def facts(self) -> tuple[Fact, ...]:
        """What NeMo-RL states alone, as facts (docgen.fact): the module its actor registry is read from, its
        dependency groups (default or not), what each extra requires, its conflicting extras, requires-python and uv's required-version.
        The extras, packages and actors are the model's facts: which of them the image warms or builds is the
        Dockerfile's to say."""
        out = [Fact("source-file", REGISTRY_MODULE, "the actor registry", self.path, (REGISTRY_MODULE,))]
        out += [Fact("group", group, "default" if group in self.default_groups else "not default",
                    f"{self.path}:{self.line_of(group) or 1}", (group,)) for group in self.groups]
        pinned: dict[str, dict[str, str]] = {}   # package -> install set of one extra (or the base) -> version
        for key in (k for k in self.install_sets if "+" not in k):   # the base, and each extra alone
            for pkg in self.install_set((key,) if key else ()):
                pinned.setdefault(pkg.name, {})[key or "base"] = pkg.version or "?"
        out += [Fact("lock-versions", name, "; ".join(f"{k}={v}" for k, v in sorted(by_set.items())),
                     f"{self.path}:{self.line_of(name) or 1}", ())
                for name, by_set in sorted(pinned.items()) if len(set(by_set.values())) > 1]   # extras pin different ones
        # what each extra requires in pyproject.toml (a git tag, a wheel URL, a range), apart from what the lock makes
        # of it: "the `automodel` extra names a git tag of its own"
        for extra in self.extras:   # one part per required package: its name, then where each line takes it from
            said: dict[str, list[str]] = {}
            for name, source in map(_requirement_said, self.extra_requirements.get(extra, ())):
                sources = said.setdefault(name, [])
                if source not in sources:   # a line per platform may repeat it
                    sources.append(source)
            out.append(Fact("requires", extra, "; ".join(f"{n} {', '.join(s)}" for n, s in said.items()) or "-",
                            f"{self.path}:{self.line_of(extra) or 1}", (extra,)))
        if self.conflicts:
            sets = sorted("+".join(sorted(f"{k or 'extra'}={n}" for k, n in c)) for c in self.conflicts)
            out.append(Fact("conflicts", "extras", "; ".join(sets), self.path, ()))
        if self.requires_python:
            out.append(Fact("python", "requires-python", self.requires_python, self.path, ("requires-python",),
                            ("python",)))
        if self.uv_required_version:
            out.append(Fact("uv", "required-version", self.uv_required_version, self.path, ("required-version",),
                            ("uv",)))
        return tuple(out)


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


def _flat_record(shape: object) -> TypeGuard[dict]:
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
    stack: list[tuple[Any, Any, tuple]] = [(data, schema, path)]   # JSON values, and the schema's shapes
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
    return line_at(text, pos)


# ------------------------------------------------------------------------------------------ identities
# What each string of a snapshot may hold, checked once where a snapshot enters (loaded, or made by `docgen
# snapshot`) so nothing downstream meets a name that is markup, a path out of a folder or a command: actor
# FQNs are dotted Python identifiers; packages PEP 503 names, extras and groups PEP 685 names; versions PEP
# 440 (local versions too); paths relative and normalised; URLs http(s) or git (git+https, ssh, scp-like);
# registry commands plain words. No string holds a control character (nor a line separator or a
# bidirectional override, which reorder or break what a reader sees) or runs over MAX_STRING. Free text
# (requirement strings, markers) is held to those two rules only, and is escaped where it lands.

MAX_STRING = 4_096   # the longest requirement with a wheel URL in NeMo-RL's lock is about 250 characters
# JSON text holds a control character only as an escape (a backslash) or, for DEL and the Unicode ones, as
# itself: a text with neither cannot hold one in any string, and the walk over every string is skipped
_NOT_ASCII_BAD = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_VERSION = re.compile(r"v?(?:\d+!)?\d+(?:\.\d+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?"
                      r"(?:-\d+|[-_.]?(?:post|rev|r)[-_.]?\d*)?(?:[-_.]?dev[-_.]?\d*)?"
                      r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?", re.I)
# after the scheme, what RFC 3986 allows in a URL but `[ ]` (only an IPv6 host uses them; Markdown's links do)
_URL = re.compile(r"(?:(?:git\+)?(?:https?|ssh)://|git://|[A-Za-z0-9_.-]+@[A-Za-z0-9.-]+:)"
                  r"[A-Za-z0-9._~:/?#@!$&()*+,;=%-]+")
_PATH = re.compile(r"[A-Za-z0-9_.+@=,~/-]+")   # the characters of a path in a lock or a workspace
_COMMIT = re.compile(r"[0-9a-f]{7,64}")
_REPO = re.compile(r"(?!\.\.?(?:/|$))[A-Za-z0-9_.-]+(?:/(?!\.\.?(?:/|$))[A-Za-z0-9_.-]+)*")   # no `.` or `..` part
_REF = re.compile(r"(?!-)(?!.*\.\.)(?!.*//)[A-Za-z0-9._+/@=-]+(?<![/.])")
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9 _./+=-]*")
_PLATFORM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9 _.,+-]*")
_COMMAND = re.compile(r"[A-Za-z0-9_.{}=/:+ -]+")        # `uv run --locked --extra vllm --directory {git_root}`
_KEY_TAIL = re.compile(r"[A-Za-z0-9_.+!=@:/() -]*")     # after the name: `==1.2.1+29d31c0@git:29d31c0`
_SPECIFIER = re.compile(r"[A-Za-z0-9<>=!~.*,+ ]+")      # `>=3.13.14,<3.14`
PACKAGE_SOURCE_KINDS = ("registry", "git", "url", "path", "directory", "editable", "virtual")


def is_name(text: str) -> bool:
    """A PEP 503 package name, or a PEP 685 extra or group name (the same syntax; either normalised)."""
    return _NAME.fullmatch(text) is not None


def is_fqn(text: str) -> bool:
    """A dotted Python name: `nemo_rl.models.policy.workers.X`."""
    return all(part.isidentifier() and not keyword.iskeyword(part) for part in text.split("."))


def is_relative_path(text: str) -> bool:
    """Relative, `/`-separated and normalised (`.` is the project itself; a trailing `/` is allowed; leading
    `..` steps stay, as uv writes a path beside the workspace)."""
    if not _PATH.fullmatch(text) or text.startswith("/"):
        return False
    body = text[:-1] if text.endswith("/") and len(text) > 1 else text
    return body == "." or posixpath.normpath(body) == body


def _local_repo(text: str) -> bool:
    """A repository recorded as the local path its remote points at (`docgen snapshot` never dresses it up as
    OWNER/NAME): absolute, normalised, of a path's plain characters."""
    return text.startswith("/") and posixpath.normpath(text) == text and _PATH.fullmatch(text) is not None


def is_url(text: str) -> bool:
    return _URL.fullmatch(text) is not None


def _source_ok(kind: str, value: str) -> bool:
    """A lock package's `kind+location`: a URL for an index, git or url source, else a relative path."""
    head, plus, location = value.partition("+")
    if not plus or head != kind:
        return False
    if kind in ("registry", "git", "url"):
        return is_url(location) or (kind == "registry" and is_relative_path(location))
    return is_relative_path(location)


def identity_errors(data: dict, text: str | None = None) -> "Iterable[tuple[tuple, str]]":
    """(key path, message) for each string of a snapshot (already of the schema's shape) that is not the
    identity its field holds, or holds a control character; `text`, the JSON the data was read from, lets
    the character walk be skipped when the text cannot hold one."""
    if text is None or "\\" in text or (not text.isascii() or "\x7f" in text) and _NOT_ASCII_BAD.search(text):
        yield from _character_errors(data)
    yield from _field_errors(data)


def _character_errors(data: object) -> "Iterable[tuple[tuple, str]]":
    stack: list[tuple[object, tuple]] = [(data, ())]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            found = CONTROL_CHARS.search(value)
            if found:
                yield where, f"holds the control character U+{ord(found.group()):04X}"
        elif isinstance(value, dict):
            for key, item in value.items():
                found = CONTROL_CHARS.search(key)
                if found:
                    yield (*where, key), f"is a key holding the control character U+{ord(found.group()):04X}"
                stack.append((item, (*where, key)))
        elif isinstance(value, list):
            stack.extend((item, (*where, i)) for i, item in enumerate(value))


def _field_errors(data: dict) -> "Iterable[tuple[tuple, str]]":
    def check(ok: bool, where: tuple, value: object, what: str) -> "Iterable[tuple[tuple, str]]":
        if isinstance(value, str) and len(value) > MAX_STRING:
            yield from long(value, where)
        elif not ok:
            yield where, f"is {_short_repr(value)}, not {what}"

    def long(value: object, where: tuple) -> "Iterable[tuple[tuple, str]]":
        if isinstance(value, str) and len(value) > MAX_STRING:
            yield where, f"is {len(value):,} characters long, over docgen's cap of {MAX_STRING:,}"

    name, extra, path, url = "a package name", "an extra or group name (PEP 685)", "a relative normalised path", \
        "an http(s) or git URL"
    prov, project, registry, lock = data["provenance"], data["project"], data["registry"], data["lock"]
    # provenance: free-form, but the fields docgen reads are held to their kind
    for key, rule, what in (("repo", lambda v: _REPO.fullmatch(v) or is_url(v) or _local_repo(v),
                             "OWNER/NAME, a URL or an absolute normalised path (a local clone or mirror)"),
                            ("ref", _REF.fullmatch, "a git ref name"), ("commit", _COMMIT.fullmatch, "a commit hash"),
                            ("docgen_version", _VERSION.fullmatch, "a version (PEP 440)"),
                            ("platform", _PLATFORM.fullmatch, "a platform's words")):
        value = prov.get(key)
        if value is not None:
            yield from check(isinstance(value, str) and bool(rule(value)), ("provenance", key), value, what)
    inputs = prov.get("inputs")
    if isinstance(inputs, dict):
        for key, value in inputs.items():
            yield from check(_NAME.fullmatch(key) is not None, ("provenance", "inputs", key), key, "an input's name")
            yield from check(isinstance(value, str) and bool(_DIGEST.fullmatch(value)),
                             ("provenance", "inputs", key), value, "a sha256 digest")
    stack: list[tuple[object, tuple]] = [(prov, ("provenance",))]
    while stack:   # free-form: any depth, so walked without recursion; each string held to the cap
        value, where = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, (*where, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*where, i)) for i, v in enumerate(value))
        else:
            yield from long(value, where)

    yield from check(is_name(project["name"]), ("project", "name"), project["name"], name)
    for key, requirements in project["extras"].items():
        yield from check(is_name(key), ("project", "extras", key), key, extra)
        for i, requirement in enumerate(requirements):
            yield from long(requirement, ("project", "extras", key, i))
    for g, group in enumerate(project["conflicts"]):
        for i, item in enumerate(group):
            if item["package"] is not None:
                yield from check(is_name(item["package"]), ("project", "conflicts", g, i, "package"),
                                 item["package"], name)
            yield from check(is_name(item["extra"]), ("project", "conflicts", g, i, "extra"), item["extra"], extra)
    for key in ("default_groups", "groups"):
        for i, group in enumerate(project[key]):
            yield from check(is_name(group), ("project", key, i), group, extra)
    for i, requirement in enumerate(project["overrides"]):
        yield from long(requirement, ("project", "overrides", i))
    for i, source in enumerate(project["sources"]):
        where = ("project", "sources", i)
        yield from check(is_name(source["name"]), (*where, "name"), source["name"], name)
        yield from check(_NAME.fullmatch(source["kind"]) is not None, (*where, "kind"), source["kind"], "a word")
        detail = source["detail"]
        if detail is not None and source["kind"] in ("git", "url"):
            yield from check(is_url(detail), (*where, "detail"), detail, url)
        elif detail is not None and source["kind"] in ("path", "editable"):
            yield from check(is_relative_path(detail), (*where, "detail"), detail, path)
        elif detail is not None:
            yield from check(_WORD.fullmatch(detail) is not None, (*where, "detail"), detail, "a name")
        yield from long(source["marker"], (*where, "marker"))
    for i, member in enumerate(project["workspace_members"]):
        yield from check(is_relative_path(member), ("project", "workspace_members", i), member, path)
    for key in ("requires_python", "uv_required_version"):
        if project.get(key) is not None:
            yield from check(_SPECIFIER.fullmatch(project[key]) is not None, ("project", key), project[key],
                             "a version specifier")

    for key, command in registry["executables"].items():
        yield from check(key.isidentifier(), ("registry", "executables", key), key, "a Python name")
        yield from check(_COMMAND.fullmatch(command) is not None and len(command) <= MAX_STRING,
                         ("registry", "executables", key), command, "a command of plain words")
    for i, actor in enumerate(registry["actors"]):
        where = ("registry", "actors", i)
        yield from check(is_fqn(actor["actor"]), (*where, "actor"), actor["actor"], "a dotted Python name")
        if actor["member"] is not None:
            yield from check(actor["member"].isidentifier(), (*where, "member"), actor["member"], "a Python name")
        for field in ("command", "command_system"):
            yield from check(_COMMAND.fullmatch(actor[field]) is not None and len(actor[field]) <= MAX_STRING,
                             (*where, field), actor[field], "a command of plain words")
        yield from check(_WORD.fullmatch(actor["source"]) is not None, (*where, "source"), actor["source"], "a word")

    for key, pkg in lock["packages"].items():   # a few hundred: plain tests, a message only on a miss
        pname, version, kind, source = pkg["name"], pkg["version"], pkg["source_kind"], pkg["source"]
        if (len(pname) + len(source) + len(version or "") <= MAX_STRING and _NAME.fullmatch(pname)
                and (version is None or _VERSION.fullmatch(version))
                and kind in PACKAGE_SOURCE_KINDS and _source_ok(kind, source) and len(key) <= MAX_STRING
                and key.startswith(pname) and _KEY_TAIL.fullmatch(key, len(pname))):
            continue
        where = ("lock", "packages", key)
        yield from check(is_name(pname), (*where, "name"), pname, name)
        if version is not None:
            yield from check(_VERSION.fullmatch(version) is not None, (*where, "version"), version,
                             "a version (PEP 440)")
        yield from check(kind in PACKAGE_SOURCE_KINDS, (*where, "source_kind"), kind,
                         "a source kind (" + ", ".join(PACKAGE_SOURCE_KINDS) + ")")
        yield from check(_source_ok(kind, source), (*where, "source"), source,
                         f"{kind}+ and {'a URL' if kind in ('registry', 'git', 'url') else 'a relative path'}")
        yield from long(key, where)
        yield from check(key.startswith(pname) and _KEY_TAIL.fullmatch(key, len(pname)) is not None, where, key,
                         f"a package key (its name {pname!r}, then ==VERSION, @SOURCE or (KIND))")
    for key in lock["install_sets"]:
        yield from check(key == "" or all(map(is_name, key.split("+"))), ("lock", "install_sets", key), key,
                         "extras joined by '+'")
    for i, shared in enumerate(lock["shared_builds"]):
        for j, name_ in enumerate(shared["extras"]):
            yield from check(is_name(name_), ("lock", "shared_builds", i, "extras", j), name_, extra)


def check_identities(data: dict, path: str | Path, text: str | None = None, what: str = "malformed snapshot") -> None:
    """The first identity error of a snapshot as bad input, naming its key path (and line, given the text)."""
    for where, problem in identity_errors(data, text):
        line = _line_of_path(text, where) if text is not None else None
        raise InputError(path, line, f"{what}: {key_path(where)} {problem}")


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
    check_identities(data, path, text)
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
        # an install set or a shared build of an extra the project does not define would be read as nothing
        defined = {normalize(e) for e in project["extras"]}
        unknown: list[tuple[tuple, str]] = [
            (("lock", "install_sets", k), part) for k in lock["install_sets"] for part in k.split("+")
            if k and normalize(part) not in defined]
        unknown += [(("lock", "shared_builds", i, "extras", j), e) for i, s in enumerate(lock["shared_builds"])
                    for j, e in enumerate(s["extras"]) if normalize(e) not in defined]
        for where_path, extra_name in unknown[:1]:
            raise InputError(path, _line_of_path(text, where_path) or 1,
                             f"malformed snapshot: {key_path(where_path)} names extra {extra_name!r}, which "
                             "project.extras lacks; re-run `docgen snapshot`")
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
    line_of = LineCounter(text)
    line_of(pos)
    out: list[int | None] = []
    for actor in actors:
        found = text.find(f'"{actor}"', pos)
        if found < 0:
            out.append(None)
            continue
        pos = found
        out.append(line_of(found))
    return out


_STRING_LINES = Memo()   # per snapshot: each JSON string's first line, from one pass over the text
# a JSON string between its quotes: runs of plain characters, each escape between them (one step per run, not
# per character: the snapshot holds thousands of strings)
_JSON_STRING = re.compile(r'"([^"\\\n]*(?:\\.[^"\\\n]*)*)"')


def _string_lines(text: str) -> dict[str, int]:
    """Every JSON string of the text (as written between its quotes) -> the line it first appears on."""
    out: dict[str, int] = {}
    line_of = LineCounter(text)
    for m in _JSON_STRING.finditer(text):
        if m.group(1) not in out:
            out[m.group(1)] = line_of(m.start())
    return out


def _line_of(text: str, needle: str) -> int | None:
    idx = text.find(f'"{needle}"')
    return None if idx < 0 else line_at(text, idx)
