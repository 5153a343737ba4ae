"""`docgen diff OLD NEW`: what a NeMo-RL bump changes for the image, for the reviewer of the bump.

OLD and NEW are each a snapshot JSON file or an RL checkout (read into a snapshot in memory, never
written). `compare` is pure: it takes both sides and the current Dockerfile's facts and returns one
JSON-able report (the contract of `--format json`); docgen.render.diff turns it into text or Markdown.

The report answers, in order: which actors were added, removed or renamed and whether the Dockerfile's
prefetch filters still match them; which venvs appear or disappear; per prefetched venv, which source
builds (git, URL and path sources, sdists, editables) were gained, lost or changed, and which packages were
added, removed or re-versioned, each change once with the venvs it reaches; which source builds stop or
start being shared between warmed extras; the conflict groups; and the key versions (torch, vllm,
transformer-engine, ray, Python). A package whose version stays and whose source moves only to another
index is left out: the reviewer cannot act on it.
"""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from docgen.errors import InputError
from docgen.io import read_json_object
from docgen.inputs.shellwords import variables
from docgen.inputs.syntax import stage_label
from docgen.model import class_name_of, venv_path
from docgen.model.build import actors_from_registry, build_model, filter_lines, prefetch_all, venv_dir_of
from docgen.fact import ARG_ALIASES
from docgen.records import Memo
from docgen.snapshot.build import build_snapshot, dump_snapshot
from docgen.snapshot.load import combo_key, load_snapshot
from docgen.snapshot.registry import SYSTEM_COMMAND

if TYPE_CHECKING:
    from docgen.inputs.dockerfile import DockerfileFacts
    from docgen.snapshot.load import Snapshot, SnapshotPackage

KEY_PACKAGES = ("torch", "vllm", "transformer-engine", "ray")


class Side(NamedTuple):
    """One end of the diff: the snapshot JSON (for what the typed view leaves out) and its typed view."""
    label: str          # how reports name it (a path)
    kind: str           # "snapshot" (a JSON file) or "checkout" (an RL folder, read in memory)
    data: dict
    snapshot: "Snapshot"


def load_side(path: str | Path, label: str | None = None, *, registry_facts: str | Path | None = None) -> Side:
    """A snapshot file, or an RL checkout folder read with `build_snapshot` (in memory). The label is the
    path as the caller spelled it (a `str` keeps `./old.json` and a trailing slash; docgen never makes it
    absolute)."""
    label = label or str(path)
    path = Path(path)
    if path.is_dir():
        data = build_snapshot(path, registry_facts=registry_facts, verify=False)   # a review reads any tree
        text = dump_snapshot(data)
        # the typed view reads the same text a written snapshot would hold, so both kinds compare alike
        return Side(label, "checkout", data, load_snapshot(path / "(in-memory snapshot)", text=text,
                                                           data=json.loads(text)))
    if registry_facts is not None:
        raise InputError(registry_facts, None, f"registry facts apply to an RL checkout folder, but {label} "
                                               "is a snapshot file (it already holds its registry)")
    if not path.exists():
        raise InputError(path, None, "no such snapshot file or RL checkout folder")
    text, data = read_json_object(path, "the snapshot")
    return Side(label, "snapshot", data, load_snapshot(path, text=text, data=data))


def load_sides(old: Path, new: Path, registry_facts: Path | None = None, old_facts: Path | None = None,
               new_facts: Path | None = None) -> tuple[Side, Side]:
    """Both sides; `registry_facts` serves whichever of them is a checkout, `old_facts`/`new_facts` one each."""
    if registry_facts is not None and not (Path(old).is_dir() or Path(new).is_dir()):
        raise InputError(registry_facts, None, "--registry-facts: neither OLD nor NEW is an RL checkout folder")
    return (load_side(old, _label(old, "OLD"), registry_facts=old_facts or (registry_facts if Path(old).is_dir() else None)),
            load_side(new, _label(new, "NEW"), registry_facts=new_facts or (registry_facts if Path(new).is_dir() else None)))


