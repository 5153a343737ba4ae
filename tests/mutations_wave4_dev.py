"""Wave 4 of the issue-27 generalisation corpus: the development half of the mutations.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet; the full wave-4 list was split by
`split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once. Run with bench/generalise.py --set wave4_dev.
"""

from __future__ import annotations

from pathlib import Path

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, actor, edit, edits, rename_actor, replace_package,
                                    snap)

# ------------------------------------------------------------------ edits these cases share
VLLM_REV = "5f1c2a9e3b7d4c6a8e0f1b2d3c4a5e6f7a8b9c0d"


def _cut(rel, start, end):
    """Remove the text of `rel` from the line that starts with `start` through the line that starts with `end`."""
    def apply(root: Path) -> None:
        path = root / rel
        lines = path.read_text().splitlines(keepends=True)
        first = next(i for i, line in enumerate(lines) if line.startswith(start))
        last = next(i for i, line in enumerate(lines) if i > first and line.startswith(end))
        path.write_text("".join(lines[:first] + lines[last + 1:]))
    return apply


def _insert_actor(after, fqn, member):
    """A new registry entry right after `after`, on an existing PY_EXECUTABLES member."""
    def change(data):
        reg = data["registry"]
        actor(data, after)
        at = next(i for i, a in enumerate(reg["actors"]) if a["actor"] == after) + 1
        reg["actors"].insert(at, {"actor": fqn, "command": reg["executables"][member],
                                  "command_system": "sys.executable", "member": member, "source": "upstream"})
    return change


def _rename_group(old, new):
    def change(data):
        project = data["project"]
        assert old in project["groups"], old
        project["groups"] = [new if g == old else g for g in project["groups"]]
        project["default_groups"] = [new if g == old else g for g in project["default_groups"]]
    return change


def _executables(old, new):
    """Every PY_EXECUTABLES command (and each actor's resolved command) with `old` replaced by `new`."""
    def change(data):
        reg = data["registry"]
        reg["executables"] = {k: v.replace(old, new) for k, v in reg["executables"].items()}
        for a in reg["actors"]:
            a["command"] = a["command"].replace(old, new)
            a["command_system"] = a["command_system"].replace(old, new)
    return change


def _vllm_requirement_from_git(data):
    reqs = data["project"]["extras"]["vllm"]
    at = next(i for i, r in enumerate(reqs) if r.startswith("vllm "))
    kept = [r for r in reqs if not (r.startswith("vllm ") or r.startswith("vllm=="))]
    kept.insert(at, f"vllm @ git+https://github.com/vllm-project/vllm.git@{VLLM_REV}")
    data["project"]["extras"]["vllm"] = kept


