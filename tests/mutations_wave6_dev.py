"""Wave 6 of the issue-27 generalisation corpus: the development half of the mutations.

Written before the design, by someone who did not read the checker (docgen/) and had read only the pages, the
inputs and the earlier waves' development cases, to name kinds of change nobody had named yet: values and
steps moved rather than changed, quantifier and order words in prose going false, negations and exclusivity
going false, NeMo-RL changes that prose describes in words, script and bake defaults, steps and options,
coordinated changes of two inputs, and sizes and durations written by hand. The full wave-6 list was split
by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once.
Run with bench/generalise.py --set wave6_dev.
"""

from __future__ import annotations

from pathlib import Path

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, actor, edit, edits, rename_actor, snap)

# ------------------------------------------------------------------ edits these cases share
TE_TAG_SHA = "9c1e5f2a7b3d4e6f8a0b1c2d3e4f5a6b7c8d9e0f"


def _append(rel, text):
    """Add `text` at the end of `rel`."""
    def apply(root: Path) -> None:
        path = root / rel
        path.write_text(path.read_text() + text)
    return apply


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


def _move_before(rel, start, end, before):
    """Move the lines of `rel` from the one that starts with `start` through the next one that starts with
    `end` (and the blank line after them) to just before the line that starts with `before`."""
    def apply(root: Path) -> None:
        path = root / rel
        lines = path.read_text().splitlines(keepends=True)
        first = next(i for i, line in enumerate(lines) if line.startswith(start))
        last = next(i for i, line in enumerate(lines) if i > first and line.startswith(end))
        if last + 1 < len(lines) and not lines[last + 1].strip():
            last += 1
        block, rest = lines[first:last + 1], lines[:first] + lines[last + 1:]
        at = next(i for i, line in enumerate(rest) if line.startswith(before))
        path.write_text("".join(rest[:at] + block + rest[at:]))
    return apply


def _actor_field(fqn, **fields):
    """One registry entry's fields changed (its source, or the command it gets under the SYSTEM flag)."""
    def change(data):
        actor(data, fqn).update(fields)
    return change


def _override(prefix, new):
    """The `[tool.uv] override-dependencies` entry that starts with `prefix` becomes `new`."""
    def change(data):
        overrides = data["project"]["overrides"]
        [at] = [i for i, r in enumerate(overrides) if r.startswith(prefix)]
        overrides[at] = new
    return change


def _modelopt_source_dropped(data):
    """No `[tool.uv.sources]` git entry for nvidia-modelopt: it resolves from the index."""
    project = data["project"]
    kept = [s for s in project["sources"] if s["name"] != "nvidia-modelopt"]
    assert len(kept) == len(project["sources"]) - 1
    project["sources"] = kept


def _automodel_without_deep_ep(data):
    """The automodel extra stops requiring DeepEP (both platform lines); its install sets lose it and the shared
    build is left to vllm and mcore."""
    project, lock = data["project"], data["lock"]
    reqs = project["extras"]["automodel"]
    kept = [r for r in reqs if not r.startswith("deep_ep")]
    assert len(kept) == len(reqs) - 2
    project["extras"]["automodel"] = kept
    key = "deep-ep==1.2.1+29d31c0@git:29d31c0"
    for name in ("automodel", "automodel+modelopt"):
        members = lock["install_sets"][name]
        assert key in members, name
        lock["install_sets"][name] = [m for m in members if m != key]
    [entry] = [e for e in lock["shared_builds"] if e["package"] == key]
    entry["extras"] = [e for e in entry["extras"] if e != "automodel"]


