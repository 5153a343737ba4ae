"""Building the image model: `build_model` derives an `ImageModel` from the Dockerfile facts and the
NeMo-RL snapshot, applying NeMo-RL's prefetch rules to the registry; `load_model` reads both inputs from
their paths first (the one function here that opens a file).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from docgen.errors import InputError
from docgen.inputs.dockerfile import read_dockerfile
from docgen.model import (
    DEFAULT_GYM_VENV_DIR, DEFAULT_VENV_DIR, REASON_NO_PREFETCH, REASON_NOT_SELECTED, SYSTEM_COMMAND, Actor,
    DriverInstall, GymVenvs, ImageModel, PrefetchFilter, PrefetchOutcome, SharedBuild, SkippedActor, WarmStep,
    WorkerVenv, venv_path,
)
from docgen.model.claims import skip_reason
from docgen.model.stages import driver_venv_of, published
from docgen.names import normalize
from docgen.records import Memo
from docgen.snapshot.load import load_snapshot
from docgen.snapshot.registry import extras_of

if TYPE_CHECKING:
    from collections.abc import Iterable
    from docgen.inputs.dockerfile import DockerfileFacts
    from docgen.inputs.quoted import QuotedFile
    from docgen.snapshot.load import Snapshot


_ACTORS = Memo()   # per registry: its actors with and without the system flag (a model and a diff ask again)


def actors_from_registry(registry, *, system_flag: bool) -> tuple[Actor, ...]:
    return _ACTORS.answer(registry, system_flag, lambda: _actors_of(registry, system_flag))


def _actors_of(registry, system_flag: bool) -> tuple[Actor, ...]:
    extras: dict[str, tuple[str, ...]] = {}   # a registry's few commands, each split once (many actors share one)
    out = []
    for e in registry.entries:
        command = e.command_system if system_flag else e.command
        member = e.member
        if system_flag and command != e.command:
            member = "SYSTEM" if command == SYSTEM_COMMAND else None
        if command not in extras:
            extras[command] = extras_of(command)
        out.append(Actor(fqn=e.actor, member=member, command=command, extras=extras[command], source=e.source))
    return tuple(out)


def run_prefetch(actors: Iterable[Actor], filters: Iterable[str], negative: Iterable[str],
                 venv_dir: str) -> PrefetchOutcome:
    """NeMo-RL's prefetch semantics: case-sensitive substring filters on the FQN, OR-ed; negative filters
    after; system-interpreter actors skipped; one venv per selected actor at <venv_dir>/<FQN>."""
    filters = tuple(filters)
    negative = tuple(negative)
    venvs, system, unselected = [], [], []
    for actor in actors:
        hits = tuple(f for f in filters if f in actor.fqn)
        selected = (not filters or hits) and not any(n in actor.fqn for n in negative)
        if not selected:
            if not actor.is_system:
                unselected.append(actor)
            continue
        if actor.is_system:
            system.append(actor)
            continue
        venvs.append(WorkerVenv(actor=actor.fqn, extras=actor.extras,
                                path=venv_path(venv_dir, actor.fqn), filters=hits))
    return PrefetchOutcome(tuple(venvs), tuple(system), tuple(unselected))


def prefetch_line(dockerfile: "DockerfileFacts") -> int | None:
    """Line of the first actor prefetch call (None: the Dockerfile runs none)."""
    return dockerfile.prefetch.line if dockerfile.prefetch is not None else None


def warm_steps_of(dockerfile: "DockerfileFacts") -> tuple[WarmStep, ...]:
    steps = []
    first_prefetch = prefetch_line(dockerfile)
    for sync in dockerfile.warm_syncs:
        if first_prefetch is not None and sync.line > first_prefetch:
            continue  # syncs after the prefetch do not warm anything the prefetch can use
        if sync.extras:
            label = "+".join(sync.extras)
        elif "--all-groups" in sync.flags:
            label = "all-groups"
        else:
            label = "base"
        steps.append(WarmStep(label=label, extras=tuple(sync.extras), flags=tuple(sync.flags),
                              comment=sync.comment, line=sync.line))
    return tuple(steps)


def venv_dir_of(dockerfile: "DockerfileFacts", key: str = "NEMO_RL_VENV_DIR", default: str = DEFAULT_VENV_DIR,
                at=None) -> str:
    """What `key` holds at `at` (the end of the published stage by default); NeMo-RL's default when no line of
    the Dockerfile sets it (a reference left in a value is stated as written, and the lint names it)."""
    value = dockerfile.value(key, at if at is not None else published(dockerfile))
    return value if isinstance(value, str) else default


def gym_venvs_of(dockerfile: "DockerfileFacts") -> tuple[GymVenvs, ...]:
    venv_dir = venv_dir_of(dockerfile, "NEMO_GYM_VENV_DIR", DEFAULT_GYM_VENV_DIR)
    declared = {a.name for a in dockerfile.args}
    out = []
    for call in dockerfile.gym_prefetch:
        arg = next((name for name in call.arg_refs if name in declared), None)
        in_scope = True
        if arg is not None:
            in_scope = dockerfile.origin(arg, call.line) is not None   # a --build-arg reaches the call
            value = dockerfile.value(arg, call.line)
            default = value if isinstance(value, str) else None
            configs = tuple(c for c in re.split(r"[\s,]+", default or "") if c)
        else:
            default, configs = None, tuple(w for w in call.args if not w.startswith("-") and "$" not in w)
        out.append(GymVenvs(venv_dir=venv_dir, script=call.script, arg=arg, default=default, configs=configs,
                            guard=call.guards[-1] if call.guards else None, line=call.line, comment=call.comment,
                            stage=call.stage, arg_in_scope=in_scope))
    return tuple(out)


def driver_installs_of(dockerfile: "DockerfileFacts", driver_venv: str, snapshot: "Snapshot") -> tuple[DriverInstall, ...]:
    """Packages `uv pip install` puts into the driver venv: its --python names the driver venv (or its
    interpreter), or it has no --python and VIRTUAL_ENV is the driver venv. An editable path is named by
    the package the lock keeps at that path (`.` is NeMo-RL itself)."""
    by_path = {p.source.removeprefix("editable+").strip("/"): p.name
               for p in snapshot.packages.values() if p.editable}

    def editable_name(path: str, line: int) -> str:
        rel = path.rstrip("/")
        workdir = dockerfile.workdir(line)[0]
        if isinstance(workdir, str) and workdir != "/":
            workdir = workdir.rstrip("/")
            rel = rel.removeprefix(workdir + "/") if rel != workdir else "."
        rel = rel.removeprefix("./") or "."
        return snapshot.project_name if rel == "." else by_path.get(rel, path)

    venv = driver_venv.rstrip("/")
    targets = {venv, venv + "/bin/python", venv + "/bin/python3"}
    out = []
    for install in dockerfile.pip_installs:
        python = (dockerfile.expand(install.python, install.line, shell=True) if install.python
                  else dockerfile.value("VIRTUAL_ENV", install.line))
        if not isinstance(python, str) or python.rstrip("/") not in targets:
            continue
        for req in install.packages:
            name = editable_name(req.name, install.line) if req.editable else req.name
            out.append(DriverInstall(package=name, pin=req.pin, editable=req.editable, no_deps=install.no_deps,
                                     reason=" ".join(install.reason.split()), line=req.line, spec=req.spec))
    return tuple(out)


def build_model(dockerfile: "DockerfileFacts", snapshot: "Snapshot", quoted: "Iterable[QuotedFile]" = ()) -> ImageModel:
    venv_dir = venv_dir_of(dockerfile)
    steps = warm_steps_of(dockerfile)
    warm_extras: list[str] = []
    for step in steps:
        for extra in step.extras:
            if extra not in warm_extras:
                warm_extras.append(extra)

    defined = {normalize(e): e for e in snapshot.extras}
    for step in steps:
        for extra in step.extras:
            if normalize(extra) not in defined:
                raise InputError(dockerfile.path, step.line,
                                 f"`uv sync --extra {extra}`: NeMo-RL's pyproject.toml defines no extra {extra!r} "
                                 f"(it has {', '.join(snapshot.extras)})")

    actors = actors_from_registry(snapshot.registry, system_flag=False)
    actors_system = actors_from_registry(snapshot.registry, system_flag=True)
    calls = dockerfile.prefetch_calls
    outcome = prefetch_all(actors, calls, venv_dir)
    outcome_system = _union(actors_system, [run_prefetch(actors_system, c.filters, c.negative_filters, venv_dir)
                                            for c in calls])
    uv_actors = [a for a in actors if not a.is_system]

    filters: list[PrefetchFilter] = []
    negative: list[PrefetchFilter] = []
    for call in calls:
        called = run_prefetch(actors, call.filters, call.negative_filters, venv_dir)
        lines = call.filter_lines or (call.line,) * len(call.filters)
        filters += [PrefetchFilter(text=f, line=line,
                                   actors=tuple(v.actor for v in called.venvs if f in v.filters),
                                   extras=tuple(sorted({e for v in called.venvs if f in v.filters for e in v.extras})))
                    for f, line in zip(call.filters, lines)]
        negative += [PrefetchFilter(text=n, line=call.line, negative=True,
                                    actors=tuple(a.fqn for a in uv_actors if n in a.fqn), extras=())
                     for n in call.negative_filters]

    warmed = {normalize(e) for e in warm_extras}
    documented = dict(dockerfile.not_prefetched.actors) if dockerfile.not_prefetched else {}
    not_prefetched = []
    for actor in outcome.unselected:
        missing = tuple(e for e in actor.extras if normalize(e) not in warmed)
        reason = skip_reason(actor.fqn, missing, documented.get(actor.fqn))
        if not calls and reason == REASON_NOT_SELECTED:
            reason = REASON_NO_PREFETCH
        not_prefetched.append(SkippedActor(actor=actor.fqn, extras=actor.extras, reason=reason))

    # A source build is shared in the image only between extras the image actually warms.
    shared = []
    for fact in snapshot.shared_builds:
        extras = tuple(e for e in warm_extras if normalize(e) in {normalize(x) for x in fact.extras})
        if len(extras) > 1:
            pkg = snapshot.packages[fact.key]
            shared.append(SharedBuild(package=pkg.name, version=pkg.version, source_kind=pkg.source_kind,
                                      source=pkg.source, extras=extras))

    return ImageModel(
        dockerfile=dockerfile,
        snapshot=snapshot,
        venv_dir=venv_dir,
        warm_steps=steps,
        warm_extras=tuple(warm_extras),
        actors=actors,
        actors_system=actors_system,
        filters=tuple(filters),
        negative_filters=tuple(negative),
        venvs=outcome.venvs,
        venvs_system=outcome_system.venvs,
        system_actors=tuple(a for a in actors if a.is_system),
        not_prefetched=tuple(not_prefetched),
        shared_builds=tuple(shared),
        extras_defined=tuple(snapshot.extras),
        extras_not_warmed=tuple(e for e in snapshot.extras if normalize(e) not in warmed),
        gym=gym_venvs_of(dockerfile),
        driver_installs=driver_installs_of(dockerfile, driver_venv_of(dockerfile), snapshot),
        quoted=tuple(quoted),
    )


def prefetch_all(actors: Iterable[Actor], calls, venv_dir: str) -> PrefetchOutcome:
    """What the Dockerfile's actor prefetch calls leave together."""
    actors = tuple(actors)
    return _union(actors, [run_prefetch(actors, c.filters, c.negative_filters, venv_dir) for c in calls])


