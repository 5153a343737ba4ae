"""The committed snapshot of the NeMo-RL inputs the image pins.

`docgen snapshot` reads an RL checkout (pyproject.toml, uv.lock, the actor registry) once and writes a
deterministic, sorted JSON file with one package or set member per line, so reviewers see registry and lock
changes as a readable diff and the docs build offline. Loading it is a `json.load` plus small dataclasses:
the heavy lock walk happens when the snapshot is made, never when docs are checked.
"""


import json
from typing import NamedTuple
from pathlib import Path
from typing import Iterable

from docgen import __version__
from docgen.errors import InputError, read_input, read_json_object
from docgen.names import normalize

FORMAT = 1
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
    registry: "object"                            # docgen.sources.registry.Registry
    packages: dict[str, SnapshotPackage]
    install_sets: dict[str, tuple[str, ...]]
    shared_builds: tuple[SharedBuildFact, ...]

    def install_set(self, extras: Iterable[str] = ()) -> tuple[SnapshotPackage, ...]:
        key = combo_key(extras)
        if key not in self.install_sets:
            raise InputError(self.path, None, f"the snapshot has no install set for extras {key or '(none)'!r}; "
                             "re-run `docgen snapshot` (it stores every combination the registry uses)")
        return tuple(self.packages[k] for k in self.install_sets[key])

    def package(self, name: str, extras: Iterable[str] = ()) -> SnapshotPackage | None:
        """The package called `name` in the install set of `extras` (None when that set does not reach it)."""
        wanted = normalize(name)
        for pkg in self.install_set(extras):
            if pkg.name == wanted:
                return pkg
        return None

    def key_packages(self, extra: str) -> tuple[SnapshotPackage, ...]:
        """Notable packages an extra adds over the base venv, or installs at another version than the base."""
        base = {(p.name, p.version) for p in self.install_set(())}
        return tuple(p for p in self.install_set((extra,))
                     if (p.name, p.version) not in base and _is_notable(p))

    def base_key_packages(self) -> tuple[SnapshotPackage, ...]:
        return tuple(p for p in self.install_set(()) if _is_notable(p))


def _is_notable(pkg: SnapshotPackage) -> bool:
    return pkg.name in NOTABLE_PACKAGES or pkg.source_built or pkg.editable


# ---------------------------------------------------------------------------------------------- making

