"""Wave 7 of the issue-27 generalisation corpus: the held-out half of the mutations.

Written before the design, by someone who did not read the checker (docgen/) and had read only the pages, the
inputs, NeMo-RL's reference checkout and the earlier waves' cases, to name kinds of change none of them had
named: instructions and settings the image never had, a RUN step's own shell settings, lines reordered or
re-indented under the commands the pages type, checked comments deleted, values derived at build time instead
of build arguments, quoting style, private copies extended, a backend dropped under titles, headings and link
texts, bake platforms and groups, scripts' subcommands, options, outputs, targets and dependencies, and
NeMo-RL changes that hand-written prose and tables describe in words. Each `old` is on today's pages and false
after the change; a few cases first make a maintainer's page edit (`setup`) that the change then falsifies.
The full wave-7 list was split by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are
the development set, even positions are held out) and written out here once.
Run with bench/generalise.py --set wave7_heldout.
"""

from __future__ import annotations

from pathlib import Path

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, actor, drop_actors, edit, edits, snap)

# ------------------------------------------------------------------ what these cases share
MEGATRON = "nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker"
MEGATRON_QUANT = ("nemo_rl.modelopt.models.policy.workers.megatron_quant_policy_worker."
                  "MegatronQuantPolicyWorker")
FILTERS_SORTED = ("  broker_actor.SandboxEpisodeBrokerActor \\\n"
                  "  dtensor_policy_worker.DTensorPolicyWorker \\\n"
                  "  dtensor_policy_worker_v2.DTensorPolicyWorkerV2 \\\n"
                  "  megatron_policy_worker.MegatronPolicyWorker \\\n"
                  "  nemo_gym.NemoGym \\\n"
                  "  nemo_gym_actor.SandboxedGymActor \\\n"
                  "  sync_rollout_actor.SyncRolloutActor \\\n"
                  "  vllm.vllm_worker\n")


def _replace_lines(rel, start, end, new):
    """Replace the lines of `rel` from the one that starts with `start` through the next one that starts with
    `end` by `new`."""
    def apply(root: Path) -> None:
        path = root / rel
        lines = path.read_text().splitlines(keepends=True)
        first = next(i for i, line in enumerate(lines) if line.startswith(start))
        last = next(i for i, line in enumerate(lines) if i > first and line.startswith(end))
        path.write_text("".join(lines[:first]) + new + "".join(lines[last + 1:]))
    return apply


def _actor_update(fqn, **fields):
    """One registry entry's fields changed."""
    def change(data):
        actor(data, fqn).update(fields)
    return change


def _union_install_set(name, *parts):
    """A new install set: the packages of the named sets together (uv's lock for a combination of extras)."""
    def change(data):
        sets = data["lock"]["install_sets"]
        assert name not in sets, name
        sets[name] = sorted(set().union(*(sets[p] for p in parts)))
    return change


def _drop_install_set(name):
    def change(data):
        del data["lock"]["install_sets"][name]
    return change


