"""Wave 3 of the issue-27 generalisation corpus: the development half of the mutations.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet; the full wave-3 list was split by
`split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once. Run with bench/generalise.py --set wave3_dev.
"""

from __future__ import annotations

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, actor, drop_actors, edit,
                                    edits, move_actor, replace_package, snap)

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
Case("w3-up-dtensor-v1-to-automodel", "2026-12-01", "upstream-style",
     snap(move_actor("nemo_rl.models.policy.workers.dtensor_policy_worker.DTensorPolicyWorker", "AUTOMODEL"),
          _command_system("nemo_rl.models.policy.workers.dtensor_policy_worker.DTensorPolicyWorker", AUTOMODEL_CMD)),
     old=("DTensor V1 (extra `fsdp`, `DTensorPolicyWorker`)",
          "| `FSDP` | `uv run --locked --extra fsdp --directory /opt/nemo-rl` | `fsdp` | `DTensorPolicyWorker` |"),
     expect="upstream retires the fsdp executable for the V1 worker: DTensorPolicyWorker now runs with the automodel "
            "extra. The py-executables and actor tables re-render (FSDP used by no actor); the hand-written definition "
            "in workflows.md 'DTensor V1 (extra `fsdp`, ...)' names the wrong extra: check fails at that line; the "
            "inspect page's TE transcript (its fsdp venv lacks TE) re-renders"),
Case("w3-up-flashinfer-aligned", "2026-12-08", "upstream-style",
     snap(replace_package("flashinfer-python==0.6.8.post1", "flashinfer-python==0.6.13", version="0.6.13"),
          replace_package("flashinfer-cubin==0.6.8.post1", "flashinfer-cubin==0.6.13", version="0.6.13"),
          replace_package("flashinfer-jit-cache==0.6.8.post1+cu130", "flashinfer-jit-cache==0.6.13+cu130",
                          version="0.6.13+cu130"),
          replace_package("flashinfer-python==0.6.11.post1", "flashinfer-python==0.6.13", version="0.6.13"),
          replace_package("flashinfer-cubin==0.6.11.post1", "flashinfer-cubin==0.6.13", version="0.6.13"),
          replace_package("flashinfer-jit-cache==0.6.11.post1+cu130", "flashinfer-jit-cache==0.6.13+cu130",
                          version="0.6.13+cu130"),
          _set_reqs("mcore", "flashinfer-python==0.6.8.post1", "flashinfer-python==0.6.13"),
          _set_reqs("mcore", "flashinfer-cubin==0.6.8.post1", "flashinfer-cubin==0.6.13"),
          _set_reqs("mcore", "flashinfer-jit-cache==0.6.8.post1", "flashinfer-jit-cache==0.6.13"),
          _set_reqs("sglang", "flashinfer-python==0.6.11.post1", "flashinfer-python==0.6.13"),
          _set_reqs("sglang", "flashinfer-cubin==0.6.11.post1", "flashinfer-cubin==0.6.13"),
          _set_reqs("sglang", "flashinfer-jit-cache==0.6.11.post1", "flashinfer-jit-cache==0.6.13")),
     old=("pin different versions of the same packages (transformers, flashinfer, ...)",
          "| `flashinfer-python` | `0.6.8.post1` | registry | no |"),
     expect="NeMo-RL aligns FlashInfer on 0.6.13 across the vllm, sglang and mcore extras: the mcore-adds table "
            "re-renders; the hand-written reason in workers.md that vLLM, SGLang, Megatron and Automodel pin different "
            "versions of flashinfer is now false: check fails at that sentence"),
Case("w3-up-vllm-disagg-worker-matched", "2026-12-15", "upstream-style",
     snap(_new_actor("nemo_rl.models.generation.vllm.vllm_worker_disagg.VllmDisaggGenerationWorker", "VLLM")),
     old=("| Worker venvs | 9 in `/opt/ray_venvs`, one per actor |", "prefetch_venvs.py, 8 filters -> 9 venvs"),
     expect="a new vLLM actor whose FQN the existing filter `vllm.vllm_worker` also matches: the image now prefetches "
            "ten venvs with the same eight filters. Counts, filter table and transcripts re-render; the Dockerfile's "
            "'# Eight filters -> nine venvs.' comment and its verification loop (which lacks the new venv) are "
            "findings at those Dockerfile lines"),
Case("w3-up-value-workers-removed", "2026-12-20", "upstream-style",
     snap(drop_actors("nemo_rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2",
                      "nemo_rl.models.value.workers.megatron_value_worker.MegatronValueWorker")),
     old=("NeMo-RL's value workers (used by PPO) are therefore not prefetched",
          "The example adds `DTensorValueWorkerV2`, the value worker (critic) of the `automodel` policy backend"),
     expect="upstream removes PPO's value workers from the registry: the Dockerfile's `# Not prefetched` list names two "
            "actors the registry lost (findings at those lines); counts re-render (27 actors, 9 not prefetched); "
            "workflows.md's sentence about the value workers and the add-worker runbook, whose example is "
            "DTensorValueWorkerV2, describe actors that no longer exist: check fails there"),
