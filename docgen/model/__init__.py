"""The image model: every fact and count the docs state about nmp-rl-base, derived once.

Pure functions over what the readers return (the Dockerfile facts and the NeMo-RL snapshot); no I/O
except `load_model`, the one convenience that reads both inputs from their paths.
"""

from __future__ import annotations

from pathlib import Path

from docgen.errors import InputError
from docgen.records import Memo, Record

TYPE_CHECKING = False   # typing.TYPE_CHECKING without importing typing (docs/contributing.md, start-up)
if TYPE_CHECKING:  # keep start-up lean: these are only needed for type names
    from collections.abc import Iterable
    from docgen.snapshot.load import Snapshot, SnapshotPackage
    from docgen.inputs.dockerfile import DockerfileFacts

PUBLISHED_STAGE = "nmp-rl-base"
DEFAULT_VENV_DIR = "/opt/ray_venvs"
DEFAULT_GYM_VENV_DIR = "/opt/gym_venvs"
SYSTEM_COMMAND = "sys.executable"

# Why an actor that runs under uv gets no prebuilt venv, when its extras are all warmed and the Dockerfile
# comment does not say: it is simply not selected by any filter and builds on the node at first use.
REASON_SYSTEM = "runs in the driver venv (sys.executable), no venv of its own"
REASON_NOT_SELECTED = "not selected by any filter; builds on the node at first use"
REASON_NO_PREFETCH = "the image runs no actor prefetch; builds on the node at first use"


def class_name_of(fqn: str) -> str:
    """`nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker` -> `MegatronPolicyWorker`."""
    return fqn.rsplit(".", 1)[-1]


def venv_path(venv_dir: str, fqn: str) -> str:
    """NeMo-RL's rule: every uv actor gets its own venv at $NEMO_RL_VENV_DIR/<FQN>, prefetched or not."""
    return f"{venv_dir.rstrip('/')}/{fqn}"


def reason_backend_not_built(extras: Iterable[str]) -> str:
    return "backend not built: " + ", ".join(f"`{e}`" for e in extras) + " not warmed in the image"


class Actor(Record):
    """One entry of ACTOR_ENVIRONMENT_REGISTRY, for one value of NEMO_RL_PY_EXECUTABLES_SYSTEM."""
    fqn: str
    member: str | None          # PY_EXECUTABLES member (None: an inline executable, like modelopt's)
    command: str
    extras: tuple[str, ...]
    source: str

    @property
    def is_system(self) -> bool:
        return self.command == SYSTEM_COMMAND

    @property
    def class_name(self) -> str:
        return class_name_of(self.fqn)

    @property
    def module(self) -> str:
        return self.fqn.rsplit(".", 1)[0]


class WarmStep(Record):
    """One `uv sync` of the warm-up RUN: the base sync, one extra, or --all-groups."""
    label: str
    extras: tuple[str, ...]
    flags: tuple[str, ...]
    comment: str
    line: int


class PrefetchFilter(Record):
    text: str
    actors: tuple[str, ...]     # uv actors whose FQN contains the text (registry order), minus negative matches
    extras: tuple[str, ...]     # the extras those actors run with (sorted union)
    line: int
    negative: bool = False


class WorkerVenv(Record):
    actor: str
    extras: tuple[str, ...]
    path: str
    filters: tuple[str, ...]    # which filters selected it

    @property
    def class_name(self) -> str:
        return class_name_of(self.actor)


class SkippedActor(Record):
    actor: str
    extras: tuple[str, ...]
    reason: str

    @property
    def class_name(self) -> str:
        return class_name_of(self.actor)


class SharedBuild(Record):
    package: str
    version: str | None
    source_kind: str
    source: str
    extras: tuple[str, ...]


