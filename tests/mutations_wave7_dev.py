"""Wave 7 of the issue-27 generalisation corpus: the development half of the mutations.

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
Run with bench/generalise.py --set wave7_dev.
"""

from __future__ import annotations

from pathlib import Path

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, edit, edits, replace_package, requirement, snap)

# ------------------------------------------------------------------ what these cases share
SNAPSHOT_COMMIT = "7ea279abfbeb698b092856d0dab61e7cf39bc909"   # provenance.commit of the snapshot
FILTERS_4SP = ("    dtensor_policy_worker.DTensorPolicyWorker \\\n"
               "    dtensor_policy_worker_v2.DTensorPolicyWorkerV2 \\\n"
               "    megatron_policy_worker.MegatronPolicyWorker \\\n"
               "    vllm.vllm_worker \\\n"
               "    sync_rollout_actor.SyncRolloutActor \\\n"
               "    nemo_gym.NemoGym \\\n"
               "    nemo_gym_actor.SandboxedGymActor \\\n"
               "    broker_actor.SandboxEpisodeBrokerActor\n")


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


def _out_of_install_sets(key, *names):
    """`key` leaves the named install sets (each must hold it)."""
    def change(data):
        sets = data["lock"]["install_sets"]
        for name in names:
            assert key in sets[name], name
            sets[name] = [m for m in sets[name] if m != key]
    return change


def _gym_no_longer_a_workspace_member(data):
    """NeMo-Gym leaves NeMo-RL's uv workspace: no `[tool.uv.sources]` workspace entry, no member, and no
    conflicts declared on its extras (uv declares those for workspace members only); the nemo_gym extra
    requires the release from the index."""
    project = data["project"]
    sources = [s for s in project["sources"] if s["name"] != "nemo_gym"]
    assert len(sources) == len(project["sources"]) - 1
    project["sources"] = sources
    project["workspace_members"].remove("3rdparty/Gym-workspace/Gym")
    assert project["extras"]["nemo_gym"] == ["nemo_gym"]
    project["extras"]["nemo_gym"] = ["nemo-gym==0.4.0"]
    project["conflicts"] = [c for c in project["conflicts"] if all(i["package"] != "nemo-gym" for i in c)]


def _provenance_ref(value):
    def change(data):
        data["provenance"]["ref"] = value
    return change