Case("w3-bake-hermetic-cmake-apt", "w3-m-002", "maintainer",
     edit(BAKE, 'CMAKE_SOURCE    = "skip"', 'CMAKE_SOURCE    = "apt"'),
     old=("`CMAKE_SOURCE=skip`", "The base stage installs nothing"),
     expect="the hermetic target now installs CMake from Debian's apt (the package index is reachable in CI): "
            "hermetic.md's hand-written 'The base stage installs nothing: ... `CMAKE_SOURCE=skip`' is false: check "
            "fails at that list item"),
Case("w3-bake-hermetic-local-cache", "w3-m-004", "maintainer",
     edit(BAKE, '  secret = ["id=cacert,src=${CACERT}"]\n  tags   = ["nmp-rl-base:hermetic"]\n',
          '  secret = ["id=cacert,src=${CACERT}"]\n'
          '  // CI keeps the warm-up between runs (needs the containerd image store)\n'
          '  cache-from = ["type=local,src=build/buildcache"]\n'
          '  cache-to   = ["type=local,dest=build/buildcache,mode=max"]\n'
          '  tags   = ["nmp-rl-base:hermetic"]\n'),
     old=("The hermetic targets never import or export a",),
     expect="the hermetic target (and hermetic-gym, which inherits it) now imports and exports a local build cache: "
            "options.md's hand-written 'The hermetic targets never import or export a cache' is false: check fails "
            "at that sentence"),
Case("w3-df-link-mode-as-env", "w3-m-006", "maintainer",
     edits(edit(DOCKERFILE, "  export UV_LINK_MODE=symlink\n", ""),
           edit(DOCKERFILE, "export UV_LINK_MODE=symlink\n", "", count=0),
           edit(DOCKERFILE, "ENV UV_PROJECT_ENVIRONMENT=/opt/nemo_rl_venv \\\n    UV_CACHE_DIR=/opt/uv_cache\n",
                "ENV UV_PROJECT_ENVIRONMENT=/opt/nemo_rl_venv \\\n    UV_CACHE_DIR=/opt/uv_cache \\\n"
                "    UV_LINK_MODE=symlink\n")),
     old=("is exported only inside the build steps", "is exported per `RUN` step, not set as an `ENV`"),
     expect="UV_LINK_MODE=symlink becomes an ENV of the builder stage (inherited by the published image) instead of an "
            "export in each RUN: the runtime table gains it; runtime.md's 'the image sets no `UV_LINK_MODE`' and "
            "layering.md's 'exported per `RUN` step, not set as an `ENV`, so it is not in effect at run time' are "
            "false: check fails at those sentences"),
Case("w3-df-venv-parents-locked", "w3-m-008", "maintainer",
     edits(edit(DOCKERFILE, "# Numeric group of the runtime user; it may create new venvs beside the prefetched ones.",
                "# Numeric group of the runtime user; it owns the private vllm/ copies."),
           edit(DOCKERFILE, "# Venv parents: the runtime group may add venvs (set-group-ID keeps them in that group); the sticky bit\n"
                            "# stops it renaming or removing the build user's venvs.\n"
                            'install -d -o "${BUILD_UID}" -g "${RUNTIME_GID}" -m 3775 /opt/ray_venvs /opt/gym_venvs\n',
                "# Venv parents: only the build user writes them; a job that needs a venv the image did not prefetch\n"
                "# points NEMO_RL_VENV_DIR at storage it may write.\n"
                'install -d -o "${BUILD_UID}" -g "${BUILD_UID}" -m 0755 /opt/ray_venvs /opt/gym_venvs\n')),
     old=("it may add venvs next to the prefetched ones",
          "which may write there (the set-group-ID bit keeps new venvs in",
          "2000:1000 drwxrwsr-t /opt/ray_venvs"),
     expect="security hardening: /opt/ray_venvs and /opt/gym_venvs become 0755 and the build user's group, so the "
            "runtime user cannot add a venv: the ownership transcript re-renders; options.md ('it may add venvs next "
            "to the prefetched ones') and inspect.md (the runtime group may write there, set-group-ID and sticky "
            "bits, creating a directory in /opt/ray_venvs works) are false: check fails at those sentences"),