CASES = [
Case("w7-up-megatron-worker-gains-nvrx", "2027-04-09", "upstream-style",
     snap(_actor_update(MEGATRON, member=None,
                        command="uv run --locked --extra mcore --extra nvrx --directory {git_root}"),
          _union_install_set("mcore+nvrx", "mcore", "nvrx")),
     old=("Megatron (extra `mcore`, `MegatronPolicyWorker`)", "| `nvrx` | not warmed | — |"),
     expect="upstream runs the Megatron policy worker with nvidia-resiliency-ext's in-process restart: its registry "
            "line becomes an inline `uv run --locked --extra mcore --extra nvrx`, so its prefetched venv installs "
            "the unwarmed nvrx extra too. The actor tables, the extras table (nvrx now has an actor) and the venv "
            "inventory re-render; workflows.md's hand-written definition term 'Megatron (extra `mcore`, "
            "`MegatronPolicyWorker`)' names one of its two extras: check fails at that line (a note that a "
            "prefetched venv needs an extra no warm step warms is welcome too)"),
Case("w7-up-megatron-quant-worker-dropped", "2027-04-22", "upstream-style",
     edits(snap(drop_actors(MEGATRON_QUANT), _drop_install_set("mcore+modelopt")),
           edit(DOCKERFILE, "#   nemo_rl.modelopt.models.policy.workers.megatron_quant_policy_worker.MegatronQuantPolicyWorker: "
                            "quantization worker, builds on first use\n", "")),
     old=("The quantization-aware training path (Model Optimizer) is wired into the Megatron worker.",),
     expect="upstream removes the Megatron quantization worker (quantization-aware training stays on the DTensor "
            "workers); the bump PR drops its `# Not prefetched` line. Actor counts (28), the actor tables and "
            "mcore.md's actor list re-render; mcore.md's hand-written capability table row 'NVFP4 "
            "quantization-aware RL ... The quantization-aware training path (Model Optimizer) is wired into the "
            "Megatron worker.' names a Megatron quantization path the registry no longer has: check fails at that "
            "row"),
Case("w7-df-prefetch-filters-sorted", "m-702", "maintainer",
     edits(_replace_lines(DOCKERFILE, "  dtensor_policy_worker.DTensorPolicyWorker \\", "  broker_actor.SandboxEpisodeBrokerActor",
                          FILTERS_SORTED),
           edit(DOCKERFILE, "# Eight filters -> nine venvs.\n",
                "# Filters in sorted order: a new one goes in its place, not at the end.\n# Eight filters -> nine venvs.\n")),
     old=("s|^  broker_actor.SandboxEpisodeBrokerActor$|&", "Add it as the last argument of the prefetch\ncall"),
     expect="a maintainer sorts the prefetch filters (fewer merge conflicts) and says a new one goes in its place: the "
            "filter table and the lists in filter order re-render; add-worker.md's step 1 ('Add it as the last "
            "argument of the prefetch call', and its `sed` that appends after the unescaped last line "
            "`  broker_actor.SandboxEpisodeBrokerActor`, now the first filter with a continuation backslash) adds "
            "nothing, so the findings its transcript shows never come: check fails at the runbook's command"),
Case("w7-df-gpu-check-entrypoint", "m-704", "maintainer",
     edit(DOCKERFILE, 'echo "vllm copied into $copied venvs"\nEOF\n',
          'echo "vllm copied into $copied venvs"\nEOF\n'
          "# Refuse to start on a GPU older than the oldest architecture the kernels are compiled for (compute\n"
          "# capability 9.0, the floor of TORCH_CUDA_ARCH_LIST and NVTE_CUDA_ARCHS): a clear message at start instead\n"
          "# of the first kernel's \"no kernel image is available\". A machine without a GPU starts as before.\n"
          'COPY --chmod=0755 <<"EOF" /usr/local/bin/nmp-gpu-check\n'
          "#!/bin/bash\n"
          "set -eu\n"
          "if command -v nvidia-smi >/dev/null 2>&1; then\n"
          "  for cap in $(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null || true); do\n"
          '    if [ "$(printf \'%s\\n9.0\\n\' "$cap" | sort -V | head -n1)" != 9.0 ]; then\n'
          '      echo "nmp-rl-base: GPU compute capability $cap is older than 9.0, the oldest this image has kernels for" >&2\n'
          "      exit 1\n"
          "    fi\n"
          "  done\n"
          "fi\n"
          'exec "$@"\n'
          "EOF\n"
          'ENTRYPOINT ["/usr/local/bin/nmp-gpu-check"]\n'),
     old=("Nothing checks the GPU when a\ncontainer starts", "On an older GPU the container starts and CPU-side work runs"),
     expect="the published stage gains an ENTRYPOINT (a script written with a COPY heredoc) that refuses to start on a "
            "GPU below compute capability 9.0 and otherwise execs the command: hardware.md's hand-written 'Nothing "
            "checks the GPU when a container starts' and 'On an older GPU the container starts and CPU-side work "
            "runs, but the first kernel ... fails' are false: check fails at those lines"),
Case("w7-script-publish-docs-no-root-404", "m-706", "maintainer",
     edits(edit("scripts/publish-docs",
                "After each deploy the default version's 404.html is copied to the branch's root, where\n"
                "# GitHub Pages looks for the 404 page of the whole project site: its links are absolute, into that version.\n",
                "Only mike's own commits touch gh-pages: a path outside every version\n"
                "# gets GitHub Pages' own 404 page.\n"),
           _replace_lines("scripts/publish-docs", "# the root 404.html", "fi", "")),
     old=("puts the default version's `404.html` at the branch's root",),
     expect="publish-docs stops committing the default version's 404.html at gh-pages' root (the custom 404 page "
            "misled readers of other versions): contributing.md's hand-written 'and puts the default version's "
            "`404.html` at the branch's root' is false: check fails at that line"),
Case("w7-script-build-docs-vendored-mermaid", "m-708", "maintainer",
     edits(edit("scripts/build-docs",
                "# 1. npm installs the mermaid version pinned in package.json (npm reads its registry from the\n"
                "#    machine's config; no lock file is written, so no registry host lands in the tree).\n"
                "# 2. The self-contained mermaid.min.js is copied into docs/assets/js/ (git-ignored), where the\n",
                "# 1. The mermaid.min.js committed under vendor/mermaid/ is held to the sha256 recorded beside it\n"
                "#    (vendor/mermaid/VERSION): no package manager runs and nothing is fetched.\n"
                "# 2. That file is copied into docs/assets/js/ (git-ignored), where the\n"),
           edit("scripts/build-docs",
                "; and npm, unless the\n# pinned mermaid is already in node_modules/. All of this is checked before anything is built or fetched.\n",
                ". All of this is checked\n# before anything is built.\n"),
           _replace_lines("scripts/build-docs", "pinned=$(", "fi",
                          "# the vendored mermaid, held to the digest recorded beside it\n"
                          "read -r version digest <vendor/mermaid/VERSION\n"
                          'echo "$digest  vendor/mermaid/mermaid.min.js" | sha256sum -c --quiet - \\\n'
                          '  || need "vendor/mermaid/mermaid.min.js does not match the sha256 in vendor/mermaid/VERSION (mermaid $version)."\n'),
           _replace_lines("scripts/build-docs", "# npm install without a lock file", "fi", ""),
           edit("scripts/build-docs", 'cp node_modules/mermaid/dist/mermaid.min.js "$staged"',
                'cp vendor/mermaid/mermaid.min.js "$staged"'),
           edit("scripts/bootstrap", ", debootstrap (base image), npm (docs site)\"", ", debootstrap (base image)\""),
           edit("scripts/bootstrap", "command -v npm >/dev/null || missing+=(npm)\n", "")),
     old=("# npm installs the pinned mermaid", "mermaid is installed from `package.json` (one exact version)"),
     expect="build-docs stops installing mermaid with npm: the file is vendored under vendor/mermaid/ and held to a "
            "recorded sha256, and bootstrap no longer installs npm. contributing.md's hand-written 'mermaid is "
            "installed from `package.json` (one exact version)' and its code comment 'scripts/build-docs  # npm "
            "installs the pinned mermaid, then mkdocs build --strict into site/' are false: check fails at those "
            "lines"),
Case("w7-bake-production-multi-platform", "m-710", "maintainer",
     edit(BAKE, 'target "production" {\n  inherits   = ["_image"]\n  tags       = ["nmp-rl-base:latest"]\n',
          'target "production" {\n  inherits   = ["_image"]\n  tags       = ["nmp-rl-base:latest"]\n'
          "  // Grace-based nodes (GH200, GB200) are aarch64: one image index for both architectures.\n"
          '  platforms  = ["linux/amd64", "linux/arm64"]\n'),
     old=("builds for x86-64 machines only",),
     expect="after a maintainer wrote in hardware.md that the `production` bake target builds for x86-64 machines "
            "only, the production target gains `platforms = [\"linux/amd64\", \"linux/arm64\"]` for Grace-based "
            "nodes: the recorded sentence names the target, whose attributes changed, and is false: check fails "
            "at it (review)",
     setup=edit("docs/building/hardware.md", "memory and time for the compile jobs.\n",
                "memory and time for the compile jobs.\n\nThe `production` bake target builds for x86-64 machines "
                "only: it names no other\nplatform, so an Arm server cannot run the image it makes.\n")),
Case("w7-df-uv-no-editable", "m-712", "maintainer",
     edit(DOCKERFILE,
          "# The cache lives in the image, not in a cache mount: venvs are symlinked into it.\n"
          "ENV UV_PROJECT_ENVIRONMENT=/opt/nemo_rl_venv \\\n    UV_CACHE_DIR=/opt/uv_cache\n",
          "# The cache lives in the image, not in a cache mount: venvs are symlinked into it. Workspace members and\n"
          "# editable sources are installed as built wheels, so no venv reads the checkout's sources at run time.\n"
          "ENV UV_PROJECT_ENVIRONMENT=/opt/nemo_rl_venv \\\n    UV_CACHE_DIR=/opt/uv_cache \\\n    UV_NO_EDITABLE=1\n"),
     old=("Packages installed from a source tree (editable installs) point back into the checkout",),
     expect="the builder stage sets UV_NO_EDITABLE=1 (kept at run time), so the warm-up syncs and the prefetch "
            "install Megatron-Bridge, Megatron-Core, NeMo Automodel and NeMo-Gym as wheels built into the cache, "
            "not as editable installs: the runtime-env table gains the variable; layering.md's hand-written "
            "'Packages installed from a source tree (editable installs) point back into the checkout ... instead "
            "of the cache' is false: check fails at that line"),
Case("w7-script-build-image-gym-target", "m-714", "maintainer",
     edits(edit("scripts/build-image", "# Build nmp-rl-base:hermetic on this machine",
                "# Build nmp-rl-base:hermetic-gym on this machine"),
           edit("scripts/build-image", "#   4. docker buildx bake hermetic (docker driver, never --pull)",
                "#   4. docker buildx bake hermetic-gym (the hermetic image with the stand-in's Gym venv, so CI covers\n"
                "#      the Gym step too; docker driver, never --pull)"),
           edit("scripts/build-image", '--allow=fs.read="$STANDIN_DIR" hermetic "$@"',
                '--allow=fs.read="$STANDIN_DIR" hermetic-gym "$@"'),
           edit("scripts/bootstrap", "docker buildx bake hermetic)", "docker buildx bake hermetic-gym)")),
     old=("docker run --rm -it nmp-rl-base:hermetic bash", "this writes the stand-in workspace and runs the bake target below"),
     expect="build-image (and so bootstrap and CI) builds the `hermetic-gym` target instead of `hermetic`, tagging "
            "nmp-rl-base:hermetic-gym: hermetic.md's 'Build the hermetic image (this writes the stand-in workspace "
            "and runs the bake target below)', whose next block is the `hermetic` target, and inspect.md's `docker "
            "run --rm -it nmp-rl-base:hermetic bash`, an image the set-up no longer builds, are false: check fails "
            "at them"),
Case("w7-script-docker-engine-install-split", "m-716", "maintainer",
     edits(edit("scripts/docker-engine",
                "#   scripts/docker-engine start    install (once) and start dockerd; no-op when an engine answers\n",
                "#   scripts/docker-engine install  install the engine from Debian sid (once; scripts/bootstrap runs it)\n"
                "#   scripts/docker-engine start    start the installed dockerd; no-op when an engine answers, exit 2\n"
                "#                                  when none is installed (it never installs one)\n"),
           edit("scripts/docker-engine", "  install_engine\n  clear_stale_pidfile",
                "  if ! installed_ok; then\n"
                '    log "no Docker Engine $WANT_SERVER_MAJOR.x installed: run scripts/docker-engine install (as root) first"; exit 2\n'
                "  fi\n  clear_stale_pidfile"),
           edit("scripts/docker-engine", '    start|stop|status) ;;\n    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;',
                '    install|start|stop|status) ;;\n    *) echo "usage: $0 install|start|stop|status" >&2; exit 2 ;;'),
           edit("scripts/docker-engine", '  "$cmd"\n}', '  if [ "$cmd" = install ]; then install_engine; else "$cmd"; fi\n}'),
           edit("scripts/bootstrap", 'step "Docker engine"\nscripts/docker-engine start\n',
                'step "Docker engine"\nscripts/docker-engine install\nscripts/docker-engine start\n')),
     old=("(it installs one from Debian\npackages if the machine has none",),
     expect="docker-engine splits installing from starting: `install` installs from Debian sid (bootstrap runs it), "
            "`start` only starts an installed engine and exits 2 when there is none. hermetic.md's 'Start a Docker "
            "engine ... (it installs one from Debian packages if the machine has none ...)', written over "
            "`scripts/docker-engine start`, is false: check fails at that line"),
Case("w7-script-bootstrap-no-step-timings", "m-718", "maintainer",
     edits(edit("scripts/bootstrap",
                "Each step says when it starts\n# and how long it took; the long ones (apt, pip, debootstrap, the image build) show their progress as they go.\n",
                "Each step says when it starts\n# (no timings: the CI log stamps every line); the long ones (apt, pip, debootstrap, the image build) show\n"
                "# their progress as they go.\n"),
           edit("scripts/bootstrap", "step_t0=$SECONDS\ntotal_t0=$SECONDS\n", ""),
           edit("scripts/bootstrap", "  step_name=$1\n  step_t0=$SECONDS\n", "  step_name=$1\n"),
           edit("scripts/bootstrap", "# end the previous step (with its duration) and announce the next",
                "# end the previous step and announce the next"),
           _replace_lines("scripts/bootstrap", "end_step() {", "}", 'end_step() {\n  step_name=""\n}\n'),
           edit("scripts/bootstrap", "# a failure names the step it happened in and how long that step had run",
                "# a failure names the step it happened in"),
           edit("scripts/bootstrap",
                "printf '== [%d/%d] FAILED after %d s: %s\\n' \"$step_no\" \"$STEPS\" \"$((SECONDS - step_t0))\" \"$step_name\" >&2",
                "printf '== [%d/%d] FAILED: %s\\n' \"$step_no\" \"$STEPS\" \"$step_name\" >&2"),
           edit("scripts/bootstrap",
                "printf '\\n== ready in %d s: run the tests with .venv/bin/python -m pytest\\n' \"$((SECONDS - total_t0))\" >&2",
                "printf '\\n== ready: run the tests with .venv/bin/python -m pytest\\n' >&2")),
     old=("printing each step with its\nduration",),
     expect="bootstrap stops timing its steps (the CI log stamps every line): it prints each step's name, and on a "
            "failure the step, with no durations: the README's 'the set-up installs them ... printing each step "
            "with its duration' is false: check fails at that line"),
Case("w7-df-verify-loop-warns", "m-720", "maintainer",
     edits(edit(DOCKERFILE,
                "# Fail here, not at the first training run, when a registry change renamed or dropped an actor.\n",
                "# Warn, do not fail, when a registry change renamed or dropped an actor: its venv is then built on first\n"
                "# use, and a bump is not blocked by one worker.\n"),
           edit(DOCKERFILE,
                '    echo "ERROR: no prefetched venv for $actor (expected $NEMO_RL_VENV_DIR/$actor/bin/python)." >&2\n'
                '    echo "Check its entry in nemo_rl/distributed/ray_actor_environment_registry.py and the prefetch filters above." >&2\n'
                "    exit 1\n",
                '    echo "WARNING: no prefetched venv for $actor (expected $NEMO_RL_VENV_DIR/$actor/bin/python)." >&2\n'
                '    echo "Check its entry in nemo_rl/distributed/ray_actor_environment_registry.py and the prefetch filters above." >&2\n')),
     old=("renames an actor fails the build instead of the first training run",),
     expect="the verification loop after the prefetch warns instead of exiting 1: add-worker.md's hand-written "
            "'After the prefetch, the build checks that each venv it expects has an interpreter, so a registry "
            "change that renames an actor fails the build instead of the first training run' is false: check "
            "fails at that line"),
Case("w7-df-arg-defaults-quoted", "m-722", "maintainer",
     edits(edit(DOCKERFILE, "ARG NEMO_RL_REPO=https://github.com/soluwalana/RL.git\n",
                'ARG NEMO_RL_REPO="https://github.com/soluwalana/RL.git"\n'),
           edit(DOCKERFILE, "ARG NEMO_RL_REF=nmp/customizer\n", 'ARG NEMO_RL_REF="nmp/customizer"\n'),
           edit(DOCKERFILE, "ARG BASE_IMAGE=nvcr.io/nvidia/cuda-dl-base:26.07-cuda13.3-devel-ubuntu24.04\n",
                'ARG BASE_IMAGE="nvcr.io/nvidia/cuda-dl-base:26.07-cuda13.3-devel-ubuntu24.04"\n'),
           edit(DOCKERFILE, "ARG UV_VERSION=0.11.33\n", 'ARG UV_VERSION="0.11.33"\n'),
           edit(DOCKERFILE, "ARG BUILD_UID=2000\n", 'ARG BUILD_UID="2000"\n'),
           edit(DOCKERFILE, "ARG RUNTIME_UID=1000\n", 'ARG RUNTIME_UID="1000"\n'),
           edit(DOCKERFILE, "ARG RUNTIME_GID=1000\n", 'ARG RUNTIME_GID="1000"\n')),
     old=("repo=$(sed -n 's/^ARG NEMO_RL_REPO=//p' Dockerfile.nmp-rl-base)",
          "ref=$(sed -n 's/^ARG NEMO_RL_REF=//p' Dockerfile.nmp-rl-base)"),
     expect="a maintainer quotes every global ARG default, as the later ARGs already are; BuildKit reads the same "
            "values, so nothing rendered changes. review-bump.md's `repo=$(sed -n 's/^ARG NEMO_RL_REPO=//p' "
            "Dockerfile.nmp-rl-base)` and `ref=...` now print the quotes with the value, and `git fetch` is handed "
            "'\"https://...\"': the commands the page quotes no longer work: check fails at them"),
]
