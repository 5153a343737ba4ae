"""Wave 5 of the issue-27 generalisation corpus: the development half of the mutations.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet: coordinated multi-file pull requests,
removals and additions, facts that follow from two inputs together, and subtle wrong claims; the full wave-5
list was split by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development
set, even positions are held out) and written out here once. Run with bench/generalise.py --set wave5_dev.
"""

from __future__ import annotations

from pathlib import Path

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, actor, drop_member, edit, edits,
                                    replace_package, snap)

# ------------------------------------------------------------------ edits these cases share
TE_TAG_SHA = "5ac2c1f0e6d0b3b5f0e7a1c9d2b4e6f8a0c2d4e6"


def _cut(rel, start, end):
    """Remove the text of `rel` from the line that starts with `start` through the line that starts with `end`."""
    def apply(root: Path) -> None:
        path = root / rel
        lines = path.read_text().splitlines(keepends=True)
        first = next(i for i, line in enumerate(lines) if line.startswith(start))
        last = next(i for i, line in enumerate(lines) if i > first and line.startswith(end))
        path.write_text("".join(lines[:first] + lines[last + 1:]))
    return apply


def _rename_file(old, new):
    def apply(root: Path) -> None:
        src, dst = root / old, root / new
        assert src.exists() and not dst.exists(), (old, new)
        src.rename(dst)
    return apply


def _delete_file(rel):
    def apply(root: Path) -> None:
        path = root / rel
        assert path.exists(), rel
        path.unlink()
    return apply


def _te_requirement(new):
    """The override and the automodel extra's requirement on transformer-engine both become `new`."""
    def change(data):
        project = data["project"]
        [at] = [i for i, r in enumerate(project["overrides"]) if r.startswith("transformer-engine")]
        project["overrides"][at] = new
        reqs = project["extras"]["automodel"]
        [at] = [i for i, r in enumerate(reqs) if r.startswith("transformer-engine")]
        reqs[at] = new
    return change


def _te_override_dropped(data):
    """No override: the automodel extra's own tag (v2.14.1) locks for automodel; mcore keeps release_v2.15."""
    project, lock = data["project"], data["lock"]
    project["overrides"] = [r for r in project["overrides"] if not r.startswith("transformer-engine")]
    old = "transformer-engine==2.15.0+42b8400"
    new = "transformer-engine==2.14.1+5ac2c1f"
    lock["packages"][new] = {**lock["packages"][old], "version": "2.14.1+5ac2c1f",
                             "source": f"git+https://github.com/NVIDIA/TransformerEngine.git?tag=v2.14.1#{TE_TAG_SHA}"}
    for name in ("automodel", "automodel+modelopt"):
        members = lock["install_sets"][name]
        assert old in members, name
        lock["install_sets"][name] = sorted(set(members) - {old} | {new})
    lock["shared_builds"] = [e for e in lock["shared_builds"] if e["package"] != old]


def _drop_automodel_te(data):
    reqs = data["project"]["extras"]["automodel"]
    kept = [r for r in reqs if not r.startswith("transformer-engine")]
    assert len(kept) == len(reqs) - 1
    data["project"]["extras"]["automodel"] = kept


def _to_system(fqn):
    """The actor runs on the driver's interpreter, with or without NEMO_RL_PY_EXECUTABLES_SYSTEM."""
    def change(data):
        entry = actor(data, fqn)
        entry["member"], entry["command"] = "SYSTEM", data["registry"]["executables"]["SYSTEM"]
        entry["command_system"] = "sys.executable"
    return change


def _insert_actor(after, fqn, member):
    """A new registry entry right after `after`, on an existing PY_EXECUTABLES member (kept under the flag)."""
    def change(data):
        reg = data["registry"]
        actor(data, after)
        at = next(i for i, a in enumerate(reg["actors"]) if a["actor"] == after) + 1
        command = reg["executables"][member]
        reg["actors"].insert(at, {"actor": fqn, "command": command, "command_system": command,
                                  "member": member, "source": "fork nmp/customizer"})
    return change


