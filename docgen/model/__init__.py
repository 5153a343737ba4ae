"""The image model's record types: every fact and count the docs state about nmp-rl-base, as
`ImageModel` holds them, with the small naming rules the records share.

`docgen.model.build` derives an `ImageModel` from what the readers return (the Dockerfile facts and the
NeMo-RL snapshot); `stages`, `claims` and `digests` answer questions of a built model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from docgen.records import Memo
from docgen.snapshot.registry import SYSTEM_COMMAND

if TYPE_CHECKING:  # keep start-up lean: these are only needed for type names
    from collections.abc import Iterable
    from docgen.inputs.quoted import QuotedFile
    from docgen.snapshot.load import Snapshot, SnapshotPackage
    from docgen.inputs.dockerfile import DockerfileFacts

DEFAULT_VENV_DIR = "/opt/ray_venvs"
DEFAULT_GYM_VENV_DIR = "/opt/gym_venvs"

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


class GymVenvs(NamedTuple):
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


class DriverInstall(NamedTuple):
    """A package `uv pip install` puts into the driver venv after the syncs."""
    package: str
    pin: str | None
    editable: bool
    no_deps: bool
    reason: str
    line: int
    spec: str


class PrefetchOutcome(NamedTuple):
    """What `prefetch_venvs.py <filters>` does with the registry, for one value of the system flag."""
    venvs: tuple[WorkerVenv, ...]
    system: tuple[Actor, ...]            # skipped: they run on the system interpreter
    unselected: tuple[Actor, ...]        # uv actors no filter selects (or a negative filter removed)


_ACTOR_INDEX = Memo()


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
    gym: tuple[GymVenvs, ...] = ()                 # NeMo-Gym's prefetch calls (the second venv layer)
    driver_installs: tuple[DriverInstall, ...] = ()
    quoted: tuple["QuotedFile", ...] = ()          # other files of the repository whose values the pages quote

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
    def counts(self) -> dict[str, int | None]:
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