def filter_lines(calls) -> list[tuple[str, int]]:
    """Every positive filter of every call, with the line it is written on."""
    return [(f, line) for c in calls for f, line in zip(c.filters, c.filter_lines or (c.line,) * len(c.filters))]


def _union(actors: Iterable[Actor], outcomes: list[PrefetchOutcome]) -> PrefetchOutcome:
    """What several prefetch calls leave together: a venv per actor any of them selects (registry order)."""
    if len(outcomes) == 1:
        return outcomes[0]
    venvs: dict[str, WorkerVenv] = {}
    system: dict[str, Actor] = {}
    for outcome in outcomes:
        for venv in outcome.venvs:
            seen = venvs.get(venv.actor)
            venvs[venv.actor] = venv if seen is None else seen._replace(filters=seen.filters + venv.filters)
        system.update((a.fqn, a) for a in outcome.system)
    order = [a.fqn for a in actors]
    return PrefetchOutcome(
        venvs=tuple(sorted(venvs.values(), key=lambda v: order.index(v.actor))),
        system=tuple(a for a in actors if a.fqn in system),
        unselected=tuple(a for a in actors if not a.is_system and a.fqn not in venvs),
    )


def load_model(dockerfile: str | Path, snapshot: str | Path) -> ImageModel:
    return build_model(read_dockerfile(dockerfile), load_snapshot(snapshot))
