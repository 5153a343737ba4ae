"""The image model: every fact and count the docs state about nmp-rl-base, derived once.

Pure functions over what the readers return (the Dockerfile facts and the NeMo-RL snapshot); no I/O
except `load_model`, the one convenience that reads both inputs from their paths.
"""


from typing import NamedTuple
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from docgen.errors import InputError

if TYPE_CHECKING:  # keep start-up lean: these are only needed for type names
    from docgen.snapshot.load import Snapshot, SnapshotPackage
    from docgen.inputs.dockerfile import DockerfileFacts

PUBLISHED_STAGE = "nmp-rl-base"
DEFAULT_VENV_DIR = "/opt/ray_venvs"
SYSTEM_COMMAND = "sys.executable"

# Why an actor that runs under uv gets no prebuilt venv, when its extras are all warmed and the Dockerfile
# comment does not say: it is simply not selected by any filter and builds on the node at first use.
REASON_SYSTEM = "system interpreter (no venv)"
REASON_NOT_SELECTED = "not selected by any filter; builds on the node at first use"


def class_name_of(fqn: str) -> str:
    """`nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker` -> `MegatronPolicyWorker`."""
    return fqn.rsplit(".", 1)[-1]


def venv_path(venv_dir: str, fqn: str) -> str:
    """NeMo-RL's rule: every uv actor gets its own venv at $NEMO_RL_VENV_DIR/<FQN>, prefetched or not."""
    return f"{venv_dir.rstrip('/')}/{fqn}"


def reason_backend_not_built(extras: Iterable[str]) -> str:
    return "backend not built: " + ", ".join(f"`{e}`" for e in extras) + " not warmed in the image"


class Actor(NamedTuple):
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


class WarmStep(NamedTuple):
    """One `uv sync` of the warm-up RUN: the base sync, one extra, or --all-groups."""
    label: str
    extras: tuple[str, ...]
    flags: tuple[str, ...]
    comment: str
    line: int


class PrefetchFilter(NamedTuple):
    text: str
    actors: tuple[str, ...]     # uv actors whose FQN contains the text (registry order), minus negative matches
    extras: tuple[str, ...]     # the extras those actors run with (sorted union)
    line: int
    negative: bool = False


class WorkerVenv(NamedTuple):
    actor: str
    extras: tuple[str, ...]
    path: str
    filters: tuple[str, ...]    # which filters selected it

    @property
    def class_name(self) -> str:
        return class_name_of(self.actor)


class SkippedActor(NamedTuple):
    actor: str
    extras: tuple[str, ...]
    reason: str

    @property
    def class_name(self) -> str:
        return class_name_of(self.actor)


class SharedBuild(NamedTuple):
    package: str
    version: str | None
    source_kind: str
    source: str
    extras: tuple[str, ...]


class PrefetchOutcome(NamedTuple):
    """What `prefetch_venvs.py <filters>` does with the registry, for one value of the system flag."""
    venvs: tuple[WorkerVenv, ...]
    system: tuple[Actor, ...]            # skipped: they run on the system interpreter
    unselected: tuple[Actor, ...]        # uv actors no filter selects (or a negative filter removed)


_ACTOR_INDEX: dict[int, tuple] = {}


class ImageModel(NamedTuple):
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

    # -- lookups -----------------------------------------------------------------------------------
    def actor(self, fqn: str) -> Actor:
        # an index per model (a NamedTuple holds no cache): lookups stay O(1) with tens of thousands of actors
        index = _ACTOR_INDEX.get(id(self))
        if index is None or index[0] is not self.actors:
            index = _ACTOR_INDEX[id(self)] = (self.actors, {a.fqn: a for a in self.actors})
        return index[1][fqn]

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
        }

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


def warm_steps_of(dockerfile: "DockerfileFacts") -> tuple[WarmStep, ...]:
    steps = []
    prefetch_line = dockerfile.prefetch.line
    for sync in dockerfile.warm_syncs:
        if sync.line > prefetch_line:
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


def venv_dir_of(dockerfile: "DockerfileFacts") -> str:
    for stage_name in (PUBLISHED_STAGE, None):
        try:
            envs = dockerfile.envs_of(stage_name) if stage_name else dockerfile.envs
        except (KeyError, InputError):
            continue
        values = {e.key: e.value for e in envs}
        if "NEMO_RL_VENV_DIR" in values:
            return values["NEMO_RL_VENV_DIR"]
    return DEFAULT_VENV_DIR


def build_model(dockerfile: "DockerfileFacts", snapshot: "Snapshot") -> ImageModel:
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
    pf = dockerfile.prefetch
    outcome = run_prefetch(actors, pf.filters, pf.negative_filters, venv_dir)
    outcome_system = run_prefetch(actors_system, pf.filters, pf.negative_filters, venv_dir)
    uv_actors = [a for a in actors if not a.is_system]

    lines = pf.filter_lines or (pf.line,) * len(pf.filters)
    filters = tuple(
        PrefetchFilter(text=f, line=line,
                       actors=tuple(v.actor for v in outcome.venvs if f in v.filters),
                       extras=tuple(sorted({e for v in outcome.venvs if f in v.filters for e in v.extras})))
        for f, line in zip(pf.filters, lines))
    negative = tuple(
        PrefetchFilter(text=n, line=pf.line, negative=True,
                       actors=tuple(a.fqn for a in uv_actors if n in a.fqn), extras=())
        for n in pf.negative_filters)

    warmed = {normalize(e) for e in warm_extras}
    documented = dict(dockerfile.not_prefetched.actors) if dockerfile.not_prefetched else {}
    not_prefetched = []
    for actor in outcome.unselected:
        missing = tuple(e for e in actor.extras if normalize(e) not in warmed)
        if missing:
            reason = reason_backend_not_built(missing)
        else:
            reason = documented.get(actor.fqn) or REASON_NOT_SELECTED
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
    )


def load_model(dockerfile: str | Path, snapshot: str | Path) -> ImageModel:
    from docgen.snapshot.load import load_snapshot
    from docgen.inputs.dockerfile import read_dockerfile

    return build_model(read_dockerfile(dockerfile), load_snapshot(snapshot))
