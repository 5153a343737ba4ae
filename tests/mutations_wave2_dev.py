"""Wave 2 of the issue-27 generalisation corpus: the development half of the mutations.

Written before the design, by someone who had read only the first wave's development cases; the full
wave-2 list was split by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the
development set, even positions are held out) and written out here once. Run with
bench/generalise.py --set wave2_dev.
"""

from __future__ import annotations

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, edit, edits, install_in, rename_actor, snap)

CASES = [
Case("w2-up-fsdp-reaches-te", "2026-09-03", "upstream-style",
     snap(install_in("transformer-engine==2.15.0+42b8400", "fsdp"),
          lambda d: [s.__setitem__("extras", ["fsdp", "automodel", "mcore"]) for s in d["lock"]["shared_builds"]
                     if s["package"] == "transformer-engine==2.15.0+42b8400"]),
     old=("`fsdp` (plain PyTorch FSDP2) and `vllm` (its own kernels) do not",
          "`transformer-engine` (automodel → mcore)"),
     expect="the fsdp extra now pulls Transformer-Engine (FSDP2 gained TE layers upstream): the te-consumers table and "
            "shared builds re-render (fsdp → automodel → mcore); the hand-written sentence in transformer-engine.md "
            "saying fsdp does not reach TE is false: check fails at it; the automodel warm comment that says it builds "
            "TE is a finding too (fsdp builds it first)"),
Case("w2-up-sync-rollout-actor-renamed", "2026-10-02", "upstream-style",
     snap(rename_actor("nemo_rl.experience.sync_rollout_actor.SyncRolloutActor",
                       "nemo_rl.experience.rollout_actor.RolloutActor")),
     old=("nemo_rl.experience.sync_rollout_actor.SyncRolloutActor", "python-SyncRolloutActor"),
     expect="the Dockerfile's filter sync_rollout_actor.SyncRolloutActor now matches nothing and its verification loop "
            "names an actor the registry lost: findings at those Dockerfile lines; venv counts and console transcripts "
            "re-render (8 venvs)"),
Case("w2-up-vllm-drops-deep-ep", "2026-11-12", "upstream-style",
     snap(lambda d: [d["lock"]["install_sets"].__setitem__(k, [p for p in v if not p.startswith("deep-ep==")])
                     for k, v in list(d["lock"]["install_sets"].items()) if "vllm" in k.split("+")],
          lambda d: [s.__setitem__("extras", ["automodel", "mcore"]) for s in d["lock"]["shared_builds"]
                     if s["package"].startswith("deep-ep==")]),
     old=("vllm wheel, deep_gemm/deep_ep builds", "`deep-ep` (vllm → automodel → mcore)"),
     expect="vLLM stops depending on DeepEP: the shared-builds list re-renders (automodel → mcore); the vllm warm "
            "comment, copied into the warm-up tables, still says the step builds deep_ep: a finding at that Dockerfile "
            "comment (a warm comment claims a build the lock no longer gives)"),
Case("w2-bake-hermetic-tag", "w2-m-002", "maintainer",
     edit(BAKE, 'tags   = ["nmp-rl-base:hermetic"]', 'tags   = ["nmp-rl-base:hermetic-ci"]'),
     old=("docker run --rm -it nmp-rl-base:hermetic bash",),
     expect="inspect.md's indented command runs a tag no bake target produces any more: check fails at that line"),
Case("w2-bake-gym-two-servers", "w2-m-004", "maintainer",
     edit(BAKE, 'NEMO_GYM_PREFETCH_CONFIGS = "resources_servers/standin_echo/configs/standin_echo.yaml"',
          'NEMO_GYM_PREFETCH_CONFIGS = "resources_servers/standin_echo/configs/standin_echo.yaml '
          'resources_servers/standin_math/configs/standin_math.yaml"'),
     old=("sets it to the stand-in's one server", "one Gym environment server, so the Gym venv step runs too"),
     expect="the hermetic-gym target now prefetches two Gym servers: the sentences in options.md and hermetic.md that "
            "say it sets the stand-in's one server are false: check fails at them"),
Case("w2-bake-cache-vars-renamed", "w2-m-006", "maintainer",
     edits(edit(BAKE, "CACHE_FROM_REF", "BUILD_CACHE_FROM", count=0), edit(BAKE, "CACHE_TO_REF", "BUILD_CACHE_TO", count=0)),
     old=("CACHE_FROM_REF=registry.example.com", "CACHE_TO_REF=registry.example.com", "`CACHE_TO_REF` exports"),
     expect="options.md's hand-written command sets bake variables that no longer exist (bake ignores them silently, "
            "so the build runs without a cache): check fails at those lines"),
Case("w2-script-publish-dev-as-main", "w2-m-008", "maintainer",
     edits(edit("scripts/publish-docs", "branch) version=dev ;;", "branch) version=main ;;"),
           edit("scripts/publish-docs", '"$mike" deploy dev', '"$mike" deploy main'),
           edit("scripts/publish-docs", '"$mike" set-default dev; default=dev', '"$mike" set-default main; default=main'),
           edit("scripts/publish-docs", "the development version `dev`", "the development version `main`")),
     old=("`dev` and each release tag", "every version but `latest` and `dev`"),
     expect="contributing.md names the development version publish-docs deploys; it is now `main`: check fails there"),
Case("w2-script-build-image-skips-engine-check", "w2-m-010", "maintainer",
     edits(edit("scripts/build-image", "scripts/docker-engine start\nscripts/check-engine\n", "scripts/docker-engine start\n"),
           edit("scripts/build-image", "and check it is 28.5.0 or newer (scripts/check-engine)", "")),
     old=("`scripts/build-image` runs `scripts/check-engine` first", "checks the version with `scripts/check-engine` before it builds"),
     expect="build-image no longer runs check-engine: the options and hermetic pages (and the Dockerfile header) still "
            "say it checks the engine first: check fails at those sentences"),
Case("w2-df-builder-stage-renamed", "w2-m-012", "maintainer",
     edits(edit(DOCKERFILE, "FROM base AS builder\n", "FROM base AS warm\n"),
           edit(DOCKERFILE, "FROM builder AS nmp-rl-base\n", "FROM warm AS nmp-rl-base\n")),
     old=("(`FROM builder`)", "of the builder stage (the expensive warm-up)"),
     expect="stage tables and diagrams re-render `warm`; layering.md's hand-written `FROM builder` and options.md's "
            "'builder stage' name a stage that no longer exists: check fails at those lines"),
Case("w2-df-cmake-kept", "w2-m-014", "maintainer",
     edits(edit(DOCKERFILE, "# Build-only tooling: CMake and stray caches (uv itself stays: actors run through `uv run`).",
                "# Stray caches (CMake and uv stay: jobs that JIT-compile extensions need CMake at run time)."),
           edit(DOCKERFILE, "rm -rf /usr/local/bin/cmake /usr/local/bin/ctest /usr/local/bin/cpack /usr/local/share/cmake-* \\\n  /root/.cache",
                "rm -rf /root/.cache")),
     old=("CMake and stray caches",),
     expect="the published stage keeps CMake now; layering.md's hand-written 'it only removes CMake and stray "
            "caches' is false: check fails at that line"),
Case("w2-df-sglang-warmed", "w2-m-016", "maintainer",
     edit(DOCKERFILE, "uv sync ${UV_SYNC_MODE} --no-install-project --extra nemo_gym   # the Gym workspace member\n",
          "uv sync ${UV_SYNC_MODE} --no-install-project --extra nemo_gym   # the Gym workspace member\n"
          "uv sync ${UV_SYNC_MODE} --no-install-project --extra sglang     # sglang wheels, so its worker venv builds fast\n"),
     old=("| Extras not warmed | `nvrx`, `sglang`, `trtllm` |", "backend not built: `sglang` not warmed in the image"),
     expect="the warmed-extras lists and not-prefetched reasons re-render; the Dockerfile's `# Not prefetched` line "
            "'sglang backend not built' is now false: a finding at that comment"),
Case("w2-df-base-image-cuda-13-4", "w2-m-018", "maintainer",
     edit(DOCKERFILE, "cuda-dl-base:26.07-cuda13.3-devel-ubuntu24.04", "cuda-dl-base:26.09-cuda13.4-devel-ubuntu24.04"),
     old=("cuda-dl-base:26.07-cuda13.3-devel-ubuntu24.04", ":26.07-cuda13.3-devel-ubuntu24.04"),
     expect="the stage tables, graphs and options table re-render the new base image"),
Case("w2-cfg-readme-unowned-then-warm-dropped", "w2-m-020", "maintainer",
     edit(DOCKERFILE, "uv sync ${UV_SYNC_MODE} --no-install-project --extra modelopt   # nvidia-modelopt from git\n", ""),
     setup=edit("pyproject.toml", 'pages = ["README.md", "docs/**/*.md"]', 'pages = ["docs/**/*.md"]'),
     old=("| Extras warmed in the uv cache | `vllm`, `fsdp`, `automodel`, `mcore`, `modelopt`, `nemo_gym` |",
          "`nvidia-modelopt` (mcore → modelopt)"),
     expect="README.md still holds docgen blocks but is no longer an owned page: after modelopt stops being warmed "
            "its quick inventory goes stale unseen. A careful checker reports a page with docgen markers outside "
            "`pages` (or keeps owning it)"),
]