CASES = [
Case("w4-up-megatron-worker-module-moved", "2027-01-04", "upstream-style",
     snap(rename_actor("nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker",
                       "nemo_rl.models.megatron.policy_worker.MegatronPolicyWorker")),
     old=("(nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker)",),
     expect="upstream moves the Megatron policy worker into a `nemo_rl.models.megatron` package, class name unchanged: "
            "the filter `megatron_policy_worker.MegatronPolicyWorker` selects nothing, so the mcore venv is no longer "
            "prefetched (findings at the Dockerfile's filter, count comment, verification loop and `# Not prefetched` "
            "list); the glossary's FQN entry, whose example is that worker's old dotted path, names an actor the "
            "registry no longer has: check fails at that line"),
Case("w4-up-base-member-gains-actor", "2027-01-08", "upstream-style",
     snap(_insert_actor("nemo_rl.environments.tools.retriever.RAGEnvironment",
                        "nemo_rl.utils.checkpoint_uploader.CheckpointUploaderActor", "BASE")),
     old=("| `BASE` | `uv run --locked --directory /opt/nemo-rl` | (base) | (none by default) |",
          "| Registry actors | 29 (20 under uv, 9 on the system interpreter) |"),
     expect="upstream adds a checkpoint-upload actor on the BASE member (a venv with the base dependencies only), "
            "which no prefetch filter selects: the registry counts, the PY_EXECUTABLES and actor tables and the "
            "not-prefetched table re-render (30 actors, 12 without a prebuilt venv); the Dockerfile's "
            "`# Not prefetched` list lacks the new actor: a finding at that comment"),
Case("w4-up-vllm-built-from-git", "2027-01-13", "upstream-style",
     snap(_vllm_requirement_from_git,
          replace_package("vllm==0.25.1@url:vllm-0.25.1-cp38-abi3-manylinux_2_28_x86_64.whl",
                          "vllm==0.25.2.dev41+g5f1c2a9e3", version="0.25.2.dev41+g5f1c2a9e3", source_kind="git",
                          source_built=True,
                          source=f"git+https://github.com/vllm-project/vllm.git?rev={VLLM_REV}#{VLLM_REV}")),
     old=("vllm wheel, deep_gemm/deep_ep builds", "| `vllm` | `0.25.1` | url |"),
     expect="NeMo-RL pins vLLM to an unreleased commit, built from git: the vLLM version value, the vllm package "
            "tables, source-build tables and version transcripts re-render; the Dockerfile's warm comment 'vllm "
            "wheel, deep_gemm/deep_ep builds', which the warm-steps table copies, now misnames a source build as a "
            "wheel: a finding at that comment (write cannot fix it)"),
Case("w4-up-executables-frozen", "2027-01-25", "upstream-style",
     snap(_executables("uv run --locked", "uv run --frozen")),
     old=("| `FSDP` | `uv run --locked --extra fsdp --directory /opt/nemo-rl` | `fsdp` |",
          "| `NEMO_GYM` | `uv run --locked --extra nemo_gym --directory /opt/nemo-rl` |"),
     expect="NeMo-RL starts its actors with `uv run --frozen` instead of `--locked` (no lock check at each actor "
            "start): the PY_EXECUTABLES table re-renders every command"),
Case("w4-df-venv-parents-no-sticky", "w4-m-002", "maintainer",
     edit(DOCKERFILE,
          "# Venv parents: the runtime group may add venvs (set-group-ID keeps them in that group); the sticky bit\n"
          "# stops it renaming or removing the build user's venvs.\n"
          'install -d -o "${BUILD_UID}" -g "${RUNTIME_GID}" -m 3775 /opt/ray_venvs /opt/gym_venvs\n',
          "# Venv parents: the runtime group may add venvs (set-group-ID keeps them in that group) and move a broken\n"
          "# one aside (NeMo-RL renames it before it rebuilds), so no sticky bit.\n"
          'install -d -o "${BUILD_UID}" -g "${RUNTIME_GID}" -m 2775 /opt/ray_venvs /opt/gym_venvs\n'),
     old=("the sticky bit keeps the group from renaming or deleting the build user's venvs",
          "2000:1000 drwxrwsr-t /opt/ray_venvs"),
     expect="the venv parents lose the sticky bit (mode 2775): the ownership transcript re-renders drwxrwsr-x; "
            "inspect.md's hand-written 'the sticky bit keeps the group from renaming or deleting the build user's "
            "venvs' is false: check fails at that sentence"),
Case("w4-df-final-user-dropped", "w4-m-004", "maintainer",
     edit(DOCKERFILE,
          "    PATH=/opt/nemo_rl_venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
          "USER ${RUNTIME_UID}:${RUNTIME_GID}\n",
          "    PATH=/opt/nemo_rl_venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
          "# No USER: the platform's pod spec sets runAsUser/runAsGroup to RUNTIME_UID:RUNTIME_GID.\n"),
     old=("The image runs as an unprivileged user, not root.", "$ id -u\n1000\n"),
     expect="the published stage no longer ends with `USER`, so the image's own default user is root (the last USER "
            "of the stage): the runtime-user transcript re-renders 0; inspect.md's hand-written 'The image runs as "
            "an unprivileged user, not root.' is false for a plain `docker run`: check fails at that sentence"),
Case("w4-df-base-merged-into-builder", "w4-m-006", "maintainer",
     edits(edit(DOCKERFILE, "FROM ${BASE_IMAGE} AS base\n", "FROM ${BASE_IMAGE} AS builder\n"),
           edit(DOCKERFILE, "FROM base AS builder\nARG BUILD_UID\n", "")),
     old=("The base stage installs nothing",
          "| `base` | `nvcr.io/nvidia/cuda-dl-base:26.07-cuda13.3-devel-ubuntu24.04` | copies `/uv`, `/uvx` from `uv` |"),
     expect="nothing else builds FROM base, so a maintainer merges base into builder (one stage from the CUDA image): "
            "the stage tables, graphs and the options table's 'Declared in' re-render; hermetic.md's hand-written "
            "'The base stage installs nothing' names a stage the Dockerfile no longer has: check fails at that line"),
Case("w4-df-prefetch-tool-moved", "w4-m-008", "maintainer",
     edit(DOCKERFILE, "uv run --locked python nemo_rl/utils/prefetch_venvs.py \\",
          "uv run --locked python tools/prefetch_venvs.py \\"),
     old=("NeMo-RL's own tool, `nemo_rl/utils/prefetch_venvs.py`",
          "| Ray worker venvs | `/opt/ray_venvs` | `nemo_rl/utils/prefetch_venvs.py` |"),
     expect="upstream moved the prefetch tool to tools/ and the Dockerfile follows: the venv-layers table re-renders; "
            "venvs.md's opening sentence names the tool's old path: check fails at that line"),
Case("w4-bake-uv-stage-context", "w4-m-010", "maintainer",
     edits(edit("scripts/make-local-images",
                "#   ghcr.io/astral-sh/uv:0.11.33   the static (musllinux) uv binary from PyPI's wheel, under the registry name\n"
                "#                                  so `FROM ghcr.io/astral-sh/uv:${UV_VERSION}` resolves locally\n",
                "#   local/uv:0.11.33               the static (musllinux) uv binary from PyPI's wheel; the hermetic bake\n"
                "#                                  target hands it to the `uv` stage as a named build context\n"),
           edit("scripts/make-local-images", "UV_TAG=ghcr.io/astral-sh/uv:$UV_VERSION", "UV_TAG=local/uv:$UV_VERSION"),
           edit(BAKE, '    nemo-rl = "${STANDIN_DIR}"\n',
                '    nemo-rl = "${STANDIN_DIR}"\n    uv      = "docker-image://local/uv:0.11.33"\n')),
     old=("the local one `scripts/make-local-images` tags under the registry name",),
     expect="the local uv image is no longer tagged under ghcr.io's name: make-local-images tags local/uv:0.11.33 and "
            "the hermetic target replaces the `uv` stage with it through a named context. hermetic.md's hand-written "
            "'the local one `scripts/make-local-images` tags under the registry name' is false: check fails there"),
Case("w4-script-build-docs-out-dir", "w4-m-012", "maintainer",
     edits(edit("scripts/build-docs", "#   scripts/build-docs [SITE_DIR]     (default: site/)",
                "#   scripts/build-docs [SITE_DIR]     (default: build/site/)"),
           edit("scripts/build-docs", "SITE_DIR=${1:-$ROOT/site}", "SITE_DIR=${1:-$ROOT/build/site}")),
     old=("(output in `site/`)", "mkdocs build --strict into site/"),
     expect="build-docs writes the site under build/ with every other build output: the README's '(output in "
            "`site/`)' and the code comment in contributing.md's site section are false: check fails at those lines"),
Case("w4-df-arch-drops-hopper", "w4-m-014", "maintainer",
     edits(edit(DOCKERFILE, 'ARG NVTE_CUDA_ARCHS="90;100"', 'ARG NVTE_CUDA_ARCHS="100;120"'),
           edit(DOCKERFILE, 'ARG TORCH_CUDA_ARCH_LIST="9.0 10.0"', 'ARG TORCH_CUDA_ARCH_LIST="10.0 12.0"')),
     old=("CUDA architectures Transformer-Engine compiles kernels for (Hopper; Blackwell).",
          "compute capability 9.0, Hopper, and newer"),
     expect="the image drops Hopper and adds Blackwell workstation GPUs (sm_120), but the comments above both ARGs still "
            "say '(Hopper; Blackwell)': the architecture floor value re-renders 10.0 / Blackwell; the ARG comments, "
            "which the options table copies, are findings at those Dockerfile lines"),
Case("w4-df-verify-loop-removed", "w4-m-016", "maintainer",
     _cut(DOCKERFILE, "# Fail here, not at the first training run", "done"),
     old=("After the prefetch, the build checks that each venv it expects has an interpreter",
          "verify each of 9 venv interpreters"),
     expect="a maintainer drops the Dockerfile's verification loop (docgen lint checks the filters against the "
            "registry): the build diagram loses its verify step; add-worker.md's hand-written 'After the prefetch, "
            "the build checks that each venv it expects has an interpreter' (and its step 2) describe a loop that "
            "is gone: check fails there"),
Case("w4-df-secret-id-renamed-bake-not", "w4-m-018", "maintainer",
     edits(edit(DOCKERFILE, "id=cacert", "id=ca-bundle", count=0),
           edit(DOCKERFILE, "/run/secrets/cacert", "/run/secrets/ca-bundle", count=0)),
     old=("The CA bundle for the package index reaches the build as a BuildKit secret",),
     expect="the Dockerfile's secret id is renamed ca-bundle but docker-bake.hcl still passes id=cacert: the secret "
            "never mounts (every RUN skips it silently), so hermetic.md's 'The CA bundle for the package index "
            "reaches the build as a BuildKit secret' is false: check must fail, naming the bake secret the "
            "Dockerfile no longer reads"),
]