CASES = [
Case("w7-up-transformers-leaves-base", "2027-04-02", "upstream-style",
     snap(_out_of_install_sets("transformers==5.5.4", "", "nvrx"),
          requirement("fsdp", "transformers>=5.5.4,<5.6"), requirement("modelopt", "transformers>=5.5.4,<5.6"),
          requirement("nemo_gym", "transformers>=5.5.4,<5.6"), requirement("trtllm", "transformers>=5.5.4,<5.6")),
     old=("NeMo-RL's core dependencies (torch, Ray,\ntransformers, datasets, ...)",),
     expect="upstream moves transformers out of NeMo-RL's base dependencies (every backend pins its own): the base "
            "install set (the driver venv's) and nvrx's lose it, fsdp, modelopt, nemo_gym and trtllm require "
            "5.5.4 themselves. Nothing generated names the base set's transformers; workers.md's hand-written "
            "'NeMo-RL's core dependencies (torch, Ray, transformers, datasets, ...)' for what the driver's base "
            "venv holds is false for transformers: check fails at that line"),
Case("w7-up-nemo-gym-from-index", "2027-04-15", "upstream-style",
     snap(_gym_no_longer_a_workspace_member,
          replace_package("nemo-gym (editable)", "nemo-gym==0.4.0", version="0.4.0", editable=False,
                          source="registry+https://index.invalid/simple", source_built=False,
                          source_kind="registry")),
     old=("and NeMo-Gym (an editable workspace member, so its version says nothing; `...` matches any)",
          "the Gym workspace member"),
     expect="upstream publishes NeMo-Gym to the package index and drops the 3rdparty/Gym-workspace submodule from "
            "the uv workspace: the nemo_gym extra requires nemo-gym==0.4.0, a registry wheel. The editable-sources "
            "table, the nemo_gym package tables and the nemo-gym console block re-render (a version now); "
            "inspect.md's hand-written 'and NeMo-Gym (an editable workspace member, so its version says nothing; "
            "`...` matches any)' is false, and the warm comment 'the Gym workspace member' the warm-steps tables "
            "copy no longer describes the lock (the Gym step's 3rdparty/Gym-workspace/Gym path names a tree the "
            "checkout no longer has): check fails at the sentence and names the Dockerfile comment"),
Case("w7-df-prefetch-step-umask-002", "m-701", "maintainer",
     edits(edit(DOCKERFILE,
                "umask 022\nif [ -f /run/secrets/cacert ]; then export SSL_CERT_FILE=/run/secrets/cacert; fi\n"
                "export UV_LINK_MODE=symlink\n# Eight filters -> nine venvs.\n",
                "# Group-writable venvs: a job may `uv pip install` into a prefetched venv (the venv parents give\n"
                "# everything created below them the runtime group).\n"
                "umask 002\nif [ -f /run/secrets/cacert ]; then export SSL_CERT_FILE=/run/secrets/cacert; fi\n"
                "export UV_LINK_MODE=symlink\n# Eight filters -> nine venvs.\n"),
           edit(DOCKERFILE, "# Numeric group of the runtime user; it may create new venvs beside the prefetched ones.",
                "# Numeric group of the runtime user; it may create new venvs beside the prefetched ones and install\n"
                "# into those too.")),
     old=("Every build step runs with `umask 022` instead", "with `umask 022`, so the runtime user",
          "`BUILD_UID`, with `umask 022`", "! -path '*/site-packages/vllm/*' | wc -l\n0"),
     expect="the actor-prefetch step runs under `umask 002`, so the prefetched venvs (their parents set-group-ID to "
            "the runtime group) are group-writable: the build-options table re-renders RUNTIME_GID's comment; "
            "layering.md's 'Every build step runs with `umask 022` instead', options.md's '`BUILD_UID`, with "
            "`umask 022`' and inspect.md's 'with `umask 022`, so the runtime user reads and runs them but cannot "
            "change them' are false for the venvs, and the console-writable transcript's 0 for group-writable "
            "files in the prefetched venvs is no longer what the image prints: check fails"),
Case("w7-df-prefetch-filters-reindented", "m-703", "maintainer",
     _replace_lines(DOCKERFILE, "  dtensor_policy_worker.DTensorPolicyWorker \\", "  broker_actor.SandboxEpisodeBrokerActor",
                    FILTERS_4SP),
     old=("sed -i '/^  megatron_policy_worker.MegatronPolicyWorker", "s|^  broker_actor.SandboxEpisodeBrokerActor$|&"),
     expect="a Dockerfile formatter indents the prefetch call's continuation lines by four spaces; no fact changes. "
            "contributing.md's transcript deletes the Megatron filter with `sed -i '/^  "
            "megatron_policy_worker.MegatronPolicyWorker \\\\$/d'` and add-worker.md appends after `^  "
            "broker_actor.SandboxEpisodeBrokerActor$`: both patterns, anchored on two spaces, match no line now, "
            "so the transcripts' findings are not what the commands produce: check fails at those commands"),
Case("w7-df-runtime-home-on-tmp", "m-705", "maintainer",
     edits(edit(DOCKERFILE, "# Numeric user the platform runs the container as; it gets a passwd entry and a writable HOME.",
                "# Numeric user the platform runs the container as; any uid works: there is no passwd entry, and HOME\n"
                "# is /tmp."),
           _replace_lines(DOCKERFILE, "# The runtime user: reuse an existing entry", 'install -d -o "${RUNTIME_UID}"',
                          "# The runtime group only: the platform starts the container under a uid of its choosing, with a\n"
                          "# read-only root, so the runtime user gets no passwd entry and no home (HOME is /tmp, set below).\n"
                          'getent group "${RUNTIME_GID}" >/dev/null || groupadd --gid "${RUNTIME_GID}" nmp\n'),
           edit(DOCKERFILE, "    PATH=/opt/nemo_rl_venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n",
                "    PATH=/opt/nemo_rl_venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\\n"
                "    HOME=/tmp\n")),
     old=("It has a passwd entry and a home directory of its\nown", "which gets a\n  passwd entry and a writable home directory",
          "it gets a passwd entry and a writable HOME"),
     expect="the platform now runs the container under arbitrary uids with a read-only root: the base stage creates "
            "only the runtime group (no passwd entry, no home), and the published image sets HOME=/tmp. The "
            "build-options table re-renders RUNTIME_UID's comment and the runtime-env table gains HOME; "
            "inspect.md's 'It has a passwd entry and a home directory of its own' and options.md's 'which gets a "
            "passwd entry and a writable home directory' are false: check fails at those lines"),
Case("w7-script-publish-docs-branch", "m-707", "maintainer",
     edits(edit("scripts/publish-docs",
                "# Publish the site as one version on the local gh-pages branch, with mike (the docs workflow's pages job\n"
                "# runs this, then pushes gh-pages; nothing here talks to a remote).\n",
                "# Publish the site as one version on the local docs-site branch, with mike (the docs workflow's pages\n"
                "# job runs this, then pushes docs-site, the branch GitHub Pages serves; nothing here talks to a remote).\n"),
           edit("scripts/publish-docs", "mike=$ROOT/.venv/bin/mike\n",
                "mike=$ROOT/.venv/bin/mike\n"
                "branch=docs-site   # the organisation keeps gh-pages for its own portal\n"),
           edit("scripts/publish-docs", '"$mike" deploy --update-aliases "$version" latest\n  "$mike" set-default latest\n',
                '"$mike" deploy --branch "$branch" --update-aliases "$version" latest\n'
                '  "$mike" set-default --branch "$branch" latest\n'),
           edit("scripts/publish-docs",
                '"$mike" deploy dev\n'
                '  if "$mike" list latest >/dev/null 2>&1; then default=latest; else "$mike" set-default dev; default=dev; fi\n',
                '"$mike" deploy --branch "$branch" dev\n'
                '  if "$mike" list --branch "$branch" latest >/dev/null 2>&1; then default=latest\n'
                '  else "$mike" set-default --branch "$branch" dev; default=dev; fi\n'),
           edit("scripts/publish-docs", 'folder=$("$mike" list --json |', 'folder=$("$mike" list --branch "$branch" --json |'),
           edit("scripts/publish-docs", "committed on gh-pages beside", "committed on $branch beside"),
           edit("scripts/publish-docs", "git read-tree gh-pages\n", 'git read-tree "$branch"\n'),
           edit("scripts/publish-docs", '"gh-pages:$folder/404.html"', '"$branch:$folder/404.html"'),
           edit("scripts/publish-docs", "\"$(git rev-parse 'gh-pages^{tree}')\"", '"$(git rev-parse "$branch^{tree}")"'),
           edit("scripts/publish-docs", '-p gh-pages -m', '-p "$branch" -m'),
           edit("scripts/publish-docs", 'refs/heads/gh-pages "$commit"', '"refs/heads/$branch" "$commit"'),
           edit("scripts/publish-docs", "published on gh-pages (default", "published on $branch (default")),
     old=("publishes it with `mike` on the `gh-pages` branch",),
     expect="publish-docs publishes with mike onto a `docs-site` branch (`--branch` on every mike call, the root 404 "
            "committed there) because the organisation reserves gh-pages: contributing.md's hand-written "
            "'publishes it with `mike` on the `gh-pages` branch' is false: check fails at that line"),
Case("w7-df-count-comment-dropped", "m-709", "maintainer",
     edit(DOCKERFILE, "# Eight filters -> nine venvs.\n", ""),
     old=("The filter raises three findings in the Dockerfile",
          "The comment above the prefetch call states how many filters give how many venvs",
          "[count-statement] comment '...' says ..."),
     expect="a maintainer deletes the count comment above the prefetch call ('Eight filters -> nine venvs.': "
            "`docgen inventory` prints it anyway); no fact of the image changes. The runbooks describe it: "
            "add-worker.md's 'The filter raises three findings in the Dockerfile', its step 3 'The comment above the "
            "prefetch call states how many filters give how many venvs', and the `[count-statement]` lines both "
            "runbooks' transcripts expect (add-worker.md, contributing.md) are false: check fails at them"),
Case("w7-df-te-jobs-from-builder-memory", "m-711", "maintainer",
     edits(edit(DOCKERFILE,
                "# Parallel compile jobs of the Transformer-Engine build; with threads per job, bounds peak memory.\n"
                "ARG NVTE_BUILD_MAX_JOBS=8\n", ""),
           edit(DOCKERFILE,
                "export UV_LINK_MODE=symlink\nuv sync ${UV_SYNC_MODE} --no-install-project                    # base deps",
                "export UV_LINK_MODE=symlink\n"
                "# Transformer-Engine compile jobs: one per 6 GiB the builder has free (a job can take that much), at least one.\n"
                "export NVTE_BUILD_MAX_JOBS=$(awk '/^MemAvailable:/ {n = int($2 / 6291456); print (n > 0 ? n : 1)}' /proc/meminfo)\n"
                "uv sync ${UV_SYNC_MODE} --no-install-project                    # base deps")),
     old=("so lower them on a small builder rather than let it swap", "| `NVTE_BUILD_MAX_JOBS` | `8` | `builder` |"),
     expect="the Transformer-Engine job count is no longer a build argument: the warm-up step derives it from the "
            "builder's free memory. The build-options table loses the row; options.md's hand-written 'Build "
            "parallelism' advice ('the Transformer-Engine job and thread counts trade build time for memory ... so "
            "lower them on a small builder rather than let it swap') tells the reader to set a job count there is "
            "no argument for: check fails at that line"),
Case("w7-bake-default-group-hermetic", "m-713", "maintainer",
     edit(BAKE, 'group "default" {\n  targets = ["production"]\n}',
          "// A bare `docker buildx bake` must never pull the CUDA image by accident: the default is the hermetic build.\n"
          'group "default" {\n  targets = ["hermetic"]\n}'),
     old=("A bare `docker buildx bake` builds the `production` target",),
     expect="after a maintainer wrote in options.md that a bare `docker buildx bake` builds the `production` target, "
            "the bake file's `default` group becomes `hermetic` (no accidental pulls of the CUDA image): the "
            "recorded sentence is false: check fails at it (review)",
     setup=edit("docs/building/options.md", "target's `args`).\n",
                "target's `args`).\nA bare `docker buildx bake` builds the `production` target, the one target of the "
                "bake file's `default` group.\n")),
Case("w7-df-mcore-backend-dropped", "m-715", "maintainer",
     edits(edit(DOCKERFILE,
                "uv sync ${UV_SYNC_MODE} --no-install-project --extra mcore      # reuses automodel's TE wheel (cache keys on source, not extra)\n",
                "# No mcore: NMP's jobs train on DTensor; a Megatron job builds its venv on the node at first use.\n"),
           edit(DOCKERFILE, "  megatron_policy_worker.MegatronPolicyWorker \\\n", ""),
           edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Seven filters -> eight venvs."),
           edit(DOCKERFILE, "  nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker \\\n", ""),
           edit(DOCKERFILE, "#   nemo_rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker: sglang backend not built\n",
                "#   nemo_rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker: sglang backend not built\n"
                "#   nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker: mcore backend not built\n")),
     old=("# Why the mcore backend is built", "[Why the mcore backend is built]",
          "The `mcore` extra is the largest policy backend in the image", "## What mcore adds cheaply",
          "the second warm-up sync that needs it finds the\nwheel the first one built"),
     expect="a maintainer drops the Megatron backend from the image (warm step, filter, verification line; the "
            "worker is listed as not prefetched, 'mcore backend not built'): counts, warm lists, filter and venv "
            "tables, TE consumers and shared builds re-render (the mcore-adds block has no warmed mcore to render "
            "and must say so); the mcore page's title 'Why the mcore backend is built', the link texts to it in the "
            "README and workflows.md, 'The `mcore` extra is the largest policy backend in the image', "
            "transformer-engine.md's heading 'What mcore adds cheaply' and 'the second warm-up sync that needs it "
            "finds the wheel the first one built' (one warm step reaches TE now) are false: check fails at them"),
Case("w7-df-workdir-workspace", "m-717", "maintainer",
     edits(edit(DOCKERFILE, "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n",
                "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n"
                "# Jobs start in /workspace: the platform mounts the job's data there and collects its results from it.\n"
                'install -d -o "${RUNTIME_UID}" -g "${RUNTIME_GID}" -m 0755 /workspace\n'),
           edit(DOCKERFILE, "/usr/sbin:/usr/bin:/sbin:/bin\nUSER ${RUNTIME_UID}:${RUNTIME_GID}",
                "/usr/sbin:/usr/bin:/sbin:/bin\nWORKDIR /workspace\nUSER ${RUNTIME_UID}:${RUNTIME_GID}")),
     old=("The shell starts in the NeMo-RL checkout, the image's working directory",),
     expect="after a maintainer wrote in inspect.md that the shell starts in the NeMo-RL checkout, the image's "
            "working directory (the builder stage's WORKDIR, which the published stage inherits), the published "
            "stage sets WORKDIR /workspace (made for the runtime user): the recorded sentence is false: check fails "
            "at it",
     setup=edit("docs/image/inspect.md", "    docker run --rm -it nmp-rl-base:hermetic bash\n\n",
                "    docker run --rm -it nmp-rl-base:hermetic bash\n\n"
                "The shell starts in the NeMo-RL checkout, the image's working directory, so `examples/` and `nemo_rl/`\n"
                "are right where you land.\n\n")),
Case("w7-df-ref-pinned-to-commit", "m-719", "maintainer",
     edits(edit(DOCKERFILE,
                "# Branch, tag or commit of NEMO_RL_REPO to check out (submodules included).\nARG NEMO_RL_REF=nmp/customizer\n",
                "# Commit of NEMO_RL_REPO to check out (submodules included): pinned, so a rebuild gets the same NeMo-RL;\n"
                "# moving to a newer NeMo-RL moves the pin (the fork's branch is nmp/customizer).\n"
                f"ARG NEMO_RL_REF={SNAPSHOT_COMMIT}\n"),
           snap(_provenance_ref(SNAPSHOT_COMMIT))),
     old=("fetch the newest commit of the branch the image follows",
          "`NEMO_RL_REF`, the branch the image follows, at its newest commit"),
     expect="NEMO_RL_REF is pinned to the snapshot's commit instead of naming the fork's branch (same NeMo-RL, "
            "snapshot re-recorded with that ref): the build-options table and the ref value re-render; the "
            "README's routine ('fetch the newest commit of the branch the image follows (the Dockerfile's "
            "NEMO_RL_REF)') and upgrade-nemo-rl.md's '(by default `NEMO_RL_REF`, the branch the image follows, at "
            "its newest commit)' describe a branch the Dockerfile no longer names: a bump with no argument fetches "
            "the pinned commit and finds nothing new: check fails at those lines"),
Case("w7-df-te-private-copies", "m-721", "maintainer",
     edit(DOCKERFILE, 'echo "vllm copied into $copied venvs"\n',
          'echo "vllm copied into $copied venvs"\n'
          "# Transformer-Engine writes the kernels it compiles at first use next to its sources: a private copy per\n"
          "# venv too, or one job's kernels would land in the cache every other venv shares.\n"
          "for pkg in /opt/ray_venvs/*/lib/python3*/site-packages/transformer_engine; do\n"
          '  [ -d "$pkg" ] || continue\n'
          '  cp -a --dereference "$pkg" "$pkg.real"\n'
          '  rm -rf "$pkg"\n'
          '  mv "$pkg.real" "$pkg"\n'
          '  chown -R "${BUILD_UID}:${RUNTIME_GID}" "$pkg"\n'
          '  chmod -R g+w "$pkg"\n'
          "done\n"),
     old=("Every Transformer-Engine venv therefore resolves the same file to one place",
          "$ te_init nemo_rl.models.policy.workers.dtensor_policy_worker_v2.DTensorPolicyWorkerV2\n"
          "/opt/uv_cache/.../transformer_engine/__init__.py"),
     expect="the published stage gives each venv a private, group-writable copy of transformer_engine/, as it does "
            "for vllm/: inspect.md's hand-written 'Every Transformer-Engine venv therefore resolves the same file to "
            "one place' is false, and the console-te-shared transcript (each venv's __init__.py resolving into "
            "/opt/uv_cache) is not what the image prints; the private-copy block and the writable counts should "
            "say so: check fails"),
]
