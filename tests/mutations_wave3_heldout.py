"""Wave 3 of the issue-27 generalisation corpus: the held-out half of the mutations.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet; the full wave-3 list was split by
`split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once. Run with bench/generalise.py --set wave3_heldout.
"""

from __future__ import annotations

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, actor, edit, edits,
                                    replace_package, snap)

# ------------------------------------------------------------------ snapshot edits these cases share
AUTOMODEL_CMD = "uv run --locked --extra automodel --directory {git_root}"


def _set_reqs(extra, old, new=None):
    """Replace (or, with new=None, drop) one requirement string of an extra in pyproject."""
    def change(data):
        reqs = data["project"]["extras"][extra]
        assert old in reqs, (extra, old)
        data["project"]["extras"][extra] = [r for r in reqs if r != old] if new is None else \
            [new if r == old else r for r in reqs]
    return change


def _drop_package(key):
    """A package leaves the lock: every install set, the packages table, the shared builds."""
    def change(data):
        lock = data["lock"]
        del lock["packages"][key]
        for name, members in lock["install_sets"].items():
            lock["install_sets"][name] = [m for m in members if m != key]
        lock["shared_builds"] = [s for s in lock["shared_builds"] if s["package"] != key]
    return change


def _drop_source(name):
    def change(data):
        sources = data["project"]["sources"]
        assert any(s["name"] == name for s in sources), name
        data["project"]["sources"] = [s for s in sources if s["name"] != name]
    return change


def _set_override(old, new):
    def change(data):
        overrides = data["project"]["overrides"]
        assert old in overrides, old
        data["project"]["overrides"] = [new if o == old else o for o in overrides]
    return change


def _command_system(fqn, command):
    def change(data):
        actor(data, fqn)["command_system"] = command
    return change


def _new_actor(fqn, member, command_system="sys.executable"):
    def change(data):
        data["registry"]["actors"].append({"actor": fqn, "command": data["registry"]["executables"][member],
                                           "command_system": command_system, "member": member,
                                           "source": "upstream"})
    return change


