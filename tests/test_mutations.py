"""Change one input in a copy of the repository, as a reviewer would, and hold docgen to three promises:

1. `docgen check` exits 1 and names the fact that moved;
2. after `docgen write`, no page states the old fact anywhere (the rendered Markdown is searched for it);
3. `check` is then clean, or still names only the input that is inconsistent (a Dockerfile comment that
   contradicts the registry, a hand-written sentence); an image-size record measured from other inputs is
   a note on the size page, not a finding.

Each mutation runs docgen in-process on its own tmp copy (pyproject.toml, the Dockerfile, snapshot/,
README.md, docs/: what docgen reads), so the cases are independent and parallel-safe.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import shutil
from pathlib import Path
from typing import Callable, NamedTuple

import pytest

from docgen.cli import main

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = "Dockerfile.nmp-rl-base"
SNAPSHOT = "snapshot/nemo-rl.json"
FACTS_RECORD = "docs/.docgen-facts.json"
MEGATRON = "nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker"
# What `check` may still report after `write`, whatever the mutation: nothing (a measured image built from
# the old inputs is a note on the size page, not a finding).
ALWAYS_ALLOWED: set[str] = set()
_IMAGE_SIZE_BLOCK = re.compile(r"<!-- docgen:begin image-size -->.*?<!-- docgen:end image-size[^>]*-->", re.S)
_FINDING = re.compile(r"^\S+?: \[([\w-]+)\] ", re.M)


# What docgen reads of this repository: its configuration, the Dockerfile, the snapshot, the pages and the files
# the configuration names as quoted ([tool.docgen] quoted).
REPO_INPUTS = ("pyproject.toml", DOCKERFILE, "docker-bake.hcl", "scripts", "snapshot", "README.md", "docs")


class Mutation(NamedTuple):
    name: str
    apply: Callable[[Path], None]
    names: tuple[str, ...]          # what the first `check` must say (all of them)
    gone: tuple[str, ...] = ()      # old facts no page may state after `write`
    still: tuple[str, ...] = ()     # finding checks that may remain after `write` (the inconsistent input)
    planted: tuple[str, ...] = ()   # text made from what the mutation plants (a comment) that no page may copy
    rules: tuple[str, ...] = ()     # the declared rules (docgen/rules.py) the first `check` must fire, each of them


def not_inputs(folder: str, names: list[str]) -> set[str]:
    """shutil.copytree's `ignore` for a copy of the repository's pages: the site build's own copy of mermaid
    (docs/assets/js/, git-ignored), which scripts/build-docs replaces (a staged file renamed into place) while
    other tests copy docs/: a copy that listed the staged file found it gone (a suite run under load did)."""
    return {"js"} & set(names) if Path(folder).name == "assets" and Path(folder).parent.name == "docs" else set()


def copy_repo(into: Path) -> Path:
    into.mkdir()
    for rel in REPO_INPUTS:
        src = REPO / rel
        if src.is_dir():
            shutil.copytree(src, into / rel, ignore=not_inputs)
        else:
            shutil.copy2(src, into / rel)
    return into


def run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue() + err.getvalue()


def pages_text(root: Path) -> str:
    """The rendered Markdown, without the image-size block: a stale measurement is shown there under a
    "not current" note, on purpose (the figures stay until the image is measured again)."""
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    return "\n".join(_IMAGE_SIZE_BLOCK.sub("", p.read_text()) for p in pages)


_VALUE_MARKERS = re.compile(r"<!-- docgen:(?:value [^>]*|end-value) -->")


def stated_text(root: Path) -> str:
    """Everything that states facts for a reader or a later check: the pages (transcripts included) and the
    facts record `check` compares against; the pages also as a reader sees them, without the inline value
    markers (a sentence like "compute capability 9.0, Hopper, and newer" has two values inside it)."""
    pages = pages_text(root)
    return "\n".join((pages, _VALUE_MARKERS.sub("", pages), _facts_summary(root)))


def _facts_summary(root: Path) -> str:
    """The facts record without its mentions part: that part keeps, on purpose, the values a hand-written
    sentence was written against until a person confirms or edits it (docgen/check/mentions.py)."""
    record = json.loads((root / FACTS_RECORD).read_text())
    record.pop("mentions", None)
    return json.dumps(record, indent=1)


@functools.cache
def unmutated_text() -> str:
    return stated_text(REPO)


# ------------------------------------------------------------------------------------------- edit helpers

def edit(rel: str, old: str, new: str, count: int = 1) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        path = root / rel
        text = path.read_text()
        assert old in text, f"{rel} no longer contains {old!r}: update the mutation"
        path.write_text(text.replace(old, new) if count == 0 else text.replace(old, new, count))
    return apply


def edits(*steps: Callable[[Path], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        for step in steps:
            step(root)
    return apply


def snapshot_json(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        from docgen.snapshot.build import dump_snapshot
        path = root / SNAPSHOT
        data = json.loads(path.read_text())
        change(data)
        path.write_text(dump_snapshot(data))
    return apply


def _drop_actor(data: dict, fqn: str) -> None:
    actors = data["registry"]["actors"]
    assert any(a["actor"] == fqn for a in actors)
    data["registry"]["actors"] = [a for a in actors if a["actor"] != fqn]


def _add_system_actor(data: dict) -> None:
    data["registry"]["actors"].append({"actor": "nemo_rl.environments.new_env.NewEnvironment",
                                       "command": "sys.executable", "command_system": "sys.executable",
                                       "member": "SYSTEM", "source": "upstream"})


def _rename_member(data: dict) -> None:
    reg = data["registry"]
    reg["executables"]["MEGATRON"] = reg["executables"].pop("MCORE")
    for a in reg["actors"]:
        if a["member"] == "MCORE":
            a["member"] = "MEGATRON"


def _not_source_built(data: dict) -> None:
    for key, pkg in data["lock"]["packages"].items():
        if pkg["name"] == "deep-gemm":
            pkg["source_built"] = False


def _provenance(key: str, value: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["provenance"][key] = value
    return change


FILTER_LINE = "  megatron_policy_worker.MegatronPolicyWorker \\\n"
VERIFY_LINE = f"  {MEGATRON} \\\n"
NOT_PREFETCHED_HEAD = "# Not prefetched (uv actors the filters below leave out; their venvs are built on first use):\n"
VLLM_COPY_LOOP = '''copied=0
for pkg in /opt/nemo_rl_venv/lib/python3*/site-packages/vllm \\
           /opt/ray_venvs/*/lib/python3*/site-packages/vllm \\
           /opt/gym_venvs/*/lib/python3*/site-packages/vllm; do
  [ -d "$pkg" ] || continue
  cp -a --dereference "$pkg" "$pkg.real"
  rm -rf "$pkg"
  mv "$pkg.real" "$pkg"
  chown -R "${BUILD_UID}:${RUNTIME_GID}" "$pkg"
  chmod -R g+w "$pkg"
  copied=$((copied + 1))
done
if [ "$copied" -eq 0 ]; then echo "ERROR: no venv contains a vllm/ package to copy" >&2; exit 1; fi
echo "vllm copied into $copied venvs"
'''
WARM = "uv sync ${UV_SYNC_MODE} --no-install-project"


# ---------------------------------------------------------------- real history: helpers for NeMo-RL's bumps
# The snapshot changes below have the shape of real upstream commits (`git log -p -- pyproject.toml uv.lock`
# of NVIDIA-NeMo/RL): an actor moved to another PY_EXECUTABLES member (#1638), a new worker or backend
# (#2420), a new git source in an extra (#1942), a TE bump (#2434), a Python bump (#3183), an extra added
# (#2264), a path source moved to a submodule (#3235), an index change (#2332).

DTENSOR = "nemo_rl.models.policy.workers.dtensor_policy_worker.DTensorPolicyWorker"
NEMO_GYM = "nemo_rl.environments.nemo_gym.NemoGym"
BROKER = "nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor"
REPLAY_BUFFER = "nemo_rl.algorithms.async_utils.ReplayBuffer"
TE_KEY = "transformer-engine==2.15.0+42b8400"
DEEP_EP_KEY = "deep-ep==1.2.1+29d31c0@git:29d31c0"
HYBRID_EP_KEY = "hybrid-ep==1.0.0+0123456@git:0123456"
HYBRID_EP = {"editable": False, "name": "hybrid-ep", "source_built": True, "source_kind": "git",
             "source": "git+https://github.com/deepseek-ai/DeepEP.git?rev=hybrid-ep#0123456789abcdef0123456789abcdef01234567",
             "version": "1.0.0+0123456"}
PRIVATE_INDEX = "registry+https://index.invalid/simple"


def _actor_entry(data: dict, fqn: str) -> dict:
    [entry] = [a for a in data["registry"]["actors"] if a["actor"] == fqn]
    return entry


def _move_actor(fqn: str, member: str) -> Callable[[dict], None]:
    """The actor runs with another PY_EXECUTABLES member (the registry line changes, nothing else)."""
    def change(data: dict) -> None:
        entry = _actor_entry(data, fqn)
        entry["member"], entry["command"] = member, data["registry"]["executables"][member]
    return change


def _inline_command(fqn: str, extras: tuple[str, ...]) -> Callable[[dict], None]:
    """The actor gets an inline executable with several extras (as the modelopt workers have), and the lock
    the install set uv resolves for that combination."""
    def change(data: dict) -> None:
        entry = _actor_entry(data, fqn)
        entry["member"] = None
        entry["command"] = "uv run --locked " + " ".join(f"--extra {e}" for e in extras) + " --directory {git_root}"
        sets = data["lock"]["install_sets"]
        sets["+".join(sorted(extras))] = sorted(set().union(*(sets[e] for e in extras)))
    return change


def _add_actor(fqn: str, member: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        reg = data["registry"]
        reg["actors"].append({"actor": fqn, "command": reg["executables"][member], "command_system": "sys.executable",
                              "member": member, "source": "upstream"})
    return change


def _rename_actor(old: str, new: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        _actor_entry(data, old)["actor"] = new
    return change


def _drop_member(member: str) -> Callable[[dict], None]:
    """A backend leaves NeMo-RL: its PY_EXECUTABLES member and the actors that run with it."""
    def change(data: dict) -> None:
        reg = data["registry"]
        del reg["executables"][member]
        reg["actors"] = [a for a in reg["actors"] if a["member"] != member]
    return change


def _install_sets_with(data: dict, extra: str) -> list[str]:
    return [k for k in data["lock"]["install_sets"] if extra in k.split("+")]


def _add_package(key: str, pkg: dict, extras: tuple[str, ...]) -> Callable[[dict], None]:
    """A package enters the lock, installed by every install set that includes one of the extras (and, as
    `docgen snapshot` records it, a shared build when two or more extras install a source build)."""
    def change(data: dict) -> None:
        data["lock"]["packages"][key] = pkg
        for extra in extras:
            for k in _install_sets_with(data, extra):
                data["lock"]["install_sets"][k] = sorted(set(data["lock"]["install_sets"][k]) | {key})
        if pkg["source_built"] and len(extras) >= 2:
            data["lock"]["shared_builds"].append({"extras": list(extras), "package": key})
            data["lock"]["shared_builds"].sort(key=lambda s: s["package"])
    return change


def _drop_requirement(key: str, requirement: str, extras: tuple[str, ...]) -> Callable[[dict], None]:
    """The extras stop requiring a package: pyproject loses the lines, the lock the install-set entries."""
    def change(data: dict) -> None:
        for extra in extras:
            reqs = data["project"]["extras"][extra]
            assert any(r.startswith(requirement) for r in reqs), (extra, requirement)
            data["project"]["extras"][extra] = [r for r in reqs if not r.startswith(requirement)]
            for k in _install_sets_with(data, extra):
                data["lock"]["install_sets"][k] = [p for p in data["lock"]["install_sets"][k] if p != key]
        data["lock"]["shared_builds"] = [s for s in data["lock"]["shared_builds"] if s["package"] != key]
    return change


def _bump(old_key: str, new_key: str, only: tuple[str, ...] = (), **fields: str) -> Callable[[dict], None]:
    """A lock bump: the package's key, version (and source) change wherever it is installed, or only in the
    install sets of `only` (two versions of one package then sit in the lock)."""
    def change(data: dict) -> None:
        packages = data["lock"]["packages"]
        packages[new_key] = {**packages[old_key], **fields}
        if not only:
            del packages[old_key]
        for k, members in data["lock"]["install_sets"].items():
            if old_key in members and (not only or set(k.split("+")) & set(only)):
                data["lock"]["install_sets"][k] = sorted(set(members) - {old_key} | {new_key})
        for shared in data["lock"]["shared_builds"]:
            if shared["package"] == old_key and not only:
                shared["package"] = new_key
        if only:
            data["lock"]["shared_builds"] = [s for s in data["lock"]["shared_builds"] if s["package"] != old_key]
    return change


def _wheel(key: str) -> Callable[[dict], None]:
    """A source build becomes a prebuilt wheel from an index (as sglang's did in #2535)."""
    def change(data: dict) -> None:
        data["lock"]["packages"][key].update(source_built=False, source_kind="registry", source=PRIVATE_INDEX)
        data["lock"]["shared_builds"] = [s for s in data["lock"]["shared_builds"] if s["package"] != key]
    return change


def _add_extra(name: str, requirements: list[str]) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["project"]["extras"][name] = requirements
        data["lock"]["install_sets"][name] = list(data["lock"]["install_sets"][""])
    return change


def _drop_extra(name: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        del data["project"]["extras"][name]
        for k in _install_sets_with(data, name):
            del data["lock"]["install_sets"][k]
        shared = []
        for entry in data["lock"]["shared_builds"]:
            extras = [e for e in entry["extras"] if e != name]
            if len(extras) >= 2:
                shared.append({**entry, "extras": extras})
        data["lock"]["shared_builds"] = shared
    return change


def _requires_python(spec: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["project"]["requires_python"] = spec
    return change


def _all(*changes: Callable[[dict], None]) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        for step in changes:
            step(data)
    return change


PREFETCH_TAIL = "  broker_actor.SandboxEpisodeBrokerActor\n"
DRIVER_INSTALL = 'uv pip install --python "${UV_PROJECT_ENVIRONMENT}/bin/python" --no-deps -e .\n'
HEADING = "## Where to go next\n"

MUTATIONS = [
    # ---- Dockerfile: filters and what they select
    Mutation("drop the Megatron filter consistently",
             edits(edit(DOCKERFILE, FILTER_LINE, ""), edit(DOCKERFILE, VERIFY_LINE, ""),
                   edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Seven filters -> eight venvs."),
                   edit(DOCKERFILE, NOT_PREFETCHED_HEAD, NOT_PREFETCHED_HEAD + f"#   {MEGATRON}: left to first use\n")),
             ("venvs 9 -> 8", "console-venvs"),
             gone=("MegatronPolicyWorker`: prefetched", f"version_in {MEGATRON}", f"te_init {MEGATRON}",
                   "python-MegatronPolicyWorker", "filter `megatron_policy_worker"), rules=('stale-block', 'stale-value')),
    Mutation("drop the Megatron filter only", edit(DOCKERFILE, FILTER_LINE, ""),
             ("[verify-list]", "[count-statement]", "[not-prefetched-list]"),
             gone=("MegatronPolicyWorker`: prefetched", "python-MegatronPolicyWorker"),
             still=("verify-list", "count-statement", "not-prefetched-list"), rules=('count-statement', 'not-prefetched-list', 'stale-block', 'stale-value', 'verify-list')),
    Mutation("add a filter for the value worker",
             edit(DOCKERFILE, FILTER_LINE, FILTER_LINE + "  dtensor_value_worker_v2.DTensorValueWorkerV2 \\\n"),
             ("venvs 9 -> 10", "[count-statement]"),
             gone=("| `workers.dtensor_value_worker_v2.DTensorValueWorkerV2` | `AUTOMODEL` | `automodel` | — |",),
             still=("verify-list", "count-statement", "not-prefetched-list"), rules=('count-statement', 'not-prefetched-list', 'stale-block', 'stale-value', 'verify-list')),
    Mutation("typo in a filter", edit(DOCKERFILE, "  nemo_gym.NemoGym \\", "  nemo_gym.NemoGim \\"),
             ("[filter-unmatched]", "nemo_gym.NemoGim"), gone=("python-NemoGym", "filter `nemo_gym.NemoGym`"),
             still=("filter-unmatched", "verify-list", "count-statement", "not-prefetched-list"), rules=('count-statement', 'filter-unmatched', 'not-prefetched-list', 'stale-block', 'stale-value', 'verify-list')),
    # ---- Dockerfile: warm steps and their comments
    Mutation("add an sglang warm step",
             edit(DOCKERFILE, f"{WARM} --all-groups", f"{WARM} --extra sglang     # sglang kernels\n{WARM} --all-groups"),
             ("[not-prefetched-reason]", "SGLangGenerationWorker"),
             gone=("backend not built: `sglang`",), still=("not-prefetched-reason",), rules=('not-prefetched-reason', 'stale-block', 'stale-value')),
    Mutation("drop the mcore warm step",
             edit(DOCKERFILE, f"{WARM} --extra mcore      # reuses automodel's TE wheel (cache keys on source, not extra)\n", ""),
             ("[warm-order]", "mcore"),
             gone=("Only in `mcore` among warmed extras", "`transformer-engine` (automodel → mcore)"),
             still=("warm-order", "not-prefetched-reason"), rules=('not-prefetched-reason', 'review', 'stale-block', 'stale-value', 'warm-order')),
    Mutation("fsdp comment claims the TE build",
             edit(DOCKERFILE, "# flash-attn, mamba-ssm, causal-conv1d", "# builds Transformer-Engine"),
             ("[warm-order]", "does not install transformer-engine"),
             planted=("| `fsdp` | builds Transformer-Engine |",), still=("warm-order",), rules=('stale-block', 'warm-order')),
    Mutation("mcore comment reuses the wrong extra's TE",
             edit(DOCKERFILE, "# reuses automodel's TE wheel", "# reuses fsdp's TE wheel"),
             ("[warm-order]", "reuses fsdp's transformer-engine"), still=("warm-order",), rules=('stale-block', 'warm-order')),
    Mutation("automodel comment says it reuses TE although it builds it first",
             edit(DOCKERFILE, "# builds Transformer-Engine once into the cache", "# reuses the TE wheel"),
             ("[warm-order]", "first warm step"), still=("warm-order",), rules=('stale-block', 'warm-order')),
    Mutation("swap the automodel and mcore warm steps",
             edits(edit(DOCKERFILE, f"{WARM} --extra automodel  # builds Transformer-Engine once into the cache\n", ""),
                   edit(DOCKERFILE, f"{WARM} --extra modelopt",
                        f"{WARM} --extra automodel  # builds Transformer-Engine once into the cache\n{WARM} --extra modelopt")),
             ("[warm-order]",), gone=("`transformer-engine` (automodel → mcore)",), still=("warm-order",), rules=('stale-block', 'warm-order')),
    Mutation("not-prefetched comment names the wrong reason",
             edit(DOCKERFILE, "MegatronValueWorker: critic-free value worker", "MegatronValueWorker: async bookkeeping actor"),
             ("[not-prefetched-reason]", "MegatronValueWorker"), still=("not-prefetched-reason",), rules=('not-prefetched-reason', 'stale-block')),
    # ---- Dockerfile: ARG defaults, paths, UIDs, the published stage
    Mutation("delete the vLLM privatisation step", edit(DOCKERFILE, VLLM_COPY_LOOP, ""),
             ("console-vllm-copies", "vllm-copies"),
             gone=("**private copy**", "directory, 0 symlinks"), rules=('stale-block',)),
    Mutation("change the runtime UID", edit(DOCKERFILE, "ARG RUNTIME_UID=1000", "ARG RUNTIME_UID=1234"),
             ("console-runtime-user",), gone=("$ id -u\n1000",), rules=('review', 'stale-block')),
    Mutation("change the runtime GID", edit(DOCKERFILE, "ARG RUNTIME_GID=1000", "ARG RUNTIME_GID=2000"),
             ("console-ownership",), gone=("2000:1000 drwxrwsr-t", "-group 1000"), rules=('review', 'stale-block')),
    Mutation("drop the sticky bit on the venv directory",
             edit(DOCKERFILE, "-m 3775 /opt/ray_venvs /opt/gym_venvs", "-m 2775 /opt/ray_venvs /opt/gym_venvs"),
             ("console-ownership",), gone=("drwxrwsr-t",), rules=('stale-block',)),
    Mutation("change NEMO_RL_VENV_DIR", edit(DOCKERFILE, "/opt/ray_venvs", "/opt/actor_venvs", count=0),
             ("console-venvs", "paths.venv_dir"), gone=("/opt/ray_venvs",), rules=('stale-block', 'stale-value')),
    Mutation("change the uv cache directory", edit(DOCKERFILE, "/opt/uv_cache", "/opt/uvc", count=0),
             ("paths.uv_cache",), gone=("/opt/uv_cache",), rules=('stale-block', 'stale-value', 'unrecorded-sentence')),
    Mutation("change NEMO_GYM_VENV_DIR", edit(DOCKERFILE, "/opt/gym_venvs", "/opt/gym", count=0),
             ("paths.gym_venv_dir",), gone=("/opt/gym_venvs",), rules=('stale-block', 'stale-value', 'unrecorded-sentence')),
    Mutation("change the driver venv", edit(DOCKERFILE, "/opt/nemo_rl_venv", "/opt/driver_venv", count=0),
             ("paths.base_venv",), gone=("/opt/nemo_rl_venv",), rules=('review', 'stale-block', 'stale-value')),
    Mutation("change the checkout directory", edit(DOCKERFILE, "WORKDIR /opt/nemo-rl", "WORKDIR /opt/rl"),
             ("paths.checkout", "py-executables"), gone=("/opt/nemo-rl",), rules=('stale-block', 'stale-value')),
    Mutation("change the CUDA arch defaults",
             edit(DOCKERFILE, 'ARG TORCH_CUDA_ARCH_LIST="9.0 10.0"', 'ARG TORCH_CUDA_ARCH_LIST="8.0 9.0 10.0"'),
             # the floor is the highest of the lists' minima: TE still starts at 9.0, so 8.0 is a finding
             ("[arch-floor]", "compiles for 8.0"), gone=("`9.0 10.0`",), still=("arch-floor",), rules=('arch-floor', 'review', 'stale-block')),
    Mutation("change the TE arch list", edit(DOCKERFILE, 'ARG NVTE_CUDA_ARCHS="90;100"', 'ARG NVTE_CUDA_ARCHS="90;100;120"'),
             ("build-options",), gone=("`90;100`",), rules=('review', 'stale-block')),
    Mutation("change the uv version", edit(DOCKERFILE, "ARG UV_VERSION=0.11.33", "ARG UV_VERSION=0.12.0"),
             ("uv.version",), gone=("0.11.33",), rules=('stale-block', 'stale-value')),
    Mutation("change the Python version", edit(DOCKERFILE, "ARG PYTHON_VERSION=3.13.14", "ARG PYTHON_VERSION=3.13.15"),
             ("python.version",), gone=("3.13.14",), rules=('stale-block', 'stale-value')),
    Mutation("change the NeMo-RL ref default", edit(DOCKERFILE, "ARG NEMO_RL_REF=nmp/customizer", "ARG NEMO_RL_REF=main"),
             ("build-options", "[provenance]"), gone=("`nmp/customizer` |",),
             still=("provenance",), rules=('provenance', 'review', 'stale-block')),   # the snapshot still describes the old ref until `docgen snapshot`
    # ---- snapshot: registry, executables, lock, provenance
    Mutation("PY_EXECUTABLES use --frozen", edit(SNAPSHOT, "uv run --locked", "uv run --frozen", count=0),
             ("py-executables",), gone=("uv run --locked",), rules=('stale-block',)),
    Mutation("drop an actor from the registry",
             snapshot_json(lambda d: _drop_actor(d, "nemo_rl.experience.sync_rollout_actor.SyncRolloutActor")),
             ("[filter-unmatched]", "sync_rollout_actor.SyncRolloutActor"),
             gone=("python-SyncRolloutActor", "SyncRolloutActor: directory"),
             still=("filter-unmatched", "verify-list", "count-statement"), rules=('count-statement', 'filter-unmatched', 'stale-block', 'stale-value', 'verify-list')),
    Mutation("add a system actor to the registry", snapshot_json(_add_system_actor),
             ("actors.count", "system_actors.count"), gone=("29 (20 under uv, 9 on the system interpreter)",), rules=('stale-block', 'stale-value')),
    Mutation("rename a PY_EXECUTABLES member", snapshot_json(_rename_member), ("py-executables",),
             gone=("`MCORE`",), rules=('stale-block',)),
    Mutation("change the TE version in the lock", edit(SNAPSHOT, "2.15.0+42b8400", "2.16.0+0abcdef", count=0),
             ("te.version", "transformer-engine 2.15.0+42b8400 -> 2.16.0+0abcdef"), gone=("2.15.0+42b8400",), rules=('review', 'stale-block', 'stale-value')),
    Mutation("change the vLLM version in the lock", edit(SNAPSHOT, "0.25.1", "0.26.0", count=0),
             ("vllm.version",), gone=("0.25.1",), rules=('stale-block', 'stale-value')),
    Mutation("a source build becomes a wheel", snapshot_json(_not_source_built), ("source-builds", "builds deep-gemm"),
             gone=("| `vllm` | `deep-gemm` | `2.5.0` | git |",), still=("warm-order",), rules=('stale-block', 'warm-order')),   # the comment "deep_gemm builds"
    Mutation("change the TE override ref", edit(SNAPSHOT, "TransformerEngine.git@release_v2.15", "TransformerEngine.git@release_v2.16", count=0),
             ("uv-override",), gone=("TransformerEngine.git@release_v2.15\"",), rules=('stale-block',)),
    Mutation("change the snapshot's repository", snapshot_json(_provenance("repo", "NVIDIA-NeMo/RL")),
             ("nemo_rl.repo", "[provenance]"), gone=("soluwalana/RL<",), still=("provenance",), rules=('provenance', 'stale-value')),
    Mutation("change the snapshot's ref", snapshot_json(_provenance("ref", "main")), ("nemo_rl.ref", "[provenance]"),
             gone=(">nmp/customizer<",), still=("provenance",), rules=('provenance', 'stale-value')),
    # ---- real history: NeMo-RL bumps as upstream makes them (snapshot), and the Dockerfile edits that follow
    Mutation("an actor moves back to the vllm extra (#1638 reversed)", snapshot_json(_move_actor(DTENSOR, "VLLM")),
             ("filter-table", "venv-inventory", "py-executables", "DTensorPolicyWorker runs with extra 'fsdp'"),
             gone=("| `dtensor_policy_worker.DTensorPolicyWorker` | `workers.dtensor_policy_worker.DTensorPolicyWorker` | `fsdp` |",
                   "DTensorPolicyWorker | `fsdp` | at image build |"), still=("stated-value",), rules=('review', 'stale-block', 'stated-value')),
    Mutation("NemoGym moves to the vllm extra", snapshot_json(_move_actor(NEMO_GYM, "VLLM")),
             ("filter-table", "vllm-copies", "console-vllm-copies", "NemoGym runs with extra 'nemo_gym'"),
             gone=("| `nemo_gym.NemoGym` | `environments.nemo_gym.NemoGym` | `nemo_gym` |",
                   "| `nemo_gym` | warmed | NemoGym, SandboxedGymActor, SandboxEpisodeBrokerActor |"), still=("stated-value",), rules=('review', 'stale-block', 'stated-value')),
    Mutation("an actor runs with two extras (inline executable)",
             snapshot_json(_inline_command(DTENSOR, ("fsdp", "modelopt"))),
             ("filter-table", "venv-inventory"),
             gone=("| `dtensor_policy_worker.DTensorPolicyWorker` | `workers.dtensor_policy_worker.DTensorPolicyWorker` | `fsdp` |",), rules=('review', 'stale-block')),
    Mutation("an actor moves to the system interpreter", snapshot_json(_move_actor(REPLAY_BUFFER, "SYSTEM")),
             ("system_actors 9 -> 10", "not_prefetched 11 -> 10", "[not-prefetched-list]"),
             still=("not-prefetched-list",), rules=('not-prefetched-list', 'stale-block', 'stale-value')),
    Mutation("a new worker an existing filter selects (#2420)",
             snapshot_json(_add_actor("nemo_rl.models.generation.vllm.vllm_worker_v2.VllmGenerationWorkerV2", "VLLM")),
             ("venvs 9 -> 10", "actors 29 -> 30", "[verify-list]", "[count-statement]"),
             gone=("29 (20 under uv, 9 on the system interpreter)",),
             still=("verify-list", "count-statement"), rules=('count-statement', 'stale-block', 'stale-value', 'verify-list')),
    Mutation("a new worker no filter selects",
             snapshot_json(_add_actor("nemo_rl.models.generation.dynamo.dynamo_worker.DynamoSglangWorker", "SGLANG")),
             ("not_prefetched 11 -> 12", "[not-prefetched-list]", "DynamoSglangWorker"),
             gone=("29 (20 under uv, 9 on the system interpreter)",), still=("not-prefetched-list",), rules=('not-prefetched-list', 'stale-block', 'stale-value')),
    Mutation("a prefetched actor's module is renamed",
             snapshot_json(_rename_actor("nemo_rl.experience.sync_rollout_actor.SyncRolloutActor",
                                         "nemo_rl.experience.rollout_actor.SyncRolloutActor")),
             ("[filter-unmatched]", "venvs 9 -> 8"), gone=("python-SyncRolloutActor",),
             still=("filter-unmatched", "verify-list", "count-statement", "not-prefetched-list"), rules=('count-statement', 'filter-unmatched', 'not-prefetched-list', 'stale-block', 'stale-value', 'verify-list')),
    Mutation("a backend leaves NeMo-RL (SGLANG member and its worker)", snapshot_json(_drop_member("SGLANG")),
             ("actors 29 -> 28", "[not-prefetched-list]", "py-executables"), gone=("`SGLANG`",),
             still=("not-prefetched-list",), rules=('not-prefetched-list', 'stale-block', 'stale-value')),
    Mutation("a new git source shared by automodel and mcore (#1942)",
             snapshot_json(_add_package(HYBRID_EP_KEY, HYBRID_EP, ("automodel", "mcore"))),
             ("+hybrid-ep 1.0.0+0123456", "shared_builds 5 -> 6", "source-builds", "shared-builds"),
             gone=("`deep-ep` (vllm → automodel → mcore), `mamba-ssm`",), rules=('stale-block',)),
    Mutation("a new git source in the mcore extra only", snapshot_json(_add_package(HYBRID_EP_KEY, HYBRID_EP, ("mcore",))),
             ("+hybrid-ep 1.0.0+0123456", "source-builds", "mcore-adds"), rules=('stale-block',)),
    Mutation("DeepEP leaves the automodel and mcore extras",
             snapshot_json(_drop_requirement(DEEP_EP_KEY, "deep_ep", ("automodel", "mcore"))),
             ("source-builds",), gone=("`deep-ep` (vllm → automodel → mcore)",), rules=('stale-block',)),
    Mutation("automodel and mcore lock different TE versions",
             snapshot_json(_bump(TE_KEY, "transformer-engine==2.16.0+0abcdef", only=("mcore",), version="2.16.0+0abcdef")),
             ("2.15.0+42b8400 / 2.16.0+0abcdef", "te-consumers", "console-te-shared"),
             gone=("`transformer-engine` (automodel → mcore)",), still=("stated-value",), rules=('stale-block', 'stated-value')),
    Mutation("a TE bump moves key, version and git rev (#2434)",
             snapshot_json(_bump(TE_KEY, "transformer-engine==2.16.0+1a2b3c4", version="2.16.0+1a2b3c4",
                                 source="git+https://github.com/NVIDIA/TransformerEngine.git?rev=release_v2.16#1a2b3c4d")),
             ("transformer-engine 2.15.0+42b8400 -> 2.16.0+1a2b3c4", "te.version"), gone=("2.15.0+42b8400",), rules=('review', 'stale-block', 'stale-value')),
    Mutation("a torch bump", snapshot_json(_bump("torch==2.11.0+cu130", "torch==2.12.0+cu130", version="2.12.0+cu130")),
             ("torch 2.11.0+cu130 -> 2.12.0+cu130",), rules=('stale-block',)),
    Mutation("a ray bump", snapshot_json(_bump("ray==2.56.1", "ray==2.57.0", version="2.57.0")), ("ray 2.56.1 -> 2.57.0",), rules=('stale-block',)),
    Mutation("a Python bump in NeMo-RL and the Dockerfile (#3183)",
             edits(edit(DOCKERFILE, "ARG PYTHON_VERSION=3.13.14", "ARG PYTHON_VERSION=3.13.15"),
                   snapshot_json(_requires_python(">=3.13.15,<3.14"))),
             ("PYTHON_VERSION 3.13.14 -> 3.13.15", "python.version"), gone=("3.13.14",), rules=('stale-block', 'stale-value')),
    Mutation("an extra is added (#2264)", snapshot_json(_add_extra("omni", ["qwen-omni-utils"])),
             ("extras 9 -> 10", "quick-inventory"), rules=('stale-block',)),
    Mutation("an extra is added and warmed",
             edits(snapshot_json(_add_extra("omni", ["qwen-omni-utils"])),
                   edit(DOCKERFILE, f"{WARM} --all-groups", f"{WARM} --extra omni       # omni media stack\n{WARM} --all-groups")),
             ("warm_extras: +omni", "warm_extras 6 -> 7", "warm-steps", "warm_extras.count.word"), rules=('stale-block', 'stale-value')),
    Mutation("an extra is removed", snapshot_json(_drop_extra("nvrx")), ("extras 9 -> 8", "quick-inventory"), rules=('stale-block',)),
    Mutation("a path source moves into a submodule (#3235)",
             edit(SNAPSHOT, "3rdparty/Megatron-Bridge-workspace/Megatron-Bridge", "3rdparty/Megatron-Bridge", count=0),
             ("editable-sources",), gone=("Megatron-Bridge-workspace",), rules=('stale-block',)),
    Mutation("a negative filter drops a venv",
             edit(DOCKERFILE, PREFETCH_TAIL, PREFETCH_TAIL.rstrip("\n") + " \\\n  --negative-filters vllm_worker_async\n"),
             ("negative_filters: +vllm_worker_async", "venvs 9 -> 8", "[verify-list]"),
             gone=("python-VllmAsyncGenerationWorker",), still=("count-statement", "not-prefetched-list", "verify-list"), rules=('count-statement', 'not-prefetched-list', 'stale-block', 'stale-value', 'verify-list')),
    Mutation("a venv is dropped with its filter, verification and comments",
             edits(edit(DOCKERFILE, "  nemo_gym_actor.SandboxedGymActor \\\n" + PREFETCH_TAIL, "  nemo_gym_actor.SandboxedGymActor\n"),
                   edit(DOCKERFILE, f"  {BROKER} \\\n", ""),
                   edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Seven filters -> eight venvs."),
                   edit(DOCKERFILE, NOT_PREFETCHED_HEAD, NOT_PREFETCHED_HEAD + f"#   {BROKER}: left to first use\n")),
             ("filters 8 -> 7", "venvs 9 -> 8", "filter-table"),
             gone=("python-SandboxEpisodeBrokerActor", "filter `broker_actor"), rules=('stale-block', 'stale-value')),
    Mutation("the nemo_gym warm step is dropped", edit(DOCKERFILE, f"{WARM} --extra nemo_gym   # the Gym workspace member\n", ""),
             ("warm_extras: -nemo_gym", "[warm-order]"), still=("warm-order",), rules=('review', 'stale-block', 'stale-value', 'warm-order')),
    Mutation("the nvrx extra is warmed", edit(DOCKERFILE, f"{WARM} --all-groups",
                                              f"{WARM} --extra nvrx       # fault-tolerance launcher\n{WARM} --all-groups"),
             ("warm_extras: +nvrx", "shared_builds 5 -> 6", "shared-builds"), rules=('stale-block', 'stale-value')),
    # ---- real history: build arguments a Dockerfile bump changes
    Mutation("a CUDA minor bump of the base image", edit(DOCKERFILE, "cuda13.3", "cuda13.4"),
             ("BASE_IMAGE", "build-options", "image-graph"), gone=("26.07-cuda13.3",), rules=('stale-block',)),
    Mutation("the build UID changes in the options table", edit(DOCKERFILE, "ARG BUILD_UID=2000", "ARG BUILD_UID=3000"),
             ("BUILD_UID 2000 -> 3000", "build.uid", "console-ownership"), gone=("| `BUILD_UID` | `2000` |", "2000:1000 drwxrwsr-t"), rules=('review', 'stale-block', 'stale-value')),
    Mutation("uv sync runs --locked", edit(DOCKERFILE, "ARG UV_SYNC_MODE=--frozen", "ARG UV_SYNC_MODE=--locked"),
             ("UV_SYNC_MODE --frozen -> --locked", "build-options"), gone=("| `UV_SYNC_MODE` | `--frozen` |",), rules=('stale-block',)),
    Mutation("a CMake bump", edit(DOCKERFILE, "ARG CMAKE_VERSION=3.31.6", "ARG CMAKE_VERSION=3.31.8"),
             ("CMAKE_VERSION 3.31.6 -> 3.31.8", "build-options"), gone=("3.31.6",), rules=('stale-block',)),
    Mutation("a system package is dropped", edit(DOCKERFILE, "rsync vim-tiny", "rsync"),
             ("SYSTEM_PACKAGES", "build-options"), gone=("vim-tiny",), rules=('stale-block',)),
    Mutation("the Dockerfile points at upstream NeMo-RL",
             edit(DOCKERFILE, "ARG NEMO_RL_REPO=https://github.com/soluwalana/RL.git", "ARG NEMO_RL_REPO=https://github.com/NVIDIA-NeMo/RL.git"),
             ("NEMO_RL_REPO", "[provenance]"), gone=("`https://github.com/soluwalana/RL.git`",), still=("provenance",), rules=('provenance', 'stale-block')),
    Mutation("Gym venvs are prefetched by default (#3541)",
             edit(DOCKERFILE, 'ARG NEMO_GYM_PREFETCH_CONFIGS=""', 'ARG NEMO_GYM_PREFETCH_CONFIGS="resources_servers/omni/configs/omni.yaml"'),
             ("NEMO_GYM_PREFETCH_CONFIGS", "venv-layers", "gym_venvs_by_default 0 -> None"), rules=('stale-block',)),
    Mutation("Python comes from the system", edit(DOCKERFILE, "ARG PYTHON_SOURCE=managed", "ARG PYTHON_SOURCE=system"),
             ("PYTHON_SOURCE managed -> system", "build-options"), rules=('stale-block',)),
    Mutation("TE builds for another framework", edit(DOCKERFILE, "ARG NVTE_FRAMEWORK=pytorch", "ARG NVTE_FRAMEWORK=jax"),
             ("NVTE_FRAMEWORK pytorch -> jax", "build-options"), rules=('stale-block',)),
    Mutation("TE build threads change", edit(DOCKERFILE, "ARG NVTE_BUILD_THREADS_PER_JOB=2", "ARG NVTE_BUILD_THREADS_PER_JOB=4"),
             ("NVTE_BUILD_THREADS_PER_JOB 2 -> 4", "build-options"), rules=('stale-block',)),
    Mutation("the torch arch list drops Hopper", edit(DOCKERFILE, 'ARG TORCH_CUDA_ARCH_LIST="9.0 10.0"', 'ARG TORCH_CUDA_ARCH_LIST="10.0"'),
             ("TORCH_CUDA_ARCH_LIST 9.0 10.0 -> 10.0", "cuda_arch.floor", "[arch-floor]"), gone=("compute capability 9.0",),
             still=("arch-floor",), rules=('arch-floor', 'review', 'stale-block', 'stale-value')),
    Mutation("a driver-venv install is added",
             edit(DOCKERFILE, DRIVER_INSTALL, DRIVER_INSTALL + 'uv pip install --python "${UV_PROJECT_ENVIRONMENT}/bin/python" "wandb==0.25.1"   # experiment tracking\n'),
             ("driver_installs 1 -> 2", "driver-installs"), rules=('stale-block',)),
    # ---- real history: Dockerfile comments that no longer match
    Mutation("the count comment is wrong", edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Eight filters -> ten venvs."),
             ("[count-statement]",), still=("count-statement",), rules=('count-statement', 'stale-block')),
    Mutation("the modelopt comment claims the TE build", edit(DOCKERFILE, "# nvidia-modelopt from git", "# builds Transformer-Engine"),
             ("[warm-order]",), planted=("| `modelopt` | builds Transformer-Engine |",), still=("warm-order",), rules=('stale-block', 'warm-order')),
    Mutation("the not-prefetched list loses a row",
             edit(DOCKERFILE, f"#   {REPLAY_BUFFER}: async bookkeeping actor\n", ""),
             ("[not-prefetched-list]", "ReplayBuffer"), still=("not-prefetched-list",), rules=('not-prefetched-list',)),
    Mutation("the verification loop loses an actor", edit(DOCKERFILE, f"  {BROKER} \\\n", ""),
             ("[verify-list]", "SandboxEpisodeBrokerActor"), still=("verify-list",), rules=('stale-block', 'verify-list')),
    Mutation("hand-write the TE version", edit("docs/index.md", HEADING, HEADING + "\nIt ships Transformer-Engine 2.15.0+42b8400.\n"),
             ("[prose]", "te.version"), still=("prose",), rules=('prose', 'unrecorded-sentence')),
    Mutation("hand-write the filter count", edit("docs/index.md", HEADING, HEADING + "\nThe image has eight filters.\n"),
             ("[prose]",), still=("prose",), rules=('prose', 'unrecorded-sentence')),
    # ---- hand edits to prose, values and blocks
    Mutation("hand-edit a count in prose", edit("docs/image/inspect.md", "## Venv inventory\n",
                                                "## Venv inventory\n\nThe image holds four worker venvs.\n"),
             ("[prose]", "four worker venvs", "venvs.count"), still=("prose",), rules=('prose', 'unrecorded-sentence')),
    Mutation("hand-edit a value", edit("docs/index.md", "prefetches <!-- docgen:value venvs.count.word -->nine",
                                       "prefetches <!-- docgen:value venvs.count.word -->ten"),
             ("venvs.count.word", "'ten' -> 'nine'"), gone=("prefetches <!-- docgen:value venvs.count.word -->ten",), rules=('stale-value',)),
    Mutation("hand-edit a generated block", edit("docs/image/venvs.md", "| `vllm.vllm_worker` |", "| `vllm.vllm_worker_x` |"),
             ("filter-table", "by hand"), gone=("`vllm.vllm_worker_x`",), rules=('stale-block',)),
    Mutation("hand-write a path", edit("docs/image/venvs.md", "## Not prefetched\n",
                                       "## Not prefetched\n\nLook in /opt/ray_venvs/extra for more.\n"),
             ("[prose]", "/opt/ray_venvs/extra", "paths.venv_dir"), still=("prose",), rules=('prose',)),
    Mutation("hand-write a version", edit("docs/concepts/workflows.md", "## DPO\n", "## DPO\n\nThis uses vLLM 0.25.1.\n"),
             ("[prose]", "'0.25.1'", "vllm.version"), still=("prose",), rules=('prose', 'unrecorded-sentence')),
    Mutation("name an unknown actor class", edit("docs/concepts/workers.md", "## Where the venvs come from\n",
                                                 "## Where the venvs come from\n\nThe `FooPolicyWorker` too.\n"),
             ("[prose]", "FooPolicyWorker"), still=("prose",), rules=('prose',)),
    Mutation("name an unknown extra", edit("docs/building/hermetic.md", "scripts/build-image\n```",
                                           "scripts/build-image\nuv sync --extra sglangx\n```"),
             ("[prose]", "sglangx"), still=("prose",), rules=('prose',)),
    Mutation("name an unknown environment variable", edit("docs/building/runtime.md", "## The ones that matter most\n",
                                                          "## The ones that matter most\n\nSet `NEMO_RL_CACHE_DIRS` too.\n"),
             ("[prose]", "NEMO_RL_CACHE_DIRS"), still=("prose",), rules=('prose',)),
]


# ---- issue 22 point 4: claims checked for meaning, facts rendered instead of typed (claims22)
MUTATIONS += [
    Mutation("a page hand-writes the build uid", edit("docs/index.md", HEADING, HEADING + "\nThe build user is uid 2000.\n"),
             ("[prose]", "build.uid"), still=("prose",), rules=('prose', 'unrecorded-sentence')),
    Mutation("the build UID changes under a hand-typed uid", edit(DOCKERFILE, "ARG BUILD_UID=2000", "ARG BUILD_UID=3000"),
             ("BUILD_UID 2000 -> 3000", "build.uid"), gone=("(uid 2000)",), rules=('review', 'stale-block', 'stale-value')),
    Mutation("TE becomes a prebuilt wheel under a comment that builds it", snapshot_json(_wheel(TE_KEY)),
             ("[warm-order]", "transformer-engine", "prebuilt"), still=("warm-order",), rules=('review', 'stale-block', 'warm-order')),
    Mutation("a page says an actor runs in another extra's venvs",
             edit("docs/index.md", HEADING, HEADING + "\n`NemoGym` runs in the `vllm` venvs.\n"),
             ("[stated-value]", "NemoGym runs with extra 'vllm'", "nemo_gym"), still=("stated-value",), rules=('stated-value', 'unrecorded-sentence')),
    Mutation("a page says a uv actor runs on the system interpreter",
             edit("docs/index.md", HEADING, HEADING + "\n`MegatronPolicyWorker` runs on the system interpreter.\n"),
             ("[stated-value]", "MegatronPolicyWorker runs on the system interpreter", "mcore"), still=("stated-value",), rules=('stated-value', 'unrecorded-sentence')),
    Mutation("a page says a prebuilt wheel is built from source",
             edit("docs/index.md", HEADING, HEADING + "\nThe image builds torch from source.\n"),
             ("[stated-value]", "no warm step builds torch from source"), still=("stated-value",), rules=('stated-value', 'unrecorded-sentence')),
    Mutation("a page says an unshared package is shared",
             edit("docs/index.md", HEADING, HEADING + "\nThe vllm wheel is built once and shared.\n"),
             ("[stated-value]", "vllm is no source build shared"), still=("stated-value",), rules=('stated-value', 'unrecorded-sentence')),
    Mutation("DeepEP is lost under a sentence calling it shared",
             edits(snapshot_json(_drop_requirement(DEEP_EP_KEY, "deep_ep", ("automodel", "mcore"))),
                   edit("docs/index.md", HEADING, HEADING + "\nDeepEP is shared: it is built once.\n")),
             ("[stated-value]", "deep-ep is no source build shared", "source-builds"),
             gone=("`deep-ep` (vllm → automodel → mcore)",), still=("stated-value",), rules=('stale-block', 'stated-value', 'unrecorded-sentence')),
    Mutation("a second TE version under 'exactly one TE'",
             snapshot_json(_bump(TE_KEY, "transformer-engine==2.16.0+0abcdef", only=("mcore",), version="2.16.0+0abcdef")),
             ("[stated-value]", "2 distinct transformer-engine builds", "docs/concepts/transformer-engine.md:"),
             gone=("`transformer-engine` (automodel → mcore)",), still=("stated-value",), rules=('stale-block', 'stated-value')),
]


def test_there_are_at_least_eighty_mutations():
    assert len(MUTATIONS) >= 80
    names = [m.name for m in MUTATIONS]
    assert len(set(names)) == len(names)


def test_the_unmutated_copy_is_clean_and_checks_the_same_twice(tmp_path: Path):
    """What every mutation starts from (each copy is made the same way, from the same files): checked once
    here rather than twice in each of the mutations."""
    root = copy_repo(tmp_path / "repo")
    assert run("check", "--root", str(root)) == (0, run("check", "--root", str(root))[1])


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_mutation(mutation: Mutation, tmp_path: Path):
    exercise(mutation, tmp_path)


def exercise(mutation: Mutation, tmp_path: Path) -> None:
    root = copy_repo(tmp_path / "repo")
    mutation.apply(root)

    code, out = run("check", "--root", str(root))
    assert code == 1, out
    for name in mutation.names:
        assert name in out, f"check does not name {name!r}:\n{out}"
    assert mutation.rules, f"{mutation.name}: name the rules the change must fire"
    assert set(mutation.rules) <= fired_rules(out), (mutation.rules, out)

    before = stated_text(root)
    code, out = run("write", "--root", str(root))
    assert code == 0, out
    text = stated_text(root)
    for old in mutation.gone:
        assert old in unmutated_text() or old in before, f"no page states {old!r} before write: the search cannot fail"
        assert old not in text, f"a page still states {old!r} after write"
    for copied in mutation.planted:
        assert copied not in text, f"a page copies {copied!r} from the mutated input"

    code, out = run("check", "--root", str(root))
    assert "0 stale blocks, 0 stale values" in out or code == 0, out
    code, out = confirm_reviews(root, code, out)
    remaining = set(_FINDING.findall(out))
    assert remaining <= set(mutation.still) | ALWAYS_ALLOWED, out
    if code == 1:
        assert remaining, out


_STALE = re.compile(r"^\S+?:\d+: (block|value) `[^`]+` is stale", re.M)


def fired_rules(out: str) -> set[str]:
    """The declared rules a `check` report (text form) fired: each finding's, and stale generated text's."""
    return set(_FINDING.findall(out)) | {f"stale-{kind}" for kind in _STALE.findall(out)}


_REVIEW = re.compile(r"^(\S+?:\d+): \[review\] ", re.M)


def confirm_reviews(root: Path, code: int, out: str) -> tuple[int, str]:
    """A hand-written sentence naming a fact that moved fails `check` until a person edits or confirms it
    (`docgen review FILE:LINE`); `write` never clears it. Confirm each one, as the reviewer of the change would
    once the pages no longer state the old fact (the caller has searched them), and check again."""
    sentences = sorted(set(_REVIEW.findall(out)))
    if not sentences:
        return code, out
    code, said = run("write", "--root", str(root))   # `write` keeps every pending review
    assert code == 0, said
    assert set(_REVIEW.findall(run("check", "--root", str(root))[1])) == set(sentences)
    code, said = run("review", "--root", str(root), *sentences)
    assert code == 0, said
    code, out = run("check", "--root", str(root))
    assert "[review]" not in out, out
    return code, out


# --------------------------------------------------------------------------------- beyond the table above

def test_a_size_record_from_other_inputs_is_shown_as_not_current_and_is_no_finding(tmp_path: Path):
    root = copy_repo(tmp_path / "repo")
    edit(DOCKERFILE, "ARG NVTE_BUILD_MAX_JOBS=8", "ARG NVTE_BUILD_MAX_JOBS=4")(root)
    code, out = run("check", "--root", str(root))
    assert code == 1 and "image-size" in out and _FINDING.findall(out) == []   # stale text, no finding
    assert run("write", "--root", str(root))[0] == 0
    measured = json.loads((root / "docs/data/image-size.json").read_text())["measured_at"]
    assert (f"**Not current:** these figures were measured on {measured} at "
            in (root / "docs/image/layering.md").read_text())
    assert run("check", "--root", str(root)) == (0, "")


def test_lint_runs_the_prose_lint_without_rendering(tmp_path: Path):
    root = copy_repo(tmp_path / "repo")
    assert run("lint", "--root", str(root))[0] == 0
    edit("docs/index.md", "## Where to go next\n", "## Where to go next\n\nIt has 9 venvs.\n")(root)
    code, out = run("lint", "--root", str(root))
    assert code == 1 and "docs/index.md:" in out and "[prose] count '9 venvs'" in out and "venvs.count" in out


def test_an_allow_marker_without_a_reason_is_bad_input_and_changes_nothing(tmp_path: Path):
    root = copy_repo(tmp_path / "repo")
    page = root / "docs/index.md"
    edit("docs/index.md", "## Where to go next\n", "## Where to go next\n\nIt has 9 venvs. <!-- docgen:allow -->\n")(root)
    before = {p: p.read_bytes() for p in (root / "docs").rglob("*") if p.is_file()}
    for command in ("check", "write", "lint"):
        code, out = run(command, "--root", str(root))
        assert code == 2 and "docs/index.md:" in out and "docgen:allow RULE WHY" in out, out
    assert {p: p.read_bytes() for p in (root / "docs").rglob("*") if p.is_file()} == before
    page.write_text(page.read_text().replace("<!-- docgen:allow -->", "<!-- docgen:allow prose an example count -->"))
    assert run("write", "--root", str(root))[0] == 0   # records the new sentence (it names the venv count)
    assert run("check", "--root", str(root))[0] == 0


# ================================================================================================
# Issue 22 (points 1-3): inputs held to each other, ARG/ENV values expanded, comments read whole.
# Each case: `check` exits 1 before `write`; after `write` no page states the old fact, and what remains
# is only the finding that names the inconsistent input (fixed by editing that input, not the docs).
# ================================================================================================

BASE_IMAGE_LINE = "ARG BASE_IMAGE=nvcr.io/nvidia/cuda-dl-base:26.07-cuda13.3-devel-ubuntu24.04"
PIN_COMMENT = "# Pin the interpreter for every later uv call, and never download another one at run time.\n"
VENV_ENV = "    NEMO_RL_VENV_DIR=/opt/ray_venvs \\\n"
PREFETCH_RUN = "RUN --mount=type=secret,id=cacert,mode=0444 <<\"EOF\" bash -exu -o pipefail\numask 022\nif [ -f /run/secrets/cacert ]; then export SSL_CERT_FILE=/run/secrets/cacert; fi\nexport UV_LINK_MODE=symlink\n# Eight filters"


def _mapping_block(megatron_extra: str = "mcore", close: str = ")") -> str:
    """The `filter -> extra (why)` comment of a real production version: 3 of 8 rows wrap their reason."""
    return (
        "# The per-filter mapping (which extra each filter's venvs get):\n"
        "#   filter                                          -> extra      (why)\n"
        "#   dtensor_policy_worker.DTensorPolicyWorker       -> fsdp       (FSDP1 policy)\n"
        "#   dtensor_policy_worker_v2.DTensorPolicyWorkerV2  -> automodel  (FSDP2 policy; builds TE once,\n"
        "#                                                                  shared with mcore)\n"
        f"#   megatron_policy_worker.MegatronPolicyWorker     -> {megatron_extra:<10} (Megatron policy,\n"
        f"#                                                                  reuses the TE wheel{close}\n"
        "#   vllm.vllm_worker                                -> vllm       (sync and async generation)\n"
        "#   sync_rollout_actor.SyncRolloutActor             -> vllm       (rollouts) in the vllm venv\n"
        "#   nemo_gym.NemoGym                                -> nemo_gym   (Gym bridge: the\n"
        "#                                                                  environment side)\n"
        "#   nemo_gym_actor.SandboxedGymActor                -> nemo_gym   (sandboxed Gym)\n"
        "#   broker_actor.SandboxEpisodeBrokerActor          -> nemo_gym   (episode broker)\n"
    )


def _plant_mapping(**kwargs) -> Callable[[Path], None]:
    return edit(DOCKERFILE, "# Not prefetched (uv actors", _mapping_block(**kwargs) + "\n# Not prefetched (uv actors")


def _requires_python(spec: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["project"]["requires_python"] = spec
    return change


def _move_nemo_gym_to_vllm(data: dict) -> None:
    for actor in data["registry"]["actors"]:
        if actor["actor"] == "nemo_rl.environments.nemo_gym.NemoGym":
            actor["command"] = actor["command"].replace("--extra nemo_gym", "--extra vllm")


CROSS_MUTATIONS = [
    Mutation("the source stage is renamed but the bake file still hands over a context of the old name",
             edits(edit(DOCKERFILE, "FROM scratch AS nemo-rl", "FROM scratch AS rl-source"),
                   edit(DOCKERFILE, "--from=nemo-rl", "--from=rl-source", count=0)),
             ("[bake-names]", "docker-bake.hcl:", "passes context 'nemo-rl', which Dockerfile.nmp-rl-base names in no FROM"),
             still=("bake-names",), rules=('bake-names',)),
    # ---- inputs against each other (22.1)
    Mutation("NeMo-RL raises requires-python past the Dockerfile's Python",
             snapshot_json(_requires_python(">=3.14")),
             ("[python-vs-requires]", "ARG PYTHON_VERSION=3.13.14", "requires-python >=3.14", "snapshot/nemo-rl.json:"),
             still=("python-vs-requires",), rules=('python-vs-requires',)),
    Mutation("the Dockerfile's Python drops below requires-python",
             edit(DOCKERFILE, "ARG PYTHON_VERSION=3.13.14", "ARG PYTHON_VERSION=3.13.12"),
             ("[python-vs-requires]", "python.version"), gone=("3.13.14",), still=("python-vs-requires",), rules=('python-vs-requires', 'stale-block', 'stale-value')),
    Mutation("a CUDA 12 base image under cu130 wheels",
             edit(DOCKERFILE, BASE_IMAGE_LINE, BASE_IMAGE_LINE.replace("26.07-cuda13.3", "25.03-cuda12.8")),
             ("[cuda-vs-wheels]", "CUDA 12", "torch 2.11.0+cu130"), gone=("26.07-cuda13.3",),
             still=("cuda-vs-wheels",), rules=('cuda-vs-wheels', 'stale-block')),
    Mutation("the lock moves torch to cu128 under a CUDA 13 base",
             edit(SNAPSHOT, "2.11.0+cu130", "2.11.0+cu128", count=0),
             ("[cuda-vs-wheels]", "built for CUDA 12 (cu128)"), gone=("2.11.0+cu130",), still=("cuda-vs-wheels",), rules=('cuda-vs-wheels', 'stale-block')),
    Mutation("NVTE_CUDA_ARCHS trimmed to Blackwell",
             edit(DOCKERFILE, 'ARG NVTE_CUDA_ARCHS="90;100"', 'ARG NVTE_CUDA_ARCHS="100"'),
             ("[arch-floor]", "cuda_arch.floor", "TORCH_CUDA_ARCH_LIST='9.0 10.0' compiles for 9.0"),
             gone=("compute capability 9.0", "`90;100`"), still=("arch-floor", "arch-comment"), rules=('arch-comment', 'arch-floor', 'review', 'stale-block', 'stale-value')),
    Mutation("both arch lists trimmed to Blackwell",
             edits(edit(DOCKERFILE, 'ARG NVTE_CUDA_ARCHS="90;100"', 'ARG NVTE_CUDA_ARCHS="100"'),
                   edit(DOCKERFILE, 'ARG TORCH_CUDA_ARCH_LIST="9.0 10.0"', 'ARG TORCH_CUDA_ARCH_LIST="10.0"')),
             # the comment above NVTE_CUDA_ARCHS still names Hopper: the one input left to fix
             ("cuda_arch.floor",), gone=("compute capability 9.0", "`9.0 10.0`"), still=("arch-comment",), rules=('arch-comment', 'review', 'stale-block', 'stale-value')),
    Mutation("the venv directory moves into an ARG, RUN steps still hard-code it",
             edits(edit(DOCKERFILE, PIN_COMMENT, "# Where the actor venvs live.\nARG RAY_VENV_DIR=/opt/ray_venvs\n" + PIN_COMMENT),
                   edit(DOCKERFILE, VENV_ENV, "    NEMO_RL_VENV_DIR=${RAY_VENV_DIR} \\\n")),
             ("[hard-coded-path]", "RUN hard-codes /opt/ray_venvs", "use ${NEMO_RL_VENV_DIR}"),
             planted=("${RAY_VENV_DIR}",), still=("hard-coded-path",), rules=('hard-coded-path', 'stale-block')),
    # ---- ARG/ENV values expanded where the model uses them (22.2)
    Mutation("the venv directory moves into an ARG with a new value",
             edits(edit(DOCKERFILE, PIN_COMMENT, "# Where the actor venvs live.\nARG RAY_VENV_DIR=/opt/actor_venvs\n" + PIN_COMMENT),
                   edit(DOCKERFILE, VENV_ENV, "    NEMO_RL_VENV_DIR=${RAY_VENV_DIR} \\\n"),
                   edit(DOCKERFILE, "/opt/ray_venvs", "/opt/actor_venvs", count=0)),
             ("console-venvs", "paths.venv_dir", "[hard-coded-path]"),
             gone=("/opt/ray_venvs",), planted=("${RAY_VENV_DIR}",), still=("hard-coded-path",), rules=('hard-coded-path', 'stale-block', 'stale-value')),
    Mutation("the venv directory in a global ARG the stage never redeclares",
             edits(edit(DOCKERFILE, "ARG RUNTIME_GID=1000\n", "ARG RUNTIME_GID=1000\n# Where the actor venvs live.\nARG RAY_VENV_DIR=/opt/ray_venvs\n"),
                   edit(DOCKERFILE, VENV_ENV, "    NEMO_RL_VENV_DIR=${RAY_VENV_DIR} \\\n")),
             ("[unresolved-variable]", "bare `ARG RAY_VENV_DIR`"),
             planted=("${RAY_VENV_DIR}",), still=("unresolved-variable", "hard-coded-path", "verify-list"), rules=('hard-coded-path', 'stale-block', 'stale-value', 'unresolved-variable')),
    # ---- comments read whole (22.3)
    Mutation("a wrong extra planted on a wrapped mapping row",
             _plant_mapping(megatron_extra="automodel"),
             ("[mapping-comment]", "'megatron_policy_worker.MegatronPolicyWorker' to 'automodel'"),
             still=("mapping-comment",), rules=('mapping-comment', 'stale-block')),
    Mutation("a wrapped mapping row whose parenthesis never closes",
             _plant_mapping(close=""),
             ("[mapping-comment]", "never closed"), still=("mapping-comment",), rules=('mapping-comment', 'stale-block')),
    Mutation("NemoGym moves to the vllm extra while the mapping row still says nemo_gym",
             edits(_plant_mapping(), snapshot_json(_move_nemo_gym_to_vllm)),
             ("[mapping-comment]", "'nemo_gym.NemoGym'", "the sentence says NemoGym runs with extra 'nemo_gym'"),
             still=("mapping-comment", "not-prefetched-reason", "stated-value"), rules=('mapping-comment', 'review', 'stale-block', 'stated-value')),
]


@pytest.mark.parametrize("mutation", CROSS_MUTATIONS, ids=[m.name for m in CROSS_MUTATIONS])
def test_cross_input_mutation(mutation: Mutation, tmp_path: Path):
    test_mutation(mutation, tmp_path)


# ================================================================================================
# Issue 22, the rest: uv's required version against UV_VERSION, architecture names rendered from the
# lists (never copied from a Dockerfile comment), warm comments read whole.
# ================================================================================================

NVTE_ARCHS = 'ARG NVTE_CUDA_ARCHS="90;100"'
TORCH_ARCHS = 'ARG TORCH_CUDA_ARCH_LIST="9.0 10.0"'
NVTE_COMMENT = "# CUDA architectures Transformer-Engine compiles kernels for (Hopper; Blackwell)."


def _uv_required(spec: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["project"]["uv_required_version"] = spec
    return change


# the README sentence that says where the site build writes (the line it starts on)
_SITE_LINE = next(n for n, line in enumerate((REPO / "README.md").read_text().splitlines(), 1)
                  if line.startswith("Build the site with `scripts/build-docs`"))

LATE_MUTATIONS = [
    # ---- UV_VERSION against NeMo-RL's [tool.uv] required-version
    Mutation("NeMo-RL requires a newer uv than the Dockerfile installs",
             snapshot_json(_uv_required(">=0.12")),
             ("[uv-vs-required]", "ARG UV_VERSION=0.11.33", "required-version >=0.12", "snapshot/nemo-rl.json:"),
             still=("uv-vs-required",), rules=('uv-vs-required',)),
    Mutation("UV_VERSION drops below the required version",
             edits(snapshot_json(_uv_required(">=0.11.0,<0.12")),
                   edit(DOCKERFILE, "ARG UV_VERSION=0.11.33", "ARG UV_VERSION=0.10.9")),
             ("[uv-vs-required]", "ARG UV_VERSION=0.10.9", "uv.version"), gone=("0.11.33",),
             still=("uv-vs-required",), rules=('stale-block', 'stale-value', 'uv-vs-required')),
    Mutation("a bare required-version pins another uv release",
             snapshot_json(_uv_required("0.11.32")),
             ("[uv-vs-required]", "required-version 0.11.32"), still=("uv-vs-required",), rules=('uv-vs-required',)),
    # ---- architecture names come from the lists
    Mutation("both arch lists trimmed to Blackwell: no page still says Hopper",
             edits(edit(DOCKERFILE, NVTE_ARCHS, 'ARG NVTE_CUDA_ARCHS="100"'),
                   edit(DOCKERFILE, TORCH_ARCHS, 'ARG TORCH_CUDA_ARCH_LIST="10.0"')),
             ("build-options", "cuda_arch.floor", "[arch-comment]", "names Hopper"),
             gone=("(Hopper; Blackwell)", "Hopper<!-- docgen:end-value"), still=("arch-comment",), rules=('arch-comment', 'review', 'stale-block', 'stale-value')),
    Mutation("the TE list gains consumer Blackwell",
             edit(DOCKERFILE, NVTE_ARCHS, 'ARG NVTE_CUDA_ARCHS="90;100;120"'),
             ("build-options",), gone=("kernels for (Hopper; Blackwell).",), rules=('review', 'stale-block')),
    Mutation("the arch comment names an architecture the list never had",
             edit(DOCKERFILE, NVTE_COMMENT, NVTE_COMMENT.replace("(Hopper;", "(Ampere; Hopper;")),
             ("[arch-comment]", "names Ampere", "NVTE_CUDA_ARCHS='90;100'"),
             planted=("Ampere",), still=("arch-comment",), rules=('arch-comment', 'unrecorded-sentence')),
    # ---- a script's default built on the script's own location (`$ROOT/site`) is a path from the top
    Mutation("the site build writes to another folder by default",
             edit("scripts/build-docs", "SITE_DIR=${1:-$ROOT/site}", "SITE_DIR=${1:-$ROOT/public}"),
             (f"README.md:{_SITE_LINE}: [review]", "scripts/build-docs:SITE_DIR, which changed from 'site' to 'public'"),
             still=("review",), rules=("review",)),
]


@pytest.mark.parametrize("mutation", LATE_MUTATIONS, ids=[m.name for m in LATE_MUTATIONS])
def test_late_mutation(mutation: Mutation, tmp_path: Path):
    exercise(mutation, tmp_path)


def test_trimmed_arch_lists_leave_no_hopper_on_the_build_pages(tmp_path: Path):
    """The issue's own case: after both lists lose 9.0, neither the options table nor the hardware page
    names Hopper (the Dockerfile's comment still does, and that is the one finding left)."""
    root = copy_repo(tmp_path / "repo")
    edits(edit(DOCKERFILE, NVTE_ARCHS, 'ARG NVTE_CUDA_ARCHS="100"'),
          edit(DOCKERFILE, TORCH_ARCHS, 'ARG TORCH_CUDA_ARCH_LIST="10.0"'))(root)
    for page in ("docs/building/options.md", "docs/building/hardware.md"):
        assert "Hopper" in (root / page).read_text()
    assert run("write", "--root", str(root))[0] == 0
    for page in ("docs/building/options.md", "docs/building/hardware.md"):
        assert "Hopper" not in (root / page).read_text(), page
    code, out = confirm_reviews(root, *run("check", "--root", str(root)))   # the sentences about the archs
    assert code == 1 and set(_FINDING.findall(out)) == {"arch-comment"}, out
    edit(DOCKERFILE, NVTE_COMMENT, NVTE_COMMENT.replace("(Hopper; Blackwell)", "(Blackwell)"))(root)
    assert run("write", "--root", str(root))[0] == 0   # the edited comment is a new sentence: recorded
    assert run("check", "--root", str(root)) == (0, "")


MCORE_WARM = "--extra mcore      # reuses automodel's TE wheel (cache keys on source, not extra)\n"
VLLM_FSDP_WARM = ("uv sync ${UV_SYNC_MODE} --no-install-project --extra vllm       # vllm wheel, deep_gemm/deep_ep builds\n"
                  "uv sync ${UV_SYNC_MODE} --no-install-project --extra fsdp       # flash-attn, mamba-ssm, causal-conv1d\n")


def _wrap_mcore_comment(second_line: str) -> Callable[[Path], None]:
    """The mcore warm step's trailing comment wrapped onto a comment line under its `#`."""
    def apply(root: Path) -> None:
        text = (root / DOCKERFILE).read_text()
        at = text.index(MCORE_WARM)
        column = at - text.rindex("\n", 0, at) - 1 + len("--extra mcore      ")
        edit(DOCKERFILE, MCORE_WARM, "--extra mcore      # the Megatron venv:\n" + " " * column + second_line + "\n")(root)
    return apply


def _warm_loop(*rows: str) -> Callable[[Path], None]:
    """The vllm and fsdp warm steps folded into one loop, with `extra: why` rows above it."""
    return edit(DOCKERFILE, VLLM_FSDP_WARM, "".join(f"# {row}\n" for row in rows)
                + 'for e in vllm fsdp; do uv sync ${UV_SYNC_MODE} --no-install-project --extra "$e"; done\n')


WARM_MUTATIONS = [
    Mutation("a warm comment calls a package the lock builds from source a wheel",
             edit(DOCKERFILE, "# builds Transformer-Engine once into the cache", "# the Transformer-Engine wheel"),
             ("[warm-order]", "`uv sync automodel` says transformer-engine comes as a wheel, but the lock builds"),
             planted=("the Transformer-Engine wheel",), still=("warm-order",), rules=('stale-block', 'warm-order')),
    Mutation("a wrapped warm comment whose second line names the wrong step",
             _wrap_mcore_comment("# reuses vllm's TE wheel"),
             ("[warm-order]", "says it reuses vllm's transformer-engine"),
             planted=("reuses vllm's TE wheel",), still=("warm-order",), rules=('stale-block', 'warm-order')),
    Mutation("warm steps folded into a loop whose rows name an extra it does not warm",
             _warm_loop("vllm: vllm wheel, deep_gemm/deep_ep builds", "fsdp: flash-attn, mamba-ssm, causal-conv1d",
                        "mcore: reuses automodel's TE wheel"),
             ("[warm-steps]", "names 'mcore', which this command does not warm"), still=("warm-steps",), rules=('stale-block', 'warm-steps')),
    Mutation("warm steps folded into a loop whose wrapped row claims a build the lock does not make",
             _warm_loop("vllm: vllm wheel, deep_gemm/deep_ep builds", "fsdp: flash-attn, mamba-ssm,",
                        "      causal-conv1d; builds Transformer-Engine"),
             ("[warm-order]", "`uv sync fsdp`"), still=("warm-order",), rules=('stale-block', 'warm-order')),
]


@pytest.mark.parametrize("mutation", WARM_MUTATIONS, ids=[m.name for m in WARM_MUTATIONS])
def test_warm_comment_mutation(mutation: Mutation, tmp_path: Path):
    exercise(mutation, tmp_path)