class GymVenvs(Record):
    """The second venv layer: NeMo-Gym's prefetch builds one venv per environment server of the configs
    its driving build ARG names, under NEMO_GYM_VENV_DIR. Off (no venvs) while that ARG is empty."""
    venv_dir: str
    script: str
    arg: str | None               # the build ARG the call expands (None: its words are literal)
    default: str | None           # that ARG's default as the Dockerfile sets it (None: no default)
    configs: tuple[str, ...]      # the configs the default names (split at blanks and commas)
    guard: str | None             # the `if` condition around the call
    line: int
    comment: str
    stage: str | None = None
    arg_in_scope: bool = True     # False: the call's stage declares no `ARG <arg>`, so it is always empty there

    @property
    def venvs_by_default(self) -> int | None:
        """0 when the default names no config; otherwise unknown until built (one per server in them)."""
        return 0 if not self.configs else None


class DriverInstall(Record):
    """A package `uv pip install` puts into the driver venv after the syncs."""
    package: str
    pin: str | None
    editable: bool
    no_deps: bool
    reason: str
    line: int
    spec: str


class PrefetchOutcome(Record):
    """What `prefetch_venvs.py <filters>` does with the registry, for one value of the system flag."""
    venvs: tuple[WorkerVenv, ...]
    system: tuple[Actor, ...]            # skipped: they run on the system interpreter
    unselected: tuple[Actor, ...]        # uv actors no filter selects (or a negative filter removed)


_ACTOR_INDEX = Memo()


class ImageModel(Record):
    dockerfile: "DockerfileFacts"
    snapshot: "Snapshot"
    venv_dir: str
    warm_steps: tuple[WarmStep, ...]
    warm_extras: tuple[str, ...]
    actors: tuple[Actor, ...]              # NEMO_RL_PY_EXECUTABLES_SYSTEM unset (the image's default)
    actors_system: tuple[Actor, ...]       # NEMO_RL_PY_EXECUTABLES_SYSTEM=1
    filters: tuple[PrefetchFilter, ...]
    negative_filters: tuple[PrefetchFilter, ...]
    venvs: tuple[WorkerVenv, ...]
    venvs_system: tuple[WorkerVenv, ...]   # what the same filters would give with the flag set
    system_actors: tuple[Actor, ...]
    not_prefetched: tuple[SkippedActor, ...]   # uv actors without a prebuilt venv, with the reason
    shared_builds: tuple[SharedBuild, ...]
    extras_defined: tuple[str, ...]
    extras_not_warmed: tuple[str, ...]
    gym: tuple[GymVenvs, ...] = ()                 # NeMo-Gym's prefetch calls (the second venv layer)
    driver_installs: tuple[DriverInstall, ...] = ()

    # -- lookups -----------------------------------------------------------------------------------
    def actor(self, fqn: str) -> Actor:
        # an index per model (a record holds no cache): lookups stay O(1) with tens of thousands of actors
        return _ACTOR_INDEX.answer(self, "by fqn", lambda: {a.fqn: a for a in self.actors})[fqn]

    def key_packages(self, extra: str) -> tuple["SnapshotPackage", ...]:
        return self.snapshot.key_packages(extra)

    def package_version(self, name: str, extras: Iterable[str] = ()) -> str | None:
        pkg = self.snapshot.package(name, extras)
        return pkg.version if pkg else None

    @property
    def counts(self) -> dict[str, int]:
        return {
            "filters": len(self.filters),
            "venvs": len(self.venvs),
            "warm_extras": len(self.warm_extras),
            "actors": len(self.actors),
            "system_actors": len(self.system_actors),
            "not_prefetched": len(self.not_prefetched),
            "extras": len(self.extras_defined),
            "stages": len(self.dockerfile.stages),
            "shared_builds": len(self.shared_builds),
            "gym_venvs_by_default": self.gym_venvs_by_default,
            "driver_installs": len(self.driver_installs),
        }

    @property
    def gym_venvs_by_default(self) -> int | None:
        """Gym env venvs a default build makes: 0 when every Gym prefetch is off (or absent); None when a
        default names configs (one venv per server in them, known only once built)."""
        counts = [g.venvs_by_default for g in self.gym]
        return None if None in counts else sum(c for c in counts if c is not None)

    def inventory(self) -> dict:
        """The JSON contract of `docgen inventory --json` (other tools and checks rely on these keys)."""
        return {
            "filters": [{"filter": f.text, "actors": list(f.actors), "extras": list(f.extras)} for f in self.filters],
            "negative_filters": [{"filter": f.text, "actors": list(f.actors)} for f in self.negative_filters],
            "venvs": [{"actor": v.actor, "extras": list(v.extras), "path": v.path} for v in self.venvs],
            "warm_extras": list(self.warm_extras),
            "shared_builds": [{"package": s.package, "version": s.version, "extras": list(s.extras)}
                              for s in self.shared_builds],
            "not_prefetched": [{"actor": s.actor, "extras": list(s.extras), "reason": s.reason}
                               for s in self.not_prefetched],
            "system_actors": [a.fqn for a in self.system_actors],
            "counts": self.counts,
            "venv_dir": self.venv_dir,
            "gym_venvs": [{"venv_dir": g.venv_dir, "script": g.script, "arg": g.arg, "default": g.default,
                           "configs": list(g.configs), "venvs_by_default": g.venvs_by_default}
                          for g in self.gym],
            "driver_installs": [{"package": d.package, "pin": d.pin, "editable": d.editable,
                                 "no_deps": d.no_deps, "reason": d.reason} for d in self.driver_installs],
        }