CASES = [
Case("w3-up-automodel-drops-grouped-gemm", "2026-12-03", "upstream-style",
     snap(_set_reqs("automodel", "nv-grouped-gemm"), _drop_package("nv-grouped-gemm==1.1.4.post7"),
          _drop_source("nv-grouped-gemm")),
     old=("grouped GEMM for mixture-of-experts", "`nv-grouped-gemm`, `transformer-engine`"),
     expect="Automodel ships its own grouped GEMM, so NeMo-RL drops nv-grouped-gemm from the automodel extra: the warm "
            "steps, source builds and automodel package tables re-render without it; the hand-written description of "
            "DTensor V2 in workflows.md still lists 'grouped GEMM for mixture-of-experts' among what the extra adds: "
            "check fails at that line"),
Case("w3-up-automodel-te-requirement-dropped", "2026-12-12", "upstream-style",
     snap(_set_reqs("automodel", "transformer-engine[pytorch,core_cu13] @ "
                                 "git+https://github.com/NVIDIA/TransformerEngine.git@v2.14.1")),
     old=("the `automodel` extra names a git tag of its own",),
     expect="the automodel extra stops naming its own TE git tag (the override decides anyway); the lock is "
            "unchanged. transformer-engine.md's hand-written 'the `automodel` extra names a git tag of its own' is "
            "false: check fails at that line"),
Case("w3-up-te-prebuilt-wheel", "2026-12-18", "upstream-style",
     snap(replace_package("transformer-engine==2.15.0+42b8400", "transformer-engine==2.16.0", version="2.16.0",
                          source_built=False, source_kind="registry", source="registry+https://pypi.nvidia.com"),
          _set_override("transformer-engine[pytorch,core_cu13] @ git+https://github.com/NVIDIA/TransformerEngine.git"
                        "@release_v2.15", "transformer-engine[pytorch,core_cu13]==2.16.0"),
          _set_reqs("automodel", "transformer-engine[pytorch,core_cu13] @ "
                                 "git+https://github.com/NVIDIA/TransformerEngine.git@v2.14.1",
                    "transformer-engine[pytorch,core_cu13]==2.16.0"),
          lambda d: d["project"]["sources"].append({"detail": "nvidia", "kind": "index", "marker": None,
                                                    "name": "transformer-engine"})),
     old=("so uv compiles it from a git checkout, a long CUDA build",
          "built from source for the automodel and mcore extras",
          "Most of the price of `mcore` is Transformer-Engine, a CUDA source build"),
     expect="NeMo-RL moves to TE 2.16.0, a prebuilt cu13 wheel from NVIDIA's index: nothing compiles TE any more. "
            "Version values, te-consumers and source-build tables re-render (TE leaves the shared builds); the "
            "hand-written sentences in transformer-engine.md, mcore.md and the glossary that TE is compiled from a "
            "git checkout are false: check fails at them; the automodel warm comment 'builds Transformer-Engine once "
            "into the cache' is a finding at that Dockerfile line"),
Case("w3-df-cuda-archs-blackwell-only", "w3-m-001", "maintainer",
     edits(edit(DOCKERFILE, '# CUDA architectures Transformer-Engine compiles kernels for (Hopper; Blackwell).\n'
                            'ARG NVTE_CUDA_ARCHS="90;100"',
                '# CUDA architectures Transformer-Engine compiles kernels for (Blackwell datacenter; Blackwell RTX PRO).\n'
                'ARG NVTE_CUDA_ARCHS="100;120"'),
           edit(DOCKERFILE, 'ARG TORCH_CUDA_ARCH_LIST="9.0 10.0"', 'ARG TORCH_CUDA_ARCH_LIST="10.0 12.0"')),
     old=("compute capability 9.0, Hopper, and newer", "| `NVTE_CUDA_ARCHS` | `90;100` |",
          "on Hopper and Blackwell GPUs"),
     expect="the image drops Hopper kernels (sm_90) and adds sm_120: the options table and the hardware page's floor "
            "re-render (10.0, Blackwell); the hand-written mcore.md row promising FP8 gains on Hopper GPUs now "
            "describes GPUs the image has no kernels for: check fails at that row"),
Case("w3-script-standin-dir-moved", "w3-m-003", "maintainer",
     edits(edit(BAKE, 'default = "build/standin"', 'default = "build/rl-standin"'),
           edit(BAKE, "(docgen standin --out build/standin)", "(docgen standin --out build/rl-standin)"),
           edit("scripts/build-image", "STANDIN_DIR=${STANDIN_DIR:-build/standin}",
                "STANDIN_DIR=${STANDIN_DIR:-build/rl-standin}"),
           edit("scripts/build-image", "workspace from the committed snapshot into build/standin",
                "workspace from the committed snapshot into build/rl-standin")),
     old=("--allow=fs.read=build/standin hermetic", "`docgen standin --out build/standin`"),
     expect="the stand-in workspace moves to build/rl-standin (bake's STANDIN_DIR default and build-image's): "
            "hermetic.md's hand-written path and both bake commands grant read access to, and tell readers to write, "
            "a directory the build no longer reads: check fails at those lines"),
Case("w3-df-driver-venv-moved", "w3-m-005", "maintainer",
     edit(DOCKERFILE, "/opt/nemo_rl_venv", "/opt/venv", count=0),
     old=("| Driver venv | `/opt/nemo_rl_venv` |", "interpreter of the driver venv `/opt/nemo_rl_venv`"),
     expect="the driver venv moves to /opt/venv (UV_PROJECT_ENVIRONMENT, VIRTUAL_ENV, PATH, the vllm copy loop): the "
            "inventories, runtime table, venv tables and the workers.md value re-render the new path"),
Case("w3-df-py-executables-system-pinned", "w3-m-007", "maintainer",
     edits(edit(DOCKERFILE, "# Pin the interpreter for every later uv call, and never download another one at run time.\n",
                "# Pin the interpreter for every later uv call, and never download another one at run time.\n"
                "# NEMO_RL_PY_EXECUTABLES_SYSTEM=0: a cluster-wide setting must not turn the prefetched venvs off.\n"),
           edit(DOCKERFILE, "    NRL_CONTAINER=1 \\\n", "    NRL_CONTAINER=1 \\\n    NEMO_RL_PY_EXECUTABLES_SYSTEM=0 \\\n")),
     old=("Not set by the image.",),
     expect="the image now sets NEMO_RL_PY_EXECUTABLES_SYSTEM=0: the runtime table gains the row; the hand-written "
            "definition in runtime.md 'Not set by the image.' is false: check fails at that line"),
Case("w3-df-runtime-user-replaces-ubuntu", "w3-m-009", "maintainer",
     edit(DOCKERFILE, "# The runtime user: reuse an existing entry (Ubuntu images ship uid 1000 as `ubuntu`), else add one.\n"
                      'getent group "${RUNTIME_GID}" >/dev/null || groupadd --gid "${RUNTIME_GID}" nmp\n'
                      'getent passwd "${RUNTIME_UID}" >/dev/null \\\n'
                      '  || useradd --uid "${RUNTIME_UID}" --gid "${RUNTIME_GID}" --home-dir /home/nmp --shell /bin/bash nmp\n',
          "# The runtime user is always `nmp`: an existing entry with that uid (Ubuntu images ship uid 1000 as\n"
          "# `ubuntu`) is removed first, so logs and `whoami` name the same user on every base image.\n"
          'if existing=$(getent passwd "${RUNTIME_UID}" | cut -d: -f1) && [ -n "$existing" ]; then userdel --remove "$existing"; fi\n'
          'getent group "${RUNTIME_GID}" >/dev/null || groupadd --gid "${RUNTIME_GID}" nmp\n'
          'useradd --uid "${RUNTIME_UID}" --gid "${RUNTIME_GID}" --home-dir /home/nmp --shell /bin/bash nmp\n'),
     old=("`ubuntu`, is kept",),
     expect="the base stage now deletes an existing passwd entry with the runtime uid and always creates `nmp`: "
            "options.md's hand-written '(an existing entry with that uid, such as Ubuntu's `ubuntu`, is kept)' is "
            "false: check fails at that sentence"),
Case("w3-df-vllm-copies-dropped", "w3-m-011", "maintainer",
     edit(DOCKERFILE, "# NeMo-RL patches vLLM in place when a worker starts; a symlinked tree would patch the shared cache.\n"
                      "# Give each venv its own real copy, writable by the runtime group.\n"
                      "copied=0\n"
                      "for pkg in /opt/nemo_rl_venv/lib/python3*/site-packages/vllm \\\n"
                      "           /opt/ray_venvs/*/lib/python3*/site-packages/vllm \\\n"
                      "           /opt/gym_venvs/*/lib/python3*/site-packages/vllm; do\n"
                      '  [ -d "$pkg" ] || continue\n'
                      '  cp -a --dereference "$pkg" "$pkg.real"\n'
                      '  rm -rf "$pkg"\n'
                      '  mv "$pkg.real" "$pkg"\n'
                      '  chown -R "${BUILD_UID}:${RUNTIME_GID}" "$pkg"\n'
                      '  chmod -R g+w "$pkg"\n'
                      "  copied=$((copied + 1))\n"
                      "done\n"
                      'if [ "$copied" -eq 0 ]; then echo "ERROR: no venv contains a vllm/ package to copy" >&2; exit 1; fi\n'
                      'echo "vllm copied into $copied venvs"\n', ""),
     old=("copies the vLLM trees", "VllmGenerationWorker: directory, 0 symlinks"),
     expect="NeMo-RL stopped patching vLLM in place, so the published stage no longer makes private vllm/ copies: the "
            "vllm-copies blocks and transcripts re-render (or go); layering.md's hand-written 'copies the vLLM trees' "
            "is false: check fails at that line"),
Case("w3-df-system-packages-renamed", "w3-m-013", "maintainer",
     edits(edit(DOCKERFILE, "SYSTEM_PACKAGES", "APT_PACKAGES", count=0),
           edit(BAKE, '    SYSTEM_PACKAGES = ""', '    APT_PACKAGES    = ""')),
     old=("`SYSTEM_PACKAGES` is empty",),
     expect="the ARG SYSTEM_PACKAGES is renamed APT_PACKAGES (Dockerfile and the hermetic bake target): the options "
            "table re-renders; hermetic.md's hand-written '`SYSTEM_PACKAGES` is empty' names an ARG that no longer "
            "exists: check fails at that list item"),
Case("w3-df-value-workers-prefetched", "w3-m-015", "maintainer",
     edits(edit(DOCKERFILE, "#   nemo_rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2: critic-free value worker\n"
                            "#   nemo_rl.models.value.workers.megatron_value_worker.MegatronValueWorker: critic-free value worker\n", ""),
           edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Ten filters -> eleven venvs."),
           edit(DOCKERFILE, "  broker_actor.SandboxEpisodeBrokerActor\n",
                "  broker_actor.SandboxEpisodeBrokerActor \\\n  dtensor_value_worker_v2.DTensorValueWorkerV2 \\\n"
                "  megatron_value_worker.MegatronValueWorker\n"),
           edit(DOCKERFILE, "  nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor \\\n; do",
                "  nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor \\\n"
                "  nemo_rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2 \\\n"
                "  nemo_rl.models.value.workers.megatron_value_worker.MegatronValueWorker \\\n; do")),
     old=("NeMo-RL's value workers (used by PPO) are therefore not prefetched",
          "leaves it out today because the jobs it serves are critic-free"),
     expect="the image starts prefetching both value workers (PPO jobs arrive): counts, filter table, inventories "
            "re-render (10 filters, 11 venvs); workflows.md's hand-written 'NeMo-RL's value workers ... are therefore "
            "not prefetched' and the add-worker runbook's 'The image leaves it out today' are false: check fails at "
            "those sentences"),
Case("w3-script-bootstrap-no-docs-site", "w3-m-017", "maintainer",
     edits(edit("scripts/bootstrap", "STEPS=6", "STEPS=5"),
           edit("scripts/bootstrap", 'step "Docs site"\nscripts/build-docs\n\n', ""),
           edit("scripts/bootstrap", "the local base and uv images, the hermetic nmp-rl-base image, and the\n"
                                     "# docs site. Every step is idempotent: a second run only redoes what changed. "
                                     "Each step says when it starts\n",
                "the local base and uv images and the hermetic nmp-rl-base\n"
                "# image (scripts/build-docs builds the docs site on its own). Every step is idempotent: a second run "
                "only\n# redoes what changed. Each step says when it starts\n")),
     old=("the hermetic image, the docs site), printing each step",),
     expect="bootstrap no longer builds the docs site (five steps): the README's hand-written list of what the full "
            "set-up installs still ends with 'the docs site': check fails at that line"),
Case("w3-df-fork-branch-renamed", "w3-m-019", "maintainer",
     edits(edit(DOCKERFILE, "ARG NEMO_RL_REF=nmp/customizer", "ARG NEMO_RL_REF=nmp/main"),
           snap(lambda d: d["provenance"].__setitem__("ref", "nmp/main"),
                lambda d: [a.__setitem__("source", "fork nmp/main") for a in d["registry"]["actors"]
                           if a["source"] == "fork nmp/customizer"])),
     old=("`nmp/customizer` branch: give it a tag or commit",
          "an upstream clone lacks the fork's `nmp/customizer` branch"),
     expect="the fork renames its branch to nmp/main (Dockerfile NEMO_RL_REF and the snapshot's ref): values and the "
            "options table re-render; the README's and upgrade-nemo-rl.md's hand-written advice naming the fork's "
            "`nmp/customizer` branch is false: check fails at those lines"),
]