def _sha256(path: Path) -> str:
    import hashlib
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def _git(rl_dir: Path, *args: str) -> str | None:
    import subprocess
    try:
        out = subprocess.run(["git", "-C", str(rl_dir), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def build_snapshot(rl_dir: str | Path, registry_facts: str | Path | None = None,
                   repo: str | None = None, ref: str | None = None) -> dict:
    """Read an RL checkout into the snapshot's JSON-able form (deterministic)."""
    import hashlib

    from docgen.sources.lockfile import read_lock
    from docgen.sources.pyproject import read_pyproject
    from docgen.sources import registry as registry_reader

    rl_dir = Path(rl_dir)
    pyproject_path = rl_dir / "pyproject.toml"
    lock_path = rl_dir / "uv.lock"
    for p in (pyproject_path, lock_path):
        if not p.is_file():
            raise InputError(p, None, "missing: `docgen snapshot --from DIR` needs DIR/pyproject.toml and DIR/uv.lock")
    project = read_pyproject(pyproject_path)
    lock = read_lock(lock_path, root=project.name)

    inputs = {"pyproject.toml": _sha256(pyproject_path), "uv.lock": _sha256(lock_path)}
    if registry_facts is not None:
        registry_path = Path(registry_facts)
        registry = registry_reader.read_registry_json(registry_path)
        inputs["registry"] = _sha256(registry_path)
        facts = json.loads(read_input(registry_path, "registry facts"))
        upstream = facts.get("upstream", {}) if isinstance(facts, dict) else {}
        fork = facts.get("fork", {}) if isinstance(facts, dict) else {}
        repo = repo or fork.get("repo") or upstream.get("repo")
        ref = ref or fork.get("ref")
        commit = upstream.get("commit")
    else:
        registry = registry_reader.read_registry_source(rl_dir)
        # every module that can change the registry, including the one defining PY_EXECUTABLES
        digest = hashlib.sha256()
        for rel in registry_reader.REGISTRY_SOURCES:
            module = rl_dir / rel
            if module.is_file():
                digest.update(rel.encode() + b"\0" + module.read_bytes())
        inputs["registry"] = "sha256:" + digest.hexdigest()
        commit = _git(rl_dir, "rev-parse", "HEAD")

    # Every combination of extras an image or a registry executable can ask for: none, each extra, each executable's.
    combos: dict[str, tuple[str, ...]] = {"": ()}
    for extra in project.extras:
        combos[combo_key([extra])] = (extra,)
    for entry in registry.entries:
        for extras in (entry.extras, entry.extras_system):
            for extra in extras:
                if normalize(extra) not in {normalize(e) for e in project.extras}:
                    raise InputError(entry.file, entry.line,
                                     f"{entry.actor} runs with --extra {extra}, which {pyproject_path} does not define")
            combos[combo_key(extras)] = tuple(extras)

    packages: dict[str, dict] = {}
    install_sets: dict[str, list[str]] = {}
    for key, extras in sorted(combos.items()):
        members = lock.install_set(extras)
        install_sets[key] = sorted(p.key for p in members)
        for p in members:
            packages[p.key] = {
                "name": p.id.name, "version": p.id.version, "source_kind": p.source_kind,
                "source": p.id.source, "source_built": p.source_built, "editable": p.source_kind == "editable",
            }

    # Source builds the base sync already makes are not shared between extras: every extra just reuses them.
    base = set(install_sets[""])
    shared_builds = [{"package": pkg.key, "extras": list(extras)}
                     for pkg, extras in lock.shared_source_builds(list(project.extras)) if pkg.key not in base]

    return {
        "format": FORMAT,
        "provenance": {
            "repo": repo, "ref": ref, "commit": commit, "docgen_version": __version__,
            "platform": PLATFORM, "inputs": inputs,
        },
        "project": {
            "name": project.name,
            "extras": {name: [r.text for r in reqs] for name, reqs in project.extras.items()},
            "conflicts": [[{"package": c.package, "extra": c.extra} for c in group if c.extra is not None]
                          for group in project.conflicts],
            "default_groups": list(project.default_groups),
            "groups": list(project.groups),
            "overrides": [r.text for r in project.overrides],
            "sources": [{"name": s.name, "kind": s.kind, "detail": s.detail, "marker": s.marker}
                        for s in project.sources],
            "workspace_members": list(project.workspace_members),
        },
        "registry": {
            "executables": dict(registry.executables),
            "actors": [{"actor": e.actor, "member": e.member, "command": e.command,
                        "command_system": e.command_system, "source": e.source}
                       for e in registry.entries],
        },
        "lock": {
            "version": lock.version, "revision": lock.revision,
            "packages": {k: packages[k] for k in sorted(packages)},
            "install_sets": install_sets,
            "shared_builds": shared_builds,
        },
    }


def dump_snapshot(data: dict) -> str:
    """Diff-friendly JSON: nested objects indented, each list of strings one item per line, keys sorted."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def write_atomic(path: str | Path, text: str) -> None:
    """Write text so a reader (or a kill) never sees a half-written file."""
    import os
    import tempfile

    path = Path(os.path.realpath(path))  # through a symlink: replace its target, keep the link
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


# --------------------------------------------------------------------------------------------- loading

def load_snapshot(path: str | Path) -> Snapshot:
    from docgen.sources.registry import Registry, RegistryEntry

    path = Path(path)
    text, data = read_json_object(path, "the snapshot")
    if data.get("format") != FORMAT:
        found = data.get("format")
        raise InputError(path, 1, f"unsupported snapshot format {found!r} (docgen {__version__} reads {FORMAT})")
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
        packages = {k: SnapshotPackage(key=k, **v) for k, v in lock["packages"].items()}
        referenced = [(f"install set {k!r}", m) for k, members in lock["install_sets"].items() for m in members]
        referenced += [("shared build", s["package"]) for s in lock["shared_builds"]]
        for where, key in referenced:
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