# ------------------------------------------------------------------------------------------ derivations

def actors_from_registry(registry, *, system_flag: bool) -> tuple[Actor, ...]:
    out = []
    for e in registry.entries:
        command = e.command_system if system_flag else e.command
        member = e.member
        if system_flag and command != e.command:
            member = "SYSTEM" if command == SYSTEM_COMMAND else None
        out.append(Actor(fqn=e.actor, member=member, command=command, extras=_extras_of(command), source=e.source))
    return tuple(out)


def _extras_of(command: str) -> tuple[str, ...]:
    from docgen.snapshot.registry import extras_of
    return extras_of(command)


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


def venv_dir_of(dockerfile: "DockerfileFacts", key: str = "NEMO_RL_VENV_DIR", default: str = DEFAULT_VENV_DIR) -> str:
    for stage_name in (PUBLISHED_STAGE, None):
        try:
            envs = dockerfile.envs_of(stage_name) if stage_name else dockerfile.envs
        except (KeyError, InputError):
            continue
        values = {e.key: e.value for e in envs}
        if key in values:
            return values[key]
    return default


def arg_default(dockerfile: "DockerfileFacts", name: str, stage: str | None) -> tuple[str | None, bool]:
    """(the value build ARG `name` has in `stage` when nobody passes --build-arg, whether the stage declares
    it). Docker's scoping: the stage's own default, else the global default a bare `ARG name` in the stage
    brings in; an ARG the stage does not declare is not set there at all (ARGs do not pass to later stages)."""
    in_stage = [a for a in dockerfile.args if a.name == name and a.stage == stage]
    if in_stage and in_stage[-1].default is not None:
        return in_stage[-1].default, True
    globals_ = [a for a in dockerfile.args if a.name == name and a.stage is None and a.default is not None]
    if globals_ and (in_stage or stage is None):
        return globals_[-1].default, True
    return None, bool(in_stage) or stage is None


def gym_venvs_of(dockerfile: "DockerfileFacts") -> tuple[GymVenvs, ...]:
    import re

    venv_dir = venv_dir_of(dockerfile, "NEMO_GYM_VENV_DIR", DEFAULT_GYM_VENV_DIR)
    declared = {a.name for a in dockerfile.args}
    out = []
    for call in dockerfile.gym_prefetch:
        arg = next((name for name in call.arg_refs if name in declared), None)
        in_scope = True
        if arg is not None:
            default, in_scope = arg_default(dockerfile, arg, call.stage)
            configs = tuple(c for c in re.split(r"[\s,]+", default or "") if c)
        else:
            default, configs = None, tuple(w for w in call.args if not w.startswith("-") and "$" not in w)
        out.append(GymVenvs(venv_dir=venv_dir, script=call.script, arg=arg, default=default, configs=configs,
                            guard=call.guards[-1] if call.guards else None, line=call.line, comment=call.comment,
                            stage=call.stage, arg_in_scope=in_scope))
    return tuple(out)