CASES = [
Case("w5-up-te-wheel-from-index", "2027-02-02", "upstream-style",
     edits(snap(replace_package("transformer-engine==2.15.0+42b8400", "transformer-engine==2.15.0", version="2.15.0",
                                source_kind="registry", source_built=False,
                                source="registry+https://index.invalid/simple"),
                _te_requirement("transformer-engine[pytorch,core_cu13]==2.15.0")),
           edit(DOCKERFILE, "# builds Transformer-Engine once into the cache",
                "# nv-grouped-gemm build (Transformer-Engine comes as a wheel now)"),
           edit(DOCKERFILE, "# reuses automodel's TE wheel (cache keys on source, not extra)",
                "# fast-hadamard-transform, emerging-optimizers builds")),
     old=("so uv compiles it from a git checkout, a long CUDA build",
          "built from source for the automodel and mcore extras",
          "Most of the price of `mcore` is Transformer-Engine, a CUDA source build"),
     expect="NVIDIA publishes a cu13 Transformer-Engine wheel and NeMo-RL pins it (override and automodel extra name "
            "==2.15.0, the lock takes it from the index, no longer source-built); the maintainer's part of the PR "
            "rewrites the automodel and mcore warm comments. The TE version value, te-consumers, source-build and "
            "shared-build tables re-render; transformer-engine.md's 'so uv compiles it from a git checkout, a long "
            "CUDA build', the glossary's TE entry ('built from source for the automodel and mcore extras') and "
            "mcore.md's 'a CUDA source build' are false: check fails at those lines"),
Case("w5-up-automodel-te-requirement-dropped", "2027-02-06", "upstream-style",
     snap(_drop_automodel_te),
     old=("the `automodel` extra names a git tag of its own",),
     expect="upstream removes the automodel extra's direct transformer-engine requirement (NeMo Automodel brings TE "
            "itself, and the override still decides the ref); the lock is unchanged. transformer-engine.md's "
            "hand-written 'the `automodel` extra names a git tag of its own' describes a requirement pyproject no "
            "longer has: check fails at that line"),
Case("w5-up-sandbox-tool-actor-prefetched", "2027-02-11", "upstream-style",
     edits(snap(_insert_actor("nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor",
                              "nemo_rl.environments.sandbox.tool_actor.SandboxToolActor", "NEMO_GYM")),
           edit(DOCKERFILE, "  broker_actor.SandboxEpisodeBrokerActor\n",
                "  broker_actor.SandboxEpisodeBrokerActor \\\n  tool_actor.SandboxToolActor\n"),
           edit(DOCKERFILE, "  nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor \\\n",
                "  nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor \\\n"
                "  nemo_rl.environments.sandbox.tool_actor.SandboxToolActor \\\n"),
           edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Nine filters -> ten venvs.")),
     old=("| Worker venvs | 9 in `/opt/ray_venvs`, one per actor |",
          "| Registry actors | 29 (20 under uv, 9 on the system interpreter) |",
          "$ ls /opt/ray_venvs | wc -l\n9\n"),
     expect="the fork adds a sandbox tool actor on NEMO_GYM and, in the same PR, a filter for it with its "
            "verification line and a corrected count comment: the Dockerfile is consistent, so every count, the "
            "filter table, the venv and actor tables, the wrapper and venv transcripts are stale: check fails, and "
            "write re-renders them all (10 venvs, 30 actors)"),
Case("w5-df-cuda-compiler-pruned", "w5-m-001", "maintainer",
     edit(DOCKERFILE, "ENV VIRTUAL_ENV=/opt/nemo_rl_venv \\\n",
          "# The CUDA compiler is for the builder only: nothing compiles at run time (Triton and flashinfer bring\n"
          "# their own ptxas), and nvcc with nvvm is the largest build-only part of the base image.\n"
          "RUN rm -rf /usr/local/cuda/bin/nvcc /usr/local/cuda/nvvm\n"
          "ENV VIRTUAL_ENV=/opt/nemo_rl_venv \\\n"),
     old=("The compilers of the base image stay", "it only removes\n  CMake and stray caches"),
     expect="a second clean-up RUN in the published stage removes nvcc and nvvm: layering.md's hand-written 'The "
            "compilers of the base image stay' and 'it only removes CMake and stray caches' are false: check fails "
            "at those lines (the build diagram and size table may change too)"),
Case("w5-df-python-wrappers-removed", "w5-m-003", "maintainer",
     edit(DOCKERFILE, "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n",
          "# The prefetch's python-<Actor> wrappers: jobs reach actor venvs through the registry, not PATH.\n"
          "rm -f /usr/local/bin/python-*\n"
          "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n"),
     old=("For each prefetched actor the image puts a `python-<ClassName>` wrapper in `/usr/local/bin`",
          "## Per-actor interpreters on PATH", "python-DTensorPolicyWorker\npython-DTensorPolicyWorkerV2"),
     expect="the published stage deletes the python-<Actor> wrappers the prefetch wrote: the wrapper transcript "
            "re-renders (none); inspect.md's hand-written 'For each prefetched actor the image puts a "
            "`python-<ClassName>` wrapper in `/usr/local/bin`' and its heading are false: check fails there"),
Case("w5-df-checkout-owned-by-runtime-user", "w5-m-005", "maintainer",
     edit(DOCKERFILE, "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n",
          "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n"
          "# Jobs write results/ and logs/ under the working directory (NeMo-RL's defaults): the runtime user owns\n"
          "# the checkout's top directory (not recursive: the files in it stay the build user's).\n"
          'chown "${RUNTIME_UID}:${RUNTIME_GID}" /opt/nemo-rl\n'),
     old=("The runtime user reads and runs everything but cannot change it",
          "reads and runs them but cannot change them"),
     expect="the published stage hands /opt/nemo-rl itself to the runtime user, who may now create, rename and "
            "delete entries at the top of the checkout: options.md's 'The runtime user reads and runs everything "
            "but cannot change it' and inspect.md's 'reads and runs them but cannot change them' (the NeMo-RL tree "
            "among them) are false: check fails at those lines"),
Case("w5-bake-hermetic-builds-builder-stage", "w5-m-007", "maintainer",
     edit(BAKE, 'target "hermetic" {\n  inherits = ["_image"]\n',
          'target "hermetic" {\n  inherits = ["_image"]\n'
          "  // the builder stage: the tests look at the venvs as the prefetch left them, before the published\n"
          "  // stage's clean-up\n"
          '  target   = "builder"\n'),
     old=("$ id -u\n1000\n", "VllmGenerationWorker: directory, 0 symlinks"),
     expect="the hermetic target (which the docs' console blocks run in, `nmp-rl-base:hermetic`) now builds the "
            "builder stage: that image runs as the build user 2000, has no private vLLM copies and keeps CMake. "
            "The transcripts inspect.md shows for the hermetic image are false for it (id -u, the vLLM copies, the "
            "writable counts); a careful check fails, naming the bake target that no longer builds the published "
            "stage"),
Case("w5-df-gym-arg-renamed-bake-missed", "w5-m-009", "maintainer",
     edit(DOCKERFILE, "NEMO_GYM_PREFETCH_CONFIGS", "NEMO_GYM_CONFIGS", count=0),
     old=("bake target sets it to the stand-in's one server", "so the Gym venv step runs too",
          "the build argument `NEMO_GYM_PREFETCH_CONFIGS` (empty by default)"),
     expect="the Dockerfile's build argument is renamed NEMO_GYM_CONFIGS everywhere, but docker-bake.hcl's "
            "hermetic-gym target still sets NEMO_GYM_PREFETCH_CONFIGS, which no ARG declares: the Gym step never "
            "runs there. Generated tables re-render the new name; the hand-written prose naming the old argument "
            "and options.md's 'bake target sets it to the stand-in's one server' / hermetic.md's 'so the Gym venv "
            "step runs too' are false: check fails"),
Case("w5-bake-hermetic-gym-target-removed", "w5-m-011", "maintainer",
     _cut(BAKE, "// The hermetic image plus the Gym environment venv layer", "}"),
     old=("The `hermetic-gym` target builds the same image", "--allow=fs.read=build/standin hermetic-gym",
          "bake target sets it to the stand-in's one server"),
     expect="the hermetic-gym bake target is deleted (the Gym step is tested another way): hermetic.md's paragraph "
            "and command for the `hermetic-gym` target and options.md's 'the `hermetic-gym` bake target sets it to "
            "the stand-in's one server' name a target docker-bake.hcl no longer has: check fails at those lines"),
Case("w5-script-build-image-renamed", "w5-m-013", "maintainer",
     edits(_rename_file("scripts/build-image", "scripts/build-hermetic"),
           edit("pyproject.toml", '"scripts/build-image",', '"scripts/build-hermetic",'),
           edit("scripts/bootstrap", "scripts/build-image --progress=plain", "scripts/build-hermetic --progress=plain"),
           edit(DOCKERFILE, "(scripts/build-image checks this first)", "(scripts/build-hermetic checks this first)"),
           edit(DOCKERFILE, "# Hermetic:    scripts/build-image ", "# Hermetic:    scripts/build-hermetic ")),
     old=("`scripts/build-image` runs `scripts/check-engine` first", "```bash\nscripts/build-image\n```",
          "`scripts/build-image`\nchecks the version"),
     expect="scripts/build-image is renamed scripts/build-hermetic and its callers (bootstrap, the Dockerfile's "
            "header, docgen's quoted list in pyproject.toml) follow, the pages do not: hermetic.md's command "
            "block and sentences and options.md's '`scripts/build-image` runs `scripts/check-engine` first' name a script that does not exist: check "
            "fails at those lines"),
Case("w5-script-build-docs-not-strict", "w5-m-015", "maintainer",
     edits(edit("scripts/build-docs",
                "# 3. mkdocs builds with --strict: a warning (dead link or anchor, page missing from the nav) fails.",
                "# 3. mkdocs builds; warnings (dead links, anchors, pages missing from the nav) are printed, not fatal."),
           edit("scripts/build-docs", '"$MKDOCS" build --strict --config-file', '"$MKDOCS" build --config-file')),
     old=("and the strict site build", "mkdocs build --strict into site/",
          "The **site build** runs mkdocs with `--strict`"),
     expect="build-docs stops passing --strict (warnings no longer fail the build): the README's 'the strict site "
            "build', contributing.md's 'The **site build** runs mkdocs with `--strict`' and its code comment are "
            "false: check fails at those lines"),
Case("w5-df-nvrx-warmed", "w5-m-017", "maintainer",
     edit(DOCKERFILE, "uv sync ${UV_SYNC_MODE} --no-install-project --extra modelopt   # nvidia-modelopt from git\n",
          "uv sync ${UV_SYNC_MODE} --no-install-project --extra modelopt   # nvidia-modelopt from git\n"
          "uv sync ${UV_SYNC_MODE} --no-install-project --extra nvrx       # nvidia-resiliency-ext for fault-tolerant jobs (mcore built it)\n"),
     old=("The image warms six extras", "| Extras not warmed | `nvrx`, `sglang`, `trtllm` |",
          "| `nvrx` | not warmed | — |"),
     expect="a new warm step for the nvrx extra, with its comment: seven extras are warmed, nvrx joins the shared "
            "builds (nvidia-resiliency-ext: mcore → nvrx), the warm-steps table, build diagram and inventories "
            "re-render: check fails first, write fixes it"),
Case("w5-df-runtime-uv-cache-dir", "w5-m-019", "maintainer",
     edit(DOCKERFILE, "ENV VIRTUAL_ENV=/opt/nemo_rl_venv \\\n",
          "# Jobs that build a venv at first use need a cache they may write; the prefetched venvs keep their links\n"
          "# into /opt/uv_cache, which stays in the image.\n"
          "ENV UV_CACHE_DIR=/tmp/uv-cache \\\n"
          "    VIRTUAL_ENV=/opt/nemo_rl_venv \\\n"),
     old=(":   The in-image uv cache the venvs link into",
          "So a job that builds a venv at first use points `UV_CACHE_DIR` at storage it may write"),
     expect="the published stage sets UV_CACHE_DIR=/tmp/uv-cache for run time (the build keeps /opt/uv_cache): the "
            "runtime-env table re-renders both values; runtime.md's definition of `UV_CACHE_DIR` as 'The in-image "
            "uv cache the venvs link into' and venvs.md's 'a job that builds a venv at first use points "
            "`UV_CACHE_DIR` at storage it may write' (the image now does it) are false: check fails"),
]