def _label(path: str | Path, role: str) -> str:   # role: OLD or NEW, as the report already says
    """The path as typed, except an absolute one in the temporary folder (`mktemp`): a review names no scratch path,
    which means nothing to a reader and differs every run; the snapshot's own provenance names it."""
    import tempfile  # noqa: PLC0415  # only `docgen diff` labels paths; the other commands load this module too
    try:
        temporary = Path(path).is_absolute() and Path(path).resolve().is_relative_to(
            Path(tempfile.gettempdir()).resolve())
    except OSError:
        temporary = False
    return "a temporary file" if temporary else str(path)


# ------------------------------------------------------------------------------------------------ the image

class _Image(NamedTuple):
    """What the current Dockerfile makes of one side."""
    venvs: dict[str, tuple[str, ...]]          # actor FQN -> extras, prefetch order
    filter_actors: dict[str, tuple[str, ...]]  # filter text -> actors it gives a venv
    shared: tuple[tuple[str, str | None, str, tuple[str, ...]], ...]   # (package, version, source, warmed extras)
    venv_dir: str
    error: str | None                          # why build_model refused this side (then a bare prefetch run)


def _image(dockerfile: "DockerfileFacts", side: Side) -> _Image:
    try:
        model = build_model(dockerfile, side.snapshot)
    except InputError as exc:
        # e.g. the Dockerfile warms an extra NEW no longer defines: a finding of the diff, not bad input
        actors = actors_from_registry(side.snapshot.registry, system_flag=False)
        venv_dir = venv_dir_of(dockerfile)
        venvs = prefetch_all(actors, dockerfile.prefetch_calls, venv_dir).venvs
        filters = {f: tuple(v.actor for v in venvs if f in v.filters) for f, _ in filter_lines(dockerfile.prefetch_calls)}
        packages = side.snapshot.packages
        shared = tuple((packages[s.key].name, packages[s.key].version, packages[s.key].source, s.extras)
                       for s in side.snapshot.shared_builds)
        return _Image({v.actor: v.extras for v in venvs}, filters, shared, venv_dir, exc.message)
    return _Image({v.actor: v.extras for v in model.venvs}, {f.text: f.actors for f in model.filters},
                  tuple((s.package, s.version, s.source, s.extras) for s in model.shared_builds), model.venv_dir, None)


# ------------------------------------------------------------------------------------------- the Dockerfile

def _arg_topic(name: str) -> str | None:
    """What an ARG stands for in a reviewer's words: a name prose already uses for it (uv, python, ...), the
    CUDA arch list (an ARG named *ARCH*, as the hardware floor reads them), the users (*UID*, *GID*)."""
    alias = next((word for word, arg in ARG_ALIASES.items() if arg == name), None)
    if alias and "ARCH" not in name:
        return alias
    if "ARCH" in name:
        return "CUDA arch list"
    if "UID" in name or "GID" in name:
        return "users"
    return None


def _step_lines(ins) -> list[str]:
    """A build step's lines, whitespace collapsed: its arguments, then the lines of its heredocs."""
    lines = [" ".join(line.split()) for line in ins.args.splitlines()]
    lines += [" ".join(line.split()) for h in ins.heredocs for line in h.body.splitlines()]
    return [line for line in lines if line]


def _step(ins, other=None) -> str:
    """A build step as a reviewer recognises it: its keyword and its first line, or (`other`: the step it
    replaces) the first line where the two differ."""
    mine = _step_lines(ins)
    theirs = _step_lines(other) if other is not None else []
    at = next((i for i, line in enumerate(mine) if i >= len(theirs) or theirs[i] != line), 0) if other else 0
    line = mine[at] if mine else ""
    return f"{ins.keyword} {'… ' if at else ''}{line}"


def _step_key(ins) -> tuple:
    """What makes two build steps the same: keyword, flags and lines (comments of the instruction left out)."""
    return (ins.keyword, tuple(sorted(ins.flags.items())), tuple(_step_lines(ins)))


_PLAIN_STEPS = ("ARG", "FROM", "USER")   # reported by name (ARG defaults, stage bases, users), not as steps