CASES = [
Case("w6-up-vllm-async-worker-module-renamed", "2027-03-03", "upstream-style",
     edits(snap(rename_actor("nemo_rl.models.generation.vllm.vllm_worker_async.VllmAsyncGenerationWorker",
                             "nemo_rl.models.generation.vllm.async_worker.VllmAsyncGenerationWorker")),
           edit(DOCKERFILE, "  vllm.vllm_worker \\\n", "  vllm.vllm_worker \\\n  async_worker.VllmAsyncGenerationWorker \\\n"),
           edit(DOCKERFILE, "  nemo_rl.models.generation.vllm.vllm_worker_async.VllmAsyncGenerationWorker \\\n",
                "  nemo_rl.models.generation.vllm.async_worker.VllmAsyncGenerationWorker \\\n"),
           edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Nine filters -> nine venvs.")),
     old=("`vllm.vllm_worker` also matches `vllm.vllm_worker_async`",
          "nemo_rl.models.generation.vllm.vllm_worker_async.VllmAsyncGenerationWorker"),
     expect="upstream renames the async vLLM worker's module (vllm_worker_async -> async_worker, class unchanged); "
            "the fork's bump PR keeps the venv with a filter of its own, the new FQN in the verification loop and "
            "'Nine filters -> nine venvs.'. The Dockerfile is consistent; the filter table, actor tables, venv "
            "listings and transcripts re-render the new FQN, and venvs.md's hand-written example '(`vllm.vllm_worker` "
            "also matches `vllm.vllm_worker_async`)' now names a module the registry no longer has and a match the "
            "filter table no longer shows: check fails at that line"),
Case("w6-up-dtensor-v1-follows-system-flag", "2027-03-16", "upstream-style",
     snap(_actor_field("nemo_rl.models.policy.workers.dtensor_policy_worker.DTensorPolicyWorker",
                       command_system="sys.executable")),
     old=("Some entries, the DTensor policy workers\namong them, are written to keep their `uv run` executable",),
     expect="upstream stops pinning the DTensor V1 worker to its fsdp venv under NEMO_RL_PY_EXECUTABLES_SYSTEM=1 "
            "(only V2 keeps `uv run`): the actor-mapping table for the system variant re-renders (V1 on SYSTEM); "
            "workers.md's hand-written 'Some entries, the DTensor policy workers among them, are written to keep "
            "their `uv run` executable' now holds for one DTensor policy worker only: check fails at that line"),
Case("w6-up-automodel-drops-deep-ep", "2027-03-24", "upstream-style",
     snap(_automodel_without_deep_ep),
     old=("grouped GEMM for mixture-of-experts, DeepEP)", "`deep-ep` (vllm → automodel → mcore)"),
     expect="upstream removes DeepEP from the automodel extra (NeMo Automodel's MoE layers dispatch through "
            "Transformer-Engine now); vllm and mcore keep it. The shared-builds list re-renders `deep-ep` (vllm → "
            "mcore) and the automodel tables lose it; workflows.md's hand-written DTensor V2 entry, 'which adds "
            "optimized kernels (Transformer-Engine, grouped GEMM for mixture-of-experts, DeepEP)', is false for "
            "DeepEP: check fails at that line"),
Case("w6-df-debug-stage-after-published", "m-601", "maintainer",
     edits(_append(DOCKERFILE,
                   "\n# ------------------------------------------------------------------------------------------ debug\n"
                   "# The published image plus gdb, for a shell next to a hung worker: `docker buildx bake debug`.\n"
                   "FROM nmp-rl-base AS debug\n"
                   "ARG RUNTIME_UID\n"
                   "ARG RUNTIME_GID\n"
                   "USER root\n"
                   'RUN <<"EOF" bash -exu -o pipefail\n'
                   "umask 022\n"
                   "export DEBIAN_FRONTEND=noninteractive\n"
                   "apt-get update\n"
                   "apt-get install -y --no-install-recommends gdb\n"
                   "rm -rf /var/lib/apt/lists/*\n"
                   "EOF\n"
                   "USER ${RUNTIME_UID}:${RUNTIME_GID}\n"),
           _append(BAKE,
                   "\n// The published image plus gdb, for debugging a hung job; never pushed as nmp-rl-base.\n"
                   'target "debug" {\n'
                   '  inherits = ["production"]\n'
                   '  target   = "debug"\n'
                   '  tags     = ["nmp-rl-base:debug"]\n'
                   "}\n")),
     old=("the published image is the last one",),
     expect="a maintainer adds a `debug` stage FROM nmp-rl-base (gdb) at the end of the Dockerfile, with a bake "
            "target of its own; production still builds nmp-rl-base. The image graph and stage tables gain the "
            "stage; index.md's hand-written 'the published image is the last one' is false (the published stage is "
            "now the last but one): check fails at that line"),
Case("w6-df-checkout-made-world-readable", "m-603", "maintainer",
     edit(DOCKERFILE, "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n",
          "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n"
          "# A checkout handed in with --build-context from a umask-077 home arrives unreadable to the runtime user.\n"
          "chmod -R a+rX /opt/nemo-rl\n"),
     old=("There is no\n  recursive `chmod` or `chgrp`",),
     expect="the published stage gains a recursive `chmod -R a+rX /opt/nemo-rl` (for checkouts made under umask "
            "077): layering.md's hand-written 'There is no recursive `chmod` or `chgrp`' is false (and the layer "
            "now stores the checkout a second time): check fails at that line"),
Case("w6-df-nvrx-warmed-after-all-groups", "m-605", "maintainer",
     edit(DOCKERFILE,
          "uv sync ${UV_SYNC_MODE} --no-install-project --all-groups       # leave the main venv at base + every group\n",
          "uv sync ${UV_SYNC_MODE} --no-install-project --all-groups       # leave the main venv at base + every group\n"
          "uv sync ${UV_SYNC_MODE} --no-install-project --extra nvrx       # nvidia-resiliency-ext for fault-tolerant jobs\n"),
     old=("The warm-up syncs leave the driver venv at exactly what the lock gives the base and the groups",
          "| `/opt/nemo_rl_venv` | driver (`uv run` on the head node) | (base, all groups) | at image build |"),
     expect="a new warm step for nvrx is appended after the `--all-groups` sync, so it is the last sync and leaves "
            "the driver venv at base + nvrx + the default groups only (docs and test removed): the warm lists and "
            "counts re-render (seven extras); the venv inventory's '(base, all groups)' for the driver venv, the "
            "all-groups comment 'leave the main venv at base + every group' and venvs.md's hand-written 'The "
            "warm-up syncs leave the driver venv at exactly what the lock gives the base and the groups' are "
            "false: check fails"),
Case("w6-df-ubuntu-user-removed", "m-607", "maintainer",
     edit(DOCKERFILE,
          "# The runtime user: reuse an existing entry (Ubuntu images ship uid 1000 as `ubuntu`), else add one.\n",
          "# The runtime user is always `nmp`: Ubuntu images ship uid 1000 as `ubuntu`, whose name and home would\n"
          "# show in every job's logs, so an entry that already holds the uid is removed first.\n"
          'existing=$(getent passwd "${RUNTIME_UID}" | cut -d: -f1 || true)\n'
          'if [ -n "$existing" ] && [ "$existing" != nmp ]; then userdel --remove "$existing"; fi\n'),
     old=("an existing entry with that uid, such as Ubuntu's\n  `ubuntu`, is kept",),
     expect="the base stage removes whatever passwd entry holds RUNTIME_UID (Ubuntu's `ubuntu`) and always creates "
            "`nmp`: options.md's hand-written '(an existing entry with that uid, such as Ubuntu's `ubuntu`, is "
            "kept)' is false: check fails at that line"),
Case("w6-df-nemo-rl-ref-moved-to-bake", "m-609", "maintainer",
     edits(edit(DOCKERFILE,
                "# Branch, tag or commit of NEMO_RL_REPO to check out (submodules included).\nARG NEMO_RL_REF=nmp/customizer\n",
                "# Branch, tag or commit of NEMO_RL_REPO to check out (submodules included); docker-bake.hcl's production\n"
                "# target names the fork's branch, so the Dockerfile itself builds any NeMo-RL as it is.\n"
                "ARG NEMO_RL_REF\n"),
           edit(BAKE, 'target "production" {\n  inherits   = ["_image"]\n  tags       = ["nmp-rl-base:latest"]\n',
                'target "production" {\n  inherits   = ["_image"]\n  tags       = ["nmp-rl-base:latest"]\n'
                '  args       = {\n    NEMO_RL_REF = "nmp/customizer"\n  }\n')),
     old=("ref=$(sed -n 's/^ARG NEMO_RL_REF=//p' Dockerfile.nmp-rl-base)", "(the Dockerfile's NEMO_RL_REF)"),
     expect="the fork's branch moves from the Dockerfile's NEMO_RL_REF default into the production bake target's "
            "args (the Dockerfile's ARG has no default now): review-bump.md's `sed -n 's/^ARG NEMO_RL_REF=//p' "
            "Dockerfile.nmp-rl-base` prints nothing and the README's '(the Dockerfile's NEMO_RL_REF)' names a "
            "default that is gone; the options table and the ref value re-render or the snapshot's ref no longer "
            "matches the Dockerfile: check fails (or stops, naming the Dockerfile)"),
Case("w6-df-source-copied-once-before-warmup", "m-611", "maintainer",
     edits(edit(DOCKERFILE,
                "# Resolver inputs only, so a source-only RL change keeps the warm-up layer below cached.\n"
                "COPY --chown=${BUILD_UID}:${BUILD_UID} --from=nemo-rl pyproject.toml uv.lock README.md ./\n"
                "COPY --chown=${BUILD_UID}:${BUILD_UID} --from=nemo-rl nemo_rl/__init__.py nemo_rl/\n"
                "COPY --chown=${BUILD_UID}:${BUILD_UID} --from=nemo-rl research/template_project/pyproject.toml research/template_project/\n"
                "COPY --chown=${BUILD_UID}:${BUILD_UID} --from=nemo-rl --exclude=**/.git --exclude=.git --exclude=TensorRT-LLM-workspace 3rdparty/ 3rdparty/\n",
                "# The whole NeMo-RL source in one layer: one COPY to keep in step with NeMo-RL's layout, not five.\n"
                "COPY --chown=${BUILD_UID}:${BUILD_UID} --from=nemo-rl --exclude=**/.git --exclude=.git . ./\n"),
           _replace_lines(DOCKERFILE, "# The rest of the source, then the RL root itself", "COPY --chown=",
                          "# The RL root itself (editable, dependencies already in place).\n")),
     old=("depends only on NeMo-RL's `pyproject.toml` and `uv.lock` (and the build arguments)",
          "This holds because the full-source `COPY` leaves out what the\n  resolver-input `COPY`s already placed"),
     expect="a maintainer replaces the four resolver-input COPYs and the later full-source COPY by one `COPY . ./` "
            "before the warm-up: the stage tables and diagrams re-render one COPY; layering.md's hand-written 'It "
            "depends only on NeMo-RL's `pyproject.toml` and `uv.lock` (and the build arguments)' (any source edit "
            "now reruns the warm-up) and 'This holds because the full-source `COPY` leaves out what the "
            "resolver-input `COPY`s already placed' are false: check fails at those lines"),
Case("w6-bake-cache-export-mode-min", "m-613", "maintainer",
     edits(edit(BAKE, "  // mode=max also exports the builder stage's layers, which hold the expensive warm-up.\n",
                "  // mode=min: the published image's layers only (with the builder stage's the registry cache passed 40 GB).\n"),
           edit(BAKE, 'mode=max"]', 'mode=min"]')),
     old=("`CACHE_TO_REF` exports with `mode=max`",),
     expect="the production target's registry cache export becomes mode=min (the builder stage's layers made the "
            "cache too large), with its comment: options.md's hand-written '`CACHE_TO_REF` exports with "
            "`mode=max`, so the layers of the builder stage (the expensive warm-up) are in the cache' is false: "
            "check fails at that line"),
Case("w6-script-bootstrap-leaves-site-out", "m-615", "maintainer",
     edits(edit("scripts/bootstrap", "STEPS=6", "STEPS=5"),
           edit("scripts/bootstrap", 'step "Docs site"\nscripts/build-docs\n\n', ""),
           edit("scripts/bootstrap",
                "# the browser tests, a Docker engine, the local base and uv images, the hermetic nmp-rl-base image, and the\n"
                "# docs site. Every step",
                "# the browser tests, a Docker engine, the local base and uv images and the hermetic nmp-rl-base image (the\n"
                "# site is built by the tests that need it). Every step")),
     old=("the hermetic image, the docs site), printing each step",),
     expect="bootstrap drops its last step, the docs site build (the site tests build it themselves): five steps; "
            "the README's hand-written list of what the set-up installs, '(the Python venv with pinned tools, "
            "Chromium, a Docker engine, the hermetic image, the docs site)', is false: check fails at that line"),
Case("w6-script-docker-engine-pins-sid-in-etc-apt", "m-617", "maintainer",
     edits(edit("scripts/docker-engine",
                "# libc6 and everything else stay on bookworm. The system's /etc/apt is never modified.\n",
                "# libc6 and everything else stay on bookworm. sid's source and its pin go into /etc/apt\n"
                "# (sources.list.d/nmp-sid.list, preferences.d/nmp-sid), so apt-get upgrade keeps the engine current.\n"),
           _replace_lines("scripts/docker-engine", '  APTO=(-o "Dir::Etc::SourceList', '        -o "Dir::State::Lists',
                          "  APTO=(-o Acquire::Languages=none\n"),
           _replace_lines("scripts/docker-engine", '  cat >"$APT_DIR/sources.list" <<EOS', "EOS",
                          "  cat >/etc/apt/sources.list.d/nmp-sid.list <<EOS\ndeb $mirror sid main\nEOS\n"),
           edit("scripts/docker-engine", 'cat >"$APT_DIR/preferences" <<\'EOS\'',
                "cat >/etc/apt/preferences.d/nmp-sid <<'EOS'")),
     old=("without touching the system's apt configuration",),
     expect="docker-engine now writes sid's source and pin into the system's /etc/apt (sources.list.d, "
            "preferences.d) instead of a private apt configuration: hermetic.md's hand-written '(it installs one "
            "from Debian packages if the machine has none, without touching the system's apt configuration' is "
            "false: check fails at that line"),
Case("w6-script-check-engine-exit-1-when-old", "m-619", "maintainer",
     edits(edit("scripts/check-engine",
                "Exit 0 when the engine is new enough, 2 when it is older or does not answer.",
                "Exit 0 when the engine is new enough, 1 when it is older, 2 when it does not answer."),
           edit("scripts/check-engine", "installs one from Debian sid).\\n' >&2\n  exit 2\n",
                "installs one from Debian sid).\\n' >&2\n  exit 1\n")),
     old=("exits 2 on an older engine",),
     expect="check-engine tells a too-old engine (exit 1, the workflow provisions a newer one) from a missing one "
            "(exit 2): options.md's hand-written '`scripts/build-image` runs `scripts/check-engine` first, which "
            "says so and exits 2 on an older engine' is false: check fails at that line"),
]