def expand(text: str, values: dict[str, str]) -> str:
    """`${UV_PROJECT_ENVIRONMENT}/bin/python` -> `/opt/nemo_rl_venv/bin/python`; unknown names stay."""
    import re

    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: values.get(m.group(1) or m.group(2), m.group(0)), text)


def driver_installs_of(dockerfile: "DockerfileFacts", driver_venv: str, snapshot: "Snapshot") -> tuple[DriverInstall, ...]:
    """Packages `uv pip install` puts into the driver venv: its --python names the driver venv (or its
    interpreter), or it has no --python and VIRTUAL_ENV is the driver venv. An editable path is named by
    the package the lock keeps at that path (`.` is NeMo-RL itself)."""
    workdirs = [ins.args.strip().rstrip("/") for ins in dockerfile.instructions if ins.keyword == "WORKDIR"]
    by_path = {p.source.removeprefix("editable+").strip("/"): p.name
               for p in snapshot.packages.values() if p.editable}

    def editable_name(path: str) -> str:
        rel = path.rstrip("/")
        for workdir in workdirs:
            rel = rel.removeprefix(workdir + "/") if rel != workdir else "."
        rel = rel.removeprefix("./") or "."
        return snapshot.project_name if rel == "." else by_path.get(rel, path)

    venv = driver_venv.rstrip("/")
    targets = {venv, venv + "/bin/python", venv + "/bin/python3"}
    out = []
    for install in dockerfile.pip_installs:
        try:
            envs = {e.key: e.value for e in dockerfile.envs_of(install.stage)} if install.stage else {}
        except KeyError:
            envs = {}
        values = {a.name: a.default for a in dockerfile.args if a.default is not None} | envs
        python = expand(install.python, values) if install.python else envs.get("VIRTUAL_ENV")
        if python is None or python.rstrip("/") not in targets:
            continue
        for req in install.packages:
            name = editable_name(req.name) if req.editable else req.name
            out.append(DriverInstall(package=name, pin=req.pin, editable=req.editable, no_deps=install.no_deps,
                                     reason=" ".join(install.reason.split()), line=req.line, spec=req.spec))
    return tuple(out)


def driver_venv_of(dockerfile: "DockerfileFacts") -> str:
    """The driver's venv: UV_PROJECT_ENVIRONMENT where the image sets it, else uv's `<WORKDIR>/.venv`."""
    for stage in (PUBLISHED_STAGE, dockerfile.stages[-1].name if dockerfile.stages else None):
        try:
            envs = {e.key: e.value for e in dockerfile.envs_of(stage)} if stage else {}
        except KeyError:
            continue
        if envs.get("UV_PROJECT_ENVIRONMENT"):
            return envs["UV_PROJECT_ENVIRONMENT"]
    workdirs = [ins.args.strip() for ins in dockerfile.instructions if ins.keyword == "WORKDIR"]
    return f"{(workdirs[-1] if workdirs else '/opt/nemo-rl').rstrip('/')}/.venv"


def build_model(dockerfile: "DockerfileFacts", snapshot: "Snapshot") -> ImageModel:
    from docgen.model.claims import skip_reason
    from docgen.names import normalize

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

    filters, negative = [], []
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
    filters, negative = tuple(filters), tuple(negative)

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
        filters=filters,
        negative_filters=negative,
        venvs=outcome.venvs,
        venvs_system=outcome_system.venvs,
        system_actors=tuple(a for a in actors if a.is_system),
        not_prefetched=tuple(not_prefetched),
        shared_builds=tuple(shared),
        extras_defined=tuple(snapshot.extras),
        extras_not_warmed=tuple(e for e in snapshot.extras if normalize(e) not in warmed),
        gym=gym_venvs_of(dockerfile),
        driver_installs=driver_installs_of(dockerfile, driver_venv_of(dockerfile), snapshot),
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
    from docgen.snapshot.load import load_snapshot
    from docgen.inputs.dockerfile import read_dockerfile

    return build_model(read_dockerfile(dockerfile), load_snapshot(snapshot))