Case("w3-df-full-copy-takes-3rdparty", "w3-m-010", "maintainer",
     edit(DOCKERFILE, " --exclude=3rdparty --exclude=!3rdparty/TensorRT-LLM-workspace . ./", " . ./"),
     old=("`COPY`s already placed (`3rdparty/`, the root `pyproject.toml`",),
     expect="a maintainer simplifies the full-source COPY, which now copies 3rdparty/ a second time: the layering "
            "page's hand-written principle that the full-source COPY leaves out what the resolver-input COPYs "
            "placed (`3rdparty/`, ...) is false (and the prefetch will rebuild the path sources): check fails at "
            "that list item; the Dockerfile comment above the COPY ('What the COPYs above placed is left out') is a "
            "finding too"),
Case("w3-df-intree-limit-hardcoded", "w3-m-012", "maintainer",
     edits(edit(DOCKERFILE, "# Largest growth, in MiB, this step may leave inside the Gym source tree (a second package cache there\n"
                            "# would ship in the image beside /opt/uv_cache).\n"
                            "ARG NEMO_GYM_INTREE_MAX_MIB=64\n", ""),
           edit(DOCKERFILE, 'if [ "$grown" -gt "${NEMO_GYM_INTREE_MAX_MIB}" ]; then',
                'if [ "$grown" -gt 64 ]; then   # MiB: more is a second package cache in the Gym tree'),
           edit(DOCKERFILE, "(limit ${NEMO_GYM_INTREE_MAX_MIB})", "(limit 64)")),
     old=("`NEMO_GYM_INTREE_MAX_MIB` bounds what that step", "left more than `NEMO_GYM_INTREE_MAX_MIB`"),
     expect="the Gym in-tree limit is no longer a build argument (hard-coded 64 MiB): the options table loses the row; "
            "options.md and venvs.md still name the ARG `NEMO_GYM_INTREE_MAX_MIB`, which no longer exists: check "
            "fails at those sentences"),
Case("w3-df-gym-configs-default-set", "w3-m-014", "maintainer",
     edits(edit(DOCKERFILE, "# /opt/gym_venvs; empty (the default) builds none.\nARG NEMO_GYM_PREFETCH_CONFIGS=\"\"",
                "# /opt/gym_venvs; the default prefetches the math-with-judge server production jobs start; empty\n"
                "# builds none.\n"
                'ARG NEMO_GYM_PREFETCH_CONFIGS="resources_servers/math_with_judge/configs/math_with_judge.yaml"'),
           edit(BAKE, '    SYSTEM_PACKAGES = ""\n',
                '    SYSTEM_PACKAGES = ""\n    // the stand-in workspace has no math-with-judge server\n'
                '    NEMO_GYM_PREFETCH_CONFIGS = ""\n')),
     old=("(empty by default)", "| Gym environment venvs | 0 by default in `/opt/gym_venvs`",
          "By default they are created at run time"),
     expect="production builds now prefetch one Gym server venv by default (the hermetic target resets it to empty): "
            "the options table, inventories and venv-layer table re-render; venvs.md's hand-written 'By default they "
            "are created at run time, not prefetched' and '`NEMO_GYM_PREFETCH_CONFIGS` (empty by default)' are false: "
            "check fails at those sentences"),
Case("w3-df-source-context-renamed", "w3-m-016", "maintainer",
     edits(edit(DOCKERFILE, "FROM scratch AS nemo-rl\n", "FROM scratch AS rl-source\n"),
           edit(DOCKERFILE, "--from=nemo-rl ", "--from=rl-source ", count=0),
           edit(DOCKERFILE, "`--build-context nemo-rl=DIR`", "`--build-context rl-source=DIR`"),
           edit(BAKE, '    nemo-rl = "${STANDIN_DIR}"', '    rl-source = "${STANDIN_DIR}"')),
     old=("`--build-context nemo-rl=/path/to/RL` replaces that stage",
          "`--build-context nemo-rl=<stand-in workspace>`", "The `nemo-rl` stage is replaced with"),
     expect="the source stage (and so the named build context that replaces it) is renamed rl-source, in the "
            "Dockerfile and the hermetic bake target: the stage tables and graphs re-render; options.md's and "
            "hermetic.md's hand-written `--build-context nemo-rl=...` name a context no stage reads any more (BuildKit "
            "ignores it and fetches from GitHub): check fails at those lines"),
Case("w3-df-editable-install-by-sync", "w3-m-018", "maintainer",
     edit(DOCKERFILE, 'uv pip install --python "${UV_PROJECT_ENVIRONMENT}/bin/python" --no-deps -e .\n',
          "uv sync ${UV_SYNC_MODE} --all-groups   # the RL root itself, editable; its dependencies are in place\n"),
     old=("`nemo-rl` (editable, `--no-deps`)",),
     expect="the RL root is installed by a final `uv sync --all-groups` (the project, editable) instead of `uv pip "
            "install --no-deps -e .`: the quick inventories and the driver-installs table re-render (nothing is "
            "installed on top of the syncs with `uv pip install`)"),
]
