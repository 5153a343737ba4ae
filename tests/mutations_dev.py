"""Issue 27, part 7: the development half of the mutations, as `split` in tests/mutations_corpus.py assigns them.

Written before the design; run by tests/test_generalise.py and bench/generalise.py --set dev.
"""

from __future__ import annotations

import re

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, Exclusion, actor, drop_actors, drop_extra,
                                    drop_member, edit, edits, install_in, keep_conflicts, move_actor,
                                    new_file, project_key, rename_actor, rename_extra, replace_package,
                                    requirement, snap)

CASES = [
Case("hist-2025-05-build-not-default-group", "2025-05-22", "817fb54df",
     snap(project_key("default_groups", ["dev"])),
     old=("default group, so the build requirements are part of every sync",),
     expect="the hand-written sentence in transformer-engine.md names the `build` group as a default group: check "
            "fails at that sentence (a default-group fact changed under it)"),
Case("hist-2025-12-gym-extra-renamed", "2025-12-04", "23d2beda4",
     snap(rename_extra("nemo_gym", "gym", "NEMO_GYM", "GYM")),
     old=("`NEMO_GYM`", "| `nemo_gym` | warmed"),
     expect="the Dockerfile still warms `--extra nemo_gym`, which the snapshot no longer has: write stops (exit 2) "
            "naming the Dockerfile line, or check fails on the warm step"),
Case("hist-2026-01-causal-conv1d-bump", "2026-01-11", "b2e4265d4",
     snap(replace_package("causal-conv1d==1.5.4", "causal-conv1d==1.6.0", version="1.6.0",
                          source="git+https://github.com/Dao-AILab/causal-conv1d?rev=67e0a9d1b2c3d4e5f60718293a4b5c6d7e8f9012"
                                 "#67e0a9d1b2c3d4e5f60718293a4b5c6d7e8f9012")),
     old=("`1.5.4`", "4f6ae4e26ae5fe8af9372f8d312ab25cc4595223"),
     expect="every source-build table and the per-extra package lists re-render with 1.6.0 and the new rev"),
Case("hist-2026-01-new-executable-class", "2026-01-22", "e480f8f01",
     snap(lambda d: d["project"]["extras"].__setitem__("omni", ["qwen-omni-utils"]),
          lambda d: d["lock"]["install_sets"].__setitem__("omni", list(d["lock"]["install_sets"][""])),
          lambda d: d["registry"]["executables"].__setitem__("OMNI", "uv run --locked --extra omni --directory {git_root}"),
          lambda d: d["registry"]["actors"].append({
              "actor": "nemo_rl.models.generation.omni.omni_worker.OmniGenerationWorker",
              "command": "uv run --locked --extra omni --directory {git_root}", "command_system": "sys.executable",
              "member": "OMNI", "source": "upstream"})),
     old=("29 (20 under uv, 9 on the system interpreter)", "| Actors without a prebuilt venv | 11 |"),
     expect="counts re-render (30 actors, 21 under uv, 12 without a venv); the Dockerfile's `# Not prefetched` list "
            "lacks the new worker: a finding on that comment"),
Case("hist-2026-03-flash-attn-wheel-bump", "2026-03-24", "29f588093",
     snap(replace_package(
         "flash-attn==2.8.1+cu13torch2.10cxx11abitrue@url:flash_attn-2.8.1+cu13torch2.10cxx11abiTRUE-cp313-cp313-linux_x86_64.whl",
         "flash-attn==2.8.3+cu13torch2.11cxx11abitrue@url:flash_attn-2.8.3+cu13torch2.11cxx11abiTRUE-cp313-cp313-linux_x86_64.whl",
         version="2.8.3+cu13torch2.11cxx11abitrue",
         source="url+https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/"
                "flash_attn-2.8.3+cu13torch2.11cxx11abiTRUE-cp313-cp313-linux_x86_64.whl")),
     old=("2.8.1+cu13torch2.10cxx11abitrue",),
     expect="the per-extra package tables re-render flash-attn 2.8.3"),
Case("hist-2026-05-quant-worker-v1-dropped", "2026-05-05", "cc75cadfe",
     snap(drop_actors("nemo_rl.modelopt.models.policy.workers.dtensor_quant_policy_worker.DTensorQuantPolicyWorker")),
     old=("dtensor_quant_policy_worker.DTensorQuantPolicyWorker`",),
     expect="the Dockerfile's `# Not prefetched` list names an actor the registry lost: a finding at that line; "
            "the actor tables re-render without it"),
Case("hist-2026-05-causal-conv1d-wheel", "2026-05-28", "d25ce82d7",
     snap(replace_package("causal-conv1d==1.5.4", "causal-conv1d==1.5.4", source_built=False, source_kind="registry",
                          source="registry+https://index.invalid/simple")),
     old=("`causal-conv1d` (fsdp → automodel → mcore)", "| `causal-conv1d` | `1.5.4` | git, built from source |"),
     expect="the shared-builds list and the per-extra tables drop causal-conv1d as a source build; the fsdp warm "
            "comment that names causal-conv1d as a build is a finding"),
Case("hist-2026-06-modelopt-rev", "2026-06-24", "9c4f2e549",
     snap(replace_package("nvidia-modelopt==0.46.0.dev86+gc3b913b9c", "nvidia-modelopt==0.47.0.dev3+g5e2d1a0b",
                          version="0.47.0.dev3+g5e2d1a0b",
                          source="git+https://github.com/NVIDIA/Model-Optimizer?rev=5e2d1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f"
                                 "#5e2d1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f")),
     old=("0.46.0.dev86",),
     expect="every modelopt row re-renders with the new version and rev"),
Case("hist-2026-07-trtllm-backend-dropped", "2026-07-23", "705340674",
     snap(drop_member("TRTLLM"), drop_extra("trtllm")),
     old=("`nvrx`, `sglang`, `trtllm`", "TrtllmAsyncGenerationWorker"),
     expect="extras and actor counts re-render; the Dockerfile's `# Not prefetched` list names the dropped worker: "
            "a finding at that line"),
Case("hist-2026-07-vllm-from-registry", "2026-07-30", "cf766d5f3",
     snap(replace_package("vllm==0.25.1@url:vllm-0.25.1-cp38-abi3-manylinux_2_28_x86_64.whl", "vllm==0.26.0",
                          version="0.26.0", source_kind="registry", source="registry+https://index.invalid/simple")),
     old=("0.25.1",),
     expect="the vLLM version value, the vllm table and the version transcripts re-render 0.26.0 from a registry"),
Case("hist-2026-08-extras-stop-conflicting", "2026-08-10", "728c7fadb",
     snap(keep_conflicts(lambda c: any(item["package"] for item in c))),
     old=("declared **mutually conflicting**",),
     expect="the hand-written sentence in workers.md says the backend extras are declared conflicting; the "
            "snapshot now declares no extra-against-extra conflict: check fails at that sentence (review on change)"),
Case("hist-2026-08-dynamo-to-vllm", "2026-08-19", "85e02cca3",
     snap(move_actor("nemo_rl.models.generation.dynamo.dynamo_worker.DynamoVllmWorker", "VLLM")),
     old=("29 (20 under uv, 9 on the system interpreter)", "`DynamoVllmWorker`, `MathEnvironment`"),
     expect="the actor counts and the SYSTEM row re-render; the Dockerfile's `# Not prefetched` list lacks the "
            "now-uv worker: a finding at that comment"),
Case("df-global-arg-shadowed", "m-002", "maintainer",
     edits(edit(DOCKERFILE, "ARG RUNTIME_GID=1000\n", "ARG RUNTIME_GID=1000\n# TE compile jobs for CI builders.\nARG NVTE_BUILD_MAX_JOBS=8\n"),
           edit(DOCKERFILE, "ARG NVTE_BUILD_MAX_JOBS=8\n# nvcc", "ARG NVTE_BUILD_MAX_JOBS=4\n# nvcc")),
     old=("| `NVTE_BUILD_MAX_JOBS` | `8` | `builder`",),
     expect="BuildKit uses the builder stage's own default, 4, where the TE build runs: the options table shows 4 "
            "for the builder stage (the global 8 applies nowhere it is used)"),
Case("df-python-install-dir", "m-004", "maintainer",
     edit(DOCKERFILE, "ENV UV_PYTHON_INSTALL_DIR=/opt/uv/python", "ENV UV_PYTHON_INSTALL_DIR=/opt/python"),
     old=("/opt/uv/python",),
     expect="the runtime table re-renders; the PYTHON_SOURCE comment the options table copies still says "
            "/opt/uv/python: a finding on that Dockerfile comment"),
Case("df-link-mode-copy", "m-006", "maintainer",
     edit(DOCKERFILE, "export UV_LINK_MODE=symlink", "export UV_LINK_MODE=copy", count=0),
     old=("UV_LINK_MODE=symlink",),
     expect="the link-mode prose on layering, runtime and inspect pages states symlink: check fails at those "
            "sentences; the ownership and symlink transcripts re-render"),
Case("df-ray-usage-stats-on", "m-008", "maintainer",
     edit(DOCKERFILE, "RAY_USAGE_STATS_ENABLED=0", "RAY_USAGE_STATS_ENABLED=1"),
     old=("| `RAY_USAGE_STATS_ENABLED` | `0` |",),
     expect="the runtime table re-renders 1"),
Case("df-modelopt-warmed-before-mcore", "m-010", "maintainer",
     edits(edit(DOCKERFILE, "uv sync ${UV_SYNC_MODE} --no-install-project --extra modelopt   # nvidia-modelopt from git\n", ""),
           edit(DOCKERFILE, "uv sync ${UV_SYNC_MODE} --no-install-project --extra mcore ",
                "uv sync ${UV_SYNC_MODE} --no-install-project --extra modelopt   # nvidia-modelopt from git\n"
                "uv sync ${UV_SYNC_MODE} --no-install-project --extra mcore ")),
     old=("(mcore → modelopt)",),
     expect="modelopt now builds nvidia-modelopt first and mcore reuses it: the shared-builds list re-renders "
            "(modelopt → mcore), and the warm-step table its order"),
Case("df-build-uid-stage-value", "m-012", "maintainer",
     edit(DOCKERFILE, "FROM base AS builder\nARG BUILD_UID\n", "FROM base AS builder\nARG BUILD_UID=2500\n"),
     old=("| `BUILD_UID` | `2000` | `(global)`, `base`, `builder`",),
     expect="BuildKit uses 2500 in builder and its child stage (USER, COPY --chown), 2000 in base: the options "
            "table shows the per-stage value, and the ownership transcripts of builder's files re-render"),
Case("bake-gym-target-renamed", "m-014", "maintainer",
     edit(BAKE, 'target "hermetic-gym" {', 'target "hermetic-gym-echo" {'),
     old=("`hermetic-gym`", "build/standin hermetic-gym\n"),
     expect="the pages name a bake target that no longer exists: check fails at those lines"),
Case("script-min-engine", "m-016", "maintainer",
     edit("scripts/check-engine", "MIN_ENGINE=28.5.0", "MIN_ENGINE=29.0.0"),
     old=("28.5.0",),
     expect="the engine minimum is quoted (under docgen:allow) on the options and hermetic pages: an allowed "
            "sentence whose fact changed still fails check (review on change), or the value is rendered"),
Case("page-value-typed-then-python-bump", "m-018", "maintainer",
     edit(DOCKERFILE, "ARG PYTHON_VERSION=3.13.14", "ARG PYTHON_VERSION=3.13.15"),
     old=("3.13.14",),
     setup=edit("docs/index.md", "<!-- docgen:value python.version -->3.13.14<!-- docgen:end-value -->", "3.13.14"),
     expect="the Python version typed by hand in index.md (its value marker removed) goes stale: check fails at "
            "that line; the tables re-render 3.13.15"),
Case("page-build-jobs-sentence-then-change", "m-020", "maintainer",
     edit(DOCKERFILE, "ARG NVTE_BUILD_MAX_JOBS=8", "ARG NVTE_BUILD_MAX_JOBS=6"),
     old=("8 parallel jobs",),
     setup=edit("docs/building/options.md", "## Engine\n",
                "Transformer-Engine compiles with 8 parallel jobs unless you say otherwise.\n\n## Engine\n"),
     expect="a hand-written sentence states the TE job default; after it changes, check fails at that sentence"),
Case("df-cmake-skipped", "m-022", "maintainer",
     edit(DOCKERFILE, "ARG CMAKE_SOURCE=download", "ARG CMAKE_SOURCE=apt"),
     old=("| `CMAKE_SOURCE` | `download` |",),
     expect="the options table re-renders apt"),
Case("df-nrl-container-moved", "m-024", "maintainer",
     edits(edit(DOCKERFILE, "    NRL_CONTAINER=1 \\\n", ""),
           edit(DOCKERFILE, "ENV VIRTUAL_ENV=/opt/nemo_rl_venv \\\n", "ENV VIRTUAL_ENV=/opt/nemo_rl_venv \\\n    NRL_CONTAINER=1 \\\n")),
     old=("| `NRL_CONTAINER` | `1` | `base` |",),
     expect="the runtime table re-renders NRL_CONTAINER as set in nmp-rl-base"),
Case("script-bootstrap-trixie", "m-026", "maintainer",
     edit("scripts/bootstrap", "on a fresh Debian bookworm machine", "on a fresh Debian trixie machine"),
     old=("Debian bookworm",),
     expect="the README's set-up section names the distribution bootstrap supports: check fails there"),
]