def image_changes(old: "DockerfileFacts", new: "DockerfileFacts") -> dict:
    """What changed between two Dockerfiles, for a reviewer of the image: build ARG defaults (each with its
    topic: uv, CUDA arch list, users, ...), what each stage starts FROM (expanded with the global ARGs, as
    Docker does), the USER each stage runs as, the extras warmed in the uv cache, and the other build steps
    (RUN, COPY, ENV, ...) added or removed per stage, in file order. Empty lists when the two are alike."""
    def args(d):
        return {(a.stage, a.name): (a.raw if a.raw is not None else a.default) for a in d.args}

    def bases(d):   # the one scope answers what a FROM line expands to (DockerfileFacts.base)
        return {stage_label(s): d.base(s)[0] for s in d.stages}

    def users(d):
        return {stage_label(s): [" ".join(i.args.split()) for i in s.instructions if i.keyword == "USER"]
                for s in d.stages}

    def steps(d):
        return {stage_label(s): [i for i in s.instructions if i.keyword not in _PLAIN_STEPS] for s in d.stages}

    was, now = args(old), args(new)
    arg_rows = [{"stage": stage, "name": name, "old": was.get((stage, name)), "new": now.get((stage, name)),
                 "change": "added" if (stage, name) not in was else "removed" if (stage, name) not in now
                 else "changed", "topic": _arg_topic(name)}
                for stage, name in dict.fromkeys([*now, *was])
                if was.get((stage, name)) != now.get((stage, name))]   # a bare `ARG X` (no default) is no change
    b_was, b_now = bases(old), bases(new)
    refs = {stage_label(s): list(variables(s.base)) for d in (old, new) for s in d.stages}
    base_rows = [{"stage": s, "old": b_was.get(s), "new": b_now.get(s), "args": refs.get(s, [])}
                 for s in dict.fromkeys([*b_now, *b_was]) if b_was.get(s) != b_now.get(s)]
    u_was, u_now = users(old), users(new)
    user_rows = [{"stage": s, "old": u_was.get(s, []), "new": u_now.get(s, [])}
                 for s in dict.fromkeys([*u_now, *u_was]) if u_was.get(s, []) != u_now.get(s, [])]
    s_was, s_now = steps(old), steps(new)
    step_rows = []
    for stage in dict.fromkeys([*s_now, *s_was]):
        before, after = s_was.get(stage, []), s_now.get(stage, [])
        matcher = SequenceMatcher(None, [_step_key(i) for i in before], [_step_key(i) for i in after],
                                  autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            pairs = tag == "replace" and i2 - i1 == j2 - j1   # steps edited in place: show where they differ
            step_rows += [{"stage": stage, "change": "removed", "line": i.start_line,
                           "step": _step(i, after[j1 + n] if pairs else None)} for n, i in enumerate(before[i1:i2])]
            step_rows += [{"stage": stage, "change": "added", "line": i.start_line,
                           "step": _step(i, before[i1 + n] if pairs else None)} for n, i in enumerate(after[j1:j2])]
    warm_was = list(dict.fromkeys(e for w in old.warm_syncs for e in w.extras))
    warm_now = list(dict.fromkeys(e for w in new.warm_syncs for e in w.extras))
    return {"args": arg_rows, "bases": base_rows, "users": user_rows, "steps": step_rows,
            "warmed": _added_removed(warm_was, warm_now)}


# ------------------------------------------------------------------------------------------------ comparing

def compare(old: Side, new: Side, dockerfile: "DockerfileFacts", dockerfile_label: str | None = None, *,
            old_dockerfile: "DockerfileFacts | None" = None, old_dockerfile_label: str | None = None) -> dict:
    """The whole report, JSON-able, lists in a stable order (registry order, then names). NEW is judged
    against `dockerfile`; OLD against `old_dockerfile` when given (each commit of the image's history with
    its own Dockerfile), else against the same one. `image` lists what changed between the two Dockerfiles
    (nothing when they are one)."""
    old_dockerfile = old_dockerfile or dockerfile
    old_image, new_image = _image(old_dockerfile, old), _image(dockerfile, new)
    moved = _moved_keys(old.snapshot, new.snapshot)
    actors = _actors(old, new, old_image, new_image)
    report: dict[str, Any] = {
        "old": _describe(old),
        "new": _describe(new),
        "dockerfile": {"path": dockerfile_label or dockerfile.path,
                       "filters": [f for c in dockerfile.prefetch_calls for f in c.filters],
                       "negative_filters": [n for c in dockerfile.prefetch_calls for n in c.negative_filters],
                       "old_path": old_dockerfile_label or old_dockerfile.path,
                       "problems": {"old": old_image.error, "new": new_image.error}},
        "image": image_changes(old_dockerfile, dockerfile),
        "extras": _added_removed(list(old.snapshot.extras), list(new.snapshot.extras)),
        "actors": actors,
        "filters": _filters(dockerfile, old, new, old_image, new_image, old_dockerfile),
        "venvs": _venvs(old_image, new_image),
        "source_builds": _source_builds(old, new, old_image, new_image, moved),
        "packages": _packages(old, new, old_image, new_image, moved),
        "shared_builds": _shared(old_image, new_image),
        "conflicts": _conflicts(old, new),
        "key_versions": _key_versions(old, new),
    }
    report["filters"] += _dropped_filters(old_dockerfile, dockerfile, old_image)
    report["package_changes"] = _package_changes(report["packages"], old_image, new_image)
    report["summary"] = _summary(report)
    return report


def _describe(side: Side) -> dict:
    prov = side.data.get("provenance") or {}
    return {"label": side.label, "kind": side.kind, "repo": prov.get("repo"), "ref": prov.get("ref"),
            "commit": prov.get("commit"), "actors": len(side.snapshot.registry.entries),
            "packages": len(side.snapshot.packages)}


def _added_removed(old: list[str], new: list[str]) -> dict:
    return {"added": [x for x in new if x not in old], "removed": [x for x in old if x not in new]}


def _module(fqn: str) -> str:
    return fqn.rsplit(".", 1)[0]


def _actor_facts(side: Side) -> dict[str, dict]:
    return {a.fqn: {"extras": list(a.extras), "system": a.is_system, "command": a.command}
            for a in actors_from_registry(side.snapshot.registry, system_flag=False)}


def _prefetched_by(image: _Image, fqn: str) -> list[str]:
    return [f for f, actors in image.filter_actors.items() if fqn in actors]


def _actors(old: Side, new: Side, old_image: _Image, new_image: _Image) -> dict:
    before, after = _actor_facts(old), _actor_facts(new)
    gone = [fqn for fqn in before if fqn not in after]
    came = [fqn for fqn in after if fqn not in before]

    # A rename is a removed and an added actor that keep the class name (the module moved) or the module
    # (the class was renamed); pairs are made one to one, class-name matches first, in registry order.
    renamed = []
    for how, key in (("moved module", class_name_of), ("renamed class", _module)):
        for fqn in list(gone):
            match = next((c for c in came if key(c) == key(fqn)), None)
            if match is not None:
                gone.remove(fqn)
                came.remove(match)
                renamed.append({"old": fqn, "new": match, "how": how,
                                "old_extras": before[fqn]["extras"], "new_extras": after[match]["extras"],
                                "old_prefetched_by": _prefetched_by(old_image, fqn),
                                "new_prefetched_by": _prefetched_by(new_image, match),
                                "system": after[match]["system"]})

    def entry(fqn: str, facts: dict, image: _Image) -> dict:
        return {"actor": fqn, "extras": facts["extras"], "system": facts["system"],
                "prefetched_by": _prefetched_by(image, fqn)}

    changed = [{"actor": fqn, "old_command": before[fqn]["command"], "new_command": after[fqn]["command"],
                "old_extras": before[fqn]["extras"], "new_extras": after[fqn]["extras"],
                "old_prefetched_by": _prefetched_by(old_image, fqn),
                "new_prefetched_by": _prefetched_by(new_image, fqn)}
               for fqn in after if fqn in before and before[fqn]["command"] != after[fqn]["command"]]
    return {"added": [entry(f, after[f], new_image) for f in came],
            "removed": [entry(f, before[f], old_image) for f in gone],
            "renamed": renamed, "changed": changed}


def _filters(dockerfile: "DockerfileFacts", old: Side, new: Side, old_image: _Image, new_image: _Image,
             old_dockerfile: "DockerfileFacts") -> list:
    """Each prefetch filter of NEW's Dockerfile against both sides. `status`: `ok` (same venvs), `changed`
    (still selects something, but not the same actors), `no-match` (selects nothing in NEW: the filter went
    stale), `added` (OLD's Dockerfile has no such filter)."""
    out = []
    before = {text for text, _ in filter_lines(old_dockerfile.prefetch_calls)}
    for text, line in filter_lines(dockerfile.prefetch_calls):
        was, now = list(old_image.filter_actors.get(text, ())), list(new_image.filter_actors.get(text, ()))
        status = "no-match" if not now else ("ok" if was == now else "added" if text not in before else "changed")
        # an actor the filter names that runs on the system interpreter gets no venv: say so
        system = [e.actor for e in new.snapshot.registry.entries if text in e.actor and e.command == SYSTEM_COMMAND]
        out.append({"filter": text, "line": line, "status": status, "old_actors": was, "new_actors": now,
                    "new_system_matches": system})
    for text, line in ((n, c.line) for c in dockerfile.prefetch_calls for n in c.negative_filters):
        was = [e.actor for e in old.snapshot.registry.entries if text in e.actor]
        now = [e.actor for e in new.snapshot.registry.entries if text in e.actor]
        out.append({"filter": f"!{text}", "line": line, "status": "no-match" if not now else
                    ("ok" if was == now else "changed"), "old_actors": was, "new_actors": now,
                    "new_system_matches": []})
    return out


def _dropped_filters(old_dockerfile: "DockerfileFacts", dockerfile: "DockerfileFacts", old_image: _Image) -> list:
    """The prefetch filters OLD's Dockerfile has and NEW's no longer has (status `dropped`)."""
    kept = {text for text, _ in filter_lines(dockerfile.prefetch_calls)}
    return [{"filter": text, "line": line, "status": "dropped", "old_actors": list(old_image.filter_actors.get(text, ())),
             "new_actors": [], "new_system_matches": []}
            for text, line in filter_lines(old_dockerfile.prefetch_calls) if text not in kept]


def _venvs(old_image: _Image, new_image: _Image) -> dict:
    def row(image: _Image, fqn: str) -> dict:
        return {"actor": fqn, "extras": list(image.venvs[fqn]), "path": venv_path(image.venv_dir, fqn)}

    return {"old_count": len(old_image.venvs), "new_count": len(new_image.venvs),
            "added": [row(new_image, f) for f in new_image.venvs if f not in old_image.venvs],
            "removed": [row(old_image, f) for f in old_image.venvs if f not in new_image.venvs]}


def package_id(pkg: "SnapshotPackage") -> tuple[str, str | None, str]:
    """(name, version, source): how the diff tells packages apart. Two Transformer-Engine versions, or one
    version from two git commits, are two packages; the lock's member key alone may name them alike."""
    return (pkg.name, pkg.version, pkg.source)


def is_source_build(pkg: "SnapshotPackage") -> bool:
    """What the image builds or fetches outside any index: git, directory and editable sources, a path or URL
    that holds source, a registry package with an sdist and no wheel (the lock's `source_built`), and a
    wheel from a URL or a path (a wheel someone built, usually with a local version tag such as
    `+cu13torch2.10`). A wheel from an index, local tag or not (`torch 2.11.0+cu130`), is none of these."""
    return pkg.source_built or pkg.source_kind in ("git", "url", "path", "directory", "editable")


def _venv_sets(old_image: _Image, new_image: _Image) -> dict[str, dict[str, list[str]]]:
    """Install set (combo key) -> the venvs using it on each side; venvs with the same extras share one."""
    groups: dict[str, dict[str, list[str]]] = {}
    for image, which in ((old_image, "old"), (new_image, "new")):
        for fqn, extras in image.venvs.items():
            groups.setdefault(combo_key(extras), {"old": [], "new": []})[which].append(fqn)
    return dict(sorted(groups.items()))


def _members(snapshot: "Snapshot", key: str) -> frozenset[str] | None:
    """The install set's member keys (None when the snapshot has no such set), kept once per snapshot."""
    def compute():
        members = snapshot.install_sets.get(key)
        return None if members is None else frozenset(members)
    return _MEMO.answer(snapshot, ("members", key), compute)


def _build_keys(snapshot: "Snapshot") -> frozenset[str]:
    """The member keys of every source build of the lock (is_source_build)."""
    return _MEMO.answer(snapshot, "build_keys", lambda: frozenset(
        k for k, p in snapshot.packages.items() if is_source_build(p)))


_MEMO = Memo()   # the two snapshots of a diff


def _moved_keys(old: "Snapshot", new: "Snapshot") -> frozenset[str]:
    """Member keys both locks hold for packages of another source: a key is name==version, suffixed with
    the source only when the lock holds that version twice, so a new git commit behind an unchanged
    version keeps its key. Such a member is compared by package_id, not by key."""
    before, after = old.packages, new.packages
    return frozenset(k for k in before.keys() & after.keys() if before[k].source != after[k].source)


def _set_change(old: "Snapshot", new: "Snapshot", key: str, moved: frozenset[str], only: bool = False):
    """(OLD's set, NEW's set, package_ids gone, package_ids come) for one install set; `only`: source builds.
    The sets are compared by key (C-speed set operations); only what differs becomes a package_id."""
    before, after = _members(old, key), _members(new, key)
    b, a = before or frozenset(), after or frozenset()
    if only:
        b, a = b & _build_keys(old), a & _build_keys(new)
    both = b & a & moved
    gone = [old.packages[k] for k in (b - a) | both]
    came = [new.packages[k] for k in (a - b) | both]
    return before, after, list(map(package_id, gone)), list(map(package_id, came))


def _by_name(ids) -> dict[str, list[tuple[str | None, str]]]:
    out: dict[str, list[tuple[str | None, str]]] = {}
    for name, version, source in ids:
        out.setdefault(name, []).append((version, source))
    return out


def _version_text(entries: list[tuple[str | None, str]]) -> str:
    return ", ".join(sorted(v or "(no version)" for v, _ in entries))


def _short_source(source: str) -> str:
    """A git source by its commit, a URL by its file name; registries by their kind only."""
    kind, _, rest = source.partition("+")
    if "#" in rest:
        return f"{kind} {rest.rsplit('#', 1)[1][:12]}"
    if kind in ("url", "path", "directory", "editable"):
        return f"{kind} {rest.rsplit('/', 1)[-1]}"
    return kind


def _build_source(source: str) -> str:
    """_short_source, where a registry package built from source reads as the sdist it is."""
    short = _short_source(source)
    return "sdist" if short == "registry" else short


def _same_but_index(gone: list[tuple[str | None, str]], came: list[tuple[str | None, str]]) -> bool:
    """The same versions from sources that differ only where a reviewer cannot see it: another index (every
    registry reads `registry`), or a git URL spelled otherwise at the same commit."""
    return (sorted((v or "", _short_source(s)) for v, s in gone)
            == sorted((v or "", _short_source(s)) for v, s in came))


def _packages(old: Side, new: Side, old_image: _Image, new_image: _Image, moved: frozenset[str]) -> list:
    """Per install set of a prefetched venv (venvs with the same extras share one set): the packages added,
    removed and re-versioned (a changed version, or the same version from another git commit, URL or path;
    not the same version from another index)."""
    out = []
    for key, venvs in _venv_sets(old_image, new_image).items():
        before, after, gone, came = _set_change(old.snapshot, new.snapshot, key, moved)
        row: dict[str, Any] = {"extras": key or "(base)", "old_venvs": venvs["old"], "new_venvs": venvs["new"],
               "old_missing": before is None, "new_missing": after is None,
               "added": [], "removed": [], "changed": []}
        was, now = _by_name(gone), _by_name(came)
        for name in sorted(set(was) | set(now)):
            gone, came = was.get(name), now.get(name)
            if gone is None:
                row["added"].append({"name": name, "version": _version_text(now[name])})
            elif came is None:
                row["removed"].append({"name": name, "version": _version_text(gone)})
            elif not _same_but_index(gone, came):
                change = {"name": name, "old": _version_text(gone), "new": _version_text(came)}
                if change["old"] == change["new"]:   # same version string, another git commit or URL
                    change["old"] = f"{change['old']} ({', '.join(_short_source(s) for _, s in sorted(gone))})"
                    change["new"] = f"{change['new']} ({', '.join(_short_source(s) for _, s in sorted(came))})"
                row["changed"].append(change)
        out.append(row)
    return out


def _venvs_of(sets: list[str], venv_sets: dict[str, dict[str, list[str]]]) -> list[str]:
    """The venvs (NEW's first, then those only OLD has) using any of `sets`, in set order."""
    out: dict[str, None] = {}
    for key in sets:
        out.update(dict.fromkeys([*venv_sets[key]["new"], *venv_sets[key]["old"]]))
    return list(out)


def _merged(lines: dict[tuple, list[str]], entry, venv_sets: dict[str, dict[str, list[str]]]) -> list[dict]:
    """One entry per change, naming every install set and venv it reaches (in the order first seen)."""
    every = set(venv_sets)
    return [{**entry(line), "extras": [k or "(base)" for k in sets], "venvs": _venvs_of(sets, venv_sets),
             "every_venv": set(sets) == every and len(every) > 1}
            for line, sets in lines.items()]


def _package_changes(rows: list, old_image: _Image, new_image: _Image) -> list[dict]:
    """The per-set package changes of `_packages`, each once: a change several install sets share is one
    entry naming them and their venvs."""
    venv_sets = _venv_sets(old_image, new_image)
    lines: dict[tuple, list[str]] = {}
    for row in rows:
        key = "" if row["extras"] == "(base)" else row["extras"]
        for x in row["added"]:
            lines.setdefault(("added", x["name"], x["version"]), []).append(key)
        for x in row["removed"]:
            lines.setdefault(("removed", x["name"], x["version"]), []).append(key)
        for x in row["changed"]:
            lines.setdefault(("changed", x["name"], x["old"], x["new"]), []).append(key)

    def entry(line: tuple) -> dict:
        if line[0] == "changed":
            return {"change": "changed", "name": line[1], "old": line[2], "new": line[3]}
        return {"change": line[0], "name": line[1], "version": line[2]}
    order = {"added": 0, "removed": 1, "changed": 2}
    return sorted(_merged(lines, entry, venv_sets), key=lambda e: (order[e["change"]], e["name"]))


def _source_builds(old: Side, new: Side, old_image: _Image, new_image: _Image,
                   moved: frozenset[str]) -> list[dict]:
    """Per install set of a prefetched venv, the source builds (is_source_build) gained, lost or changed,
    told apart by package_id; each change once, with the venvs it reaches. A name that loses one build and
    gains one in a set is a change (another version, commit or URL); one that gains a second version
    beside the first is a gain."""
    venv_sets = _venv_sets(old_image, new_image)
    lines: dict[tuple, list[str]] = {}
    for key in venv_sets:
        _, _, gone, came = _set_change(old.snapshot, new.snapshot, key, moved, only=True)
        lost, gained = _by_name(gone), _by_name(came)
        for name in sorted(set(lost) | set(gained)):
            was, now = sorted(lost.get(name, []), key=str), sorted(gained.get(name, []), key=str)
            if len(was) == 1 and len(now) == 1:
                if not _same_but_index(was, now):
                    lines.setdefault(("changed", name, was[0], now[0]), []).append(key)
                continue
            for built in was:
                lines.setdefault(("lost", name, built), []).append(key)
            for built in now:
                lines.setdefault(("gained", name, built), []).append(key)

    def build(version: str | None, source: str) -> dict:
        return {"version": version or "(no version)", "source": _build_source(source)}

    def entry(line: tuple) -> dict:
        if line[0] == "changed":
            return {"change": "changed", "name": line[1], "old": build(*line[2]), "new": build(*line[3])}
        return {"change": line[0], "name": line[1], **build(*line[2])}
    order = {"gained": 0, "lost": 1, "changed": 2}
    return sorted(_merged(lines, entry, venv_sets),
                  key=lambda e: (order[e["change"]], e["name"], e.get("version") or e["old"]["version"]))


def _conflicts(old: Side, new: Side) -> dict:
    """The lock's conflict groups ([tool.uv] conflicts): how many on each side, and which appear or go.
    A group is the set of its items, so reordering one changes nothing."""
    def groups(snapshot: "Snapshot") -> dict[frozenset, str]:
        out: dict[frozenset, str] = {}
        for group in snapshot.conflicts:
            items = [f"{package or snapshot.project_name}[{extra}]" for package, extra in group]
            out.setdefault(frozenset(items), " / ".join(items))
        return out

    before, after = groups(old.snapshot), groups(new.snapshot)
    return {"old_count": len(old.snapshot.conflicts), "new_count": len(new.snapshot.conflicts),
            "added": [label for g, label in after.items() if g not in before],
            "removed": [label for g, label in before.items() if g not in after]}


def _shared(old_image: _Image, new_image: _Image) -> dict:
    """Source builds made once and reused by several warmed extras: per package, gained, lost or changed
    (another version or source, or shared by other extras)."""
    def by_package(image: _Image) -> dict[str, list[tuple[str, str, tuple[str, ...]]]]:
        out: dict[str, list] = {}
        for package, version, source, extras in image.shared:
            out.setdefault(package, []).append((version or "(no version)", source, tuple(extras)))
        return out

    before, after = by_package(old_image), by_package(new_image)

    def rows(entries):
        return [{"version": v, "source": _short_source(src), "extras": list(e)} for v, src, e in sorted(entries)]

    result: dict[str, list] = {"gained": [], "lost": [], "changed": []}
    for package in sorted(set(before) | set(after)):
        was, now = before.get(package), after.get(package)
        if was is None:
            result["gained"].append({"package": package, "new": rows(now)})
        elif now is None:
            result["lost"].append({"package": package, "old": rows(was)})
        elif sorted(was) != sorted(now):
            result["changed"].append({"package": package, "old": rows(was), "new": rows(now)})
    return result


def _versions_of(snapshot: "Snapshot") -> dict[str, list[dict]]:
    """Per key package, each version the base venv or a single extra installs, with where (sorted)."""
    prefixes = tuple(f"{name}==" for name in KEY_PACKAGES)   # how members start; the name is checked below
    where: dict[str, dict[str, set[str]]] = {name: {} for name in KEY_PACKAGES}
    for key in ["", *sorted(combo_key([e]) for e in snapshot.extras)]:
        for member in snapshot.install_sets.get(key, ()):
            if member.startswith(prefixes):
                pkg = snapshot.packages[member]
                if pkg.name in where:
                    where[pkg.name].setdefault(pkg.version or "(no version)", set()).add(key or "(base)")
    return {name: [{"version": v, "in": sorted(w)} for v, w in sorted(found.items())]
            for name, found in where.items()}


def _key_versions(old: Side, new: Side) -> list:
    out = []
    before, after = _versions_of(old.snapshot), _versions_of(new.snapshot)
    for name in KEY_PACKAGES:
        was, now = before[name], after[name]
        out.append({"name": name, "old": was, "new": now,
                    "changed": [v["version"] for v in was] != [v["version"] for v in now]})
    py = {}
    for which, side in (("old", old), ("new", new)):
        project = side.data.get("project") or {}
        prov = side.data.get("provenance") or {}
        py[which] = {"requires_python": project.get("requires_python"), "platform": prov.get("platform")}
    out.append({"name": "python", "old": py["old"], "new": py["new"], "changed": py["old"] != py["new"]})
    return out


def _summary(report: dict) -> dict:
    a = report["actors"]
    return {
        "actors_added": len(a["added"]), "actors_removed": len(a["removed"]),
        "actors_renamed": len(a["renamed"]), "actors_changed": len(a["changed"]),
        "filters_stale": sum(f["status"] == "no-match" for f in report["filters"]),
        "filters_changed": sum(f["status"] == "changed" for f in report["filters"]),
        "venvs_added": len(report["venvs"]["added"]), "venvs_removed": len(report["venvs"]["removed"]),
        "source_builds_gained": sum(b["change"] == "gained" for b in report["source_builds"]),
        "source_builds_lost": sum(b["change"] == "lost" for b in report["source_builds"]),
        "source_builds_changed": sum(b["change"] == "changed" for b in report["source_builds"]),
        # each change once, however many venvs it reaches (report["package_changes"])
        "packages_added": sum(p["change"] == "added" for p in report["package_changes"]),
        "packages_removed": sum(p["change"] == "removed" for p in report["package_changes"]),
        "packages_changed": sum(p["change"] == "changed" for p in report["package_changes"]),
        "shared_builds_gained": len(report["shared_builds"]["gained"]),
        "shared_builds_lost": len(report["shared_builds"]["lost"]),
        "shared_builds_changed": len(report["shared_builds"]["changed"]),
        "conflict_groups_added": len(report["conflicts"]["added"]),
        "conflict_groups_removed": len(report["conflicts"]["removed"]),
        "key_versions_changed": [k["name"] for k in report["key_versions"] if k["changed"]],
        "dockerfile_changed": any(report["image"][k] for k in ("args", "bases", "users", "steps"))
                              or any(report["image"]["warmed"].values()),
    }
