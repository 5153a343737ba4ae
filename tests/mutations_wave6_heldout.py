"""Wave 6 of the issue-27 generalisation corpus: the held-out half of the mutations.

Written before the design, by someone who did not read the checker (docgen/) and had read only the pages, the
inputs and the earlier waves' development cases, to name kinds of change nobody had named yet: values and
steps moved rather than changed, quantifier and order words in prose going false, negations and exclusivity
going false, NeMo-RL changes that prose describes in words, script and bake defaults, steps and options,
coordinated changes of two inputs, and sizes and durations written by hand. The full wave-6 list was split
by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once.
Run with bench/generalise.py --set wave6_heldout.
"""

from __future__ import annotations

from pathlib import Path

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, actor, edit, edits, replace_package, snap)

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
Case("w6-up-sandbox-actors-upstreamed", "2027-03-09", "upstream-style",
     snap(_actor_field("nemo_rl.environments.sandbox.nemo_gym_actor.SandboxedGymActor", source="upstream"),
          _actor_field("nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor", source="upstream")),
     old=("the sandbox actors this fork adds",),
     expect="NVIDIA-NeMo/RL merges the fork's sandbox actors (same modules, same NEMO_GYM member) and the fork "
            "rebases onto it: the registry now lists both as upstream's, nothing fork-only is left in it. "
            "venvs.md's '(and the sandbox actors this fork adds)' and workflows.md's 'the sandbox actors this fork "
            "adds' are false: check fails at those lines (nothing else on the pages changes)"),
Case("w6-up-modelopt-wheel-from-index", "2027-03-20", "upstream-style",
     snap(_modelopt_source_dropped, _override("nvidia-modelopt", "nvidia-modelopt[torch]>=0.46.0"),
          replace_package("nvidia-modelopt==0.46.0.dev86+gc3b913b9c", "nvidia-modelopt==0.46.0", version="0.46.0",
                          source_kind="registry", source_built=False,
                          source="registry+https://index.invalid/simple")),
     old=("| nvidia-modelopt from git |", "`nvidia-modelopt` (mcore → modelopt)",
          "| `nvidia-modelopt` | `0.46.0.dev86+gc3b913b9c` | git, built from source |"),
     expect="Model Optimizer 0.46.0 is released and NeMo-RL drops its git source for nvidia-modelopt (the override "
            "asks for >=0.46.0): the lock takes a wheel from the index, no longer source-built. The shared-builds "
            "lists, source-build and per-extra tables re-render (no `nvidia-modelopt` (mcore → modelopt)); the "
            "Dockerfile's warm comment '# nvidia-modelopt from git', which the warm-steps tables copy, is false: a "
            "finding at that comment (write cannot fix it)"),
Case("w6-up-te-override-release-tag", "2027-03-30", "upstream-style",
     snap(_override("transformer-engine",
                    "transformer-engine[pytorch,core_cu13] @ git+https://github.com/NVIDIA/TransformerEngine.git@v2.15.1"),
          replace_package("transformer-engine==2.15.0+42b8400", "transformer-engine==2.15.1+9c1e5f2",
                          version="2.15.1+9c1e5f2",
                          source=f"git+https://github.com/NVIDIA/TransformerEngine.git?tag=v2.15.1#{TE_TAG_SHA}")),
     old=("from that\nbranch.", "2.15.0+42b8400", "release_v2.15"),
     expect="NeMo-RL pins the Transformer-Engine override to the release tag v2.15.1 instead of the release_v2.15 "
            "branch: the TE version values, the uv-override block, the te-consumers, source-build and shared-build "
            "tables and the version transcripts re-render 2.15.1+9c1e5f2 and the tag; transformer-engine.md's "
            "hand-written '..., from that branch.' after the override is false (a tag now): check fails at that line"),
Case("w6-df-ca-bundle-kept-for-runtime", "m-602", "maintainer",
     edit(DOCKERFILE, "# Where CMake comes from:",
          "# Jobs run behind the same TLS-inspecting proxy as the build: the CA the build was given goes into the\n"
          "# system store too, so Python, curl and git in the container trust it.\n"
          'RUN --mount=type=secret,id=cacert <<"EOF" bash -exu -o pipefail\n'
          "umask 022\n"
          "if [ ! -f /run/secrets/cacert ]; then exit 0; fi\n"
          "install -m 0644 /run/secrets/cacert /usr/local/share/ca-certificates/nmp-build-ca.crt\n"
          "update-ca-certificates\n"
          "EOF\n\n"
          "# Where CMake comes from:"),
     old=("so it is in no layer and",),
     expect="the base stage now installs the CA bundle it receives as the `cacert` secret into the system trust "
            "store, a file in the image: hermetic.md's hand-written 'The CA bundle ... reaches the build as a "
            "BuildKit secret, so it is in no layer' is false: check fails at that line"),
Case("w6-df-gym-step-before-actor-prefetch", "m-604", "maintainer",
     _move_before(DOCKERFILE, "# NeMo-Gym configs (space-separated paths)", "EOF", "# Not prefetched (uv actors"),
     old=("the build step after the actor prefetch runs NeMo-RL's",),
     expect="a maintainer moves the Gym venv step (its two ARGs and RUN) before the actor prefetch, so that an "
            "edit to the prefetch filters no longer rebuilds the Gym venvs; nothing else changes. venvs.md's "
            "hand-written 'the build step after the actor prefetch runs NeMo-RL's `examples/nemo_gym/prefetch_venvs.py`' "
            "is false (it runs before it now): check fails at that line"),
Case("w6-df-editable-install-default-link-mode", "m-606", "maintainer",
     edit(DOCKERFILE, "export UV_LINK_MODE=symlink\nuv pip install --python", "uv pip install --python"),
     old=("(the warm-up syncs, the editable install and the prefetch)",),
     expect="a maintainer drops `export UV_LINK_MODE=symlink` from the editable-install RUN step (a --no-deps "
            "install of the RL root links nothing from the cache): layering.md's hand-written list of the steps "
            "that export it, '(the warm-up syncs, the editable install and the prefetch)', is false: check fails "
            "at that line"),
Case("w6-df-cache-lock-chmod-dropped", "m-608", "maintainer",
     edits(edit(DOCKERFILE,
                "# uv makes its cache lock files world-writable; the cache must stay read-only to everyone but the build user.\n"
                "find /opt/uv_cache -type f -name '*.lock' -perm /go=w -exec chmod go-w {} +\n", ""),
           edit(DOCKERFILE,
                "> /opt/nemo_rl_container_fingerprint\nfind /opt/uv_cache -type f -name '*.lock' -perm /go=w -exec chmod go-w {} +\n",
                "> /opt/nemo_rl_container_fingerprint\n"),
           edit(DOCKERFILE, "  find /opt/uv_cache -type f -name '*.lock' -perm /go=w -exec chmod go-w {} +\nfi\n", "fi\n")),
     old=("Nothing in the cache, and nothing in a prefetched venv",
          "$ find /opt/uv_cache ! -type l -perm /go=w | wc -l\n0\n"),
     expect="a maintainer deletes the three `find /opt/uv_cache ... -exec chmod go-w` lines and their comment as "
            "noise; uv (unchanged, 0.11.33) still creates its cache lock files world-writable, so the cache holds "
            "files others may write: inspect.md's hand-written 'Nothing in the cache, and nothing in a prefetched "
            "venv outside its `vllm/` copy, is writable by group or others' and the writable transcript's first "
            "count (0) are false: check fails there"),
Case("w6-df-value-worker-v2-prefetched", "m-610", "maintainer",
     edits(edit(DOCKERFILE, "  broker_actor.SandboxEpisodeBrokerActor\n",
                "  broker_actor.SandboxEpisodeBrokerActor \\\n  dtensor_value_worker_v2.DTensorValueWorkerV2\n"),
           edit(DOCKERFILE, "  nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor \\\n",
                "  nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor \\\n"
                "  nemo_rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2 \\\n"),
           edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Nine filters -> ten venvs."),
           edit(DOCKERFILE,
                "#   nemo_rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2: critic-free value worker\n",
                "")),
     old=("leaves it out today because the jobs it serves are critic-free",
          "NeMo-RL's value workers (used by PPO) are therefore not prefetched"),
     expect="PPO customers arrive and a maintainer does the add-worker runbook's example for real (filter, "
            "verification line, count comment 'Nine filters -> ten venvs.', the `# Not prefetched` line removed): "
            "the Dockerfile is consistent and every count and table re-renders (ten venvs); add-worker.md's 'The "
            "image leaves it out today because the jobs it serves are critic-free' and workflows.md's 'NeMo-RL's "
            "value workers (used by PPO) are therefore not prefetched' are false: check fails at those lines"),
Case("w6-df-gym-intree-limit-raised", "m-612", "maintainer",
     edit(DOCKERFILE, "ARG NEMO_GYM_INTREE_MAX_MIB=64", "ARG NEMO_GYM_INTREE_MAX_MIB=256"),
     old=("(64 MiB by default)",),
     setup=edit("docs/image/venvs.md", "`NEMO_GYM_INTREE_MAX_MIB`\nin the Gym source tree",
                "`NEMO_GYM_INTREE_MAX_MIB`\n(64 MiB by default) in the Gym source tree"),
     expect="a maintainer had written the in-tree limit's default beside its name in venvs.md ('(64 MiB by "
            "default)', recorded by write); the default is then raised to 256 (NeMo-Gym now vendors its server "
            "wheels in the tree): the options table re-renders 256; the hand-written size is false: check fails "
            "at that line"),
Case("w6-script-standin-dir-renamed", "m-614", "maintainer",
     edits(edit(BAKE, 'default = "build/standin"', 'default = "build/nemo-rl-standin"'),
           edit(BAKE, "(docgen standin --out build/standin)", "(docgen standin --out build/nemo-rl-standin)"),
           edit("scripts/build-image", "STANDIN_DIR=${STANDIN_DIR:-build/standin}",
                "STANDIN_DIR=${STANDIN_DIR:-build/nemo-rl-standin}"),
           edit("scripts/build-image", "into build/standin", "into build/nemo-rl-standin")),
     old=("docgen standin --out build/standin`) exist", "--allow=fs.read=build/standin hermetic"),
     expect="the stand-in workspace's default directory becomes build/nemo-rl-standin in docker-bake.hcl and "
            "scripts/build-image together (they must agree): hermetic.md's 'the stand-in workspace (`build/standin`, "
            "written by `scripts/build-image` or `docgen standin --out build/standin`)' and its two bake commands, "
            "which grant read access to build/standin while the hermetic targets read build/nemo-rl-standin, are "
            "false: check fails at those lines"),
Case("w6-script-base-image-by-mmdebstrap", "m-616", "maintainer",
     edits(edit("scripts/make-local-images",
                "#   local/python:3.13-trixie       debootstrap trixie minbase",
                "#   local/python:3.13-trixie       mmdebstrap trixie minbase"),
           edit("scripts/make-local-images",
                '  if ! command -v debootstrap >/dev/null; then\n    log "installing debootstrap (bookworm)"\n',
                '  if ! command -v mmdebstrap >/dev/null; then\n    log "installing mmdebstrap (bookworm)"\n'),
           edit("scripts/make-local-images", "--no-install-recommends debootstrap >/dev/null",
                "--no-install-recommends mmdebstrap >/dev/null"),
           _replace_lines("scripts/make-local-images", '  log "debootstrap $SUITE minbase', "      /^[EW]:/",
                          '  log "mmdebstrap $SUITE minbase + $BASE_PACKAGES"\n'
                          "  # mmdebstrap fetches with apt, in parallel, and prints one line per phase\n"
                          '  mmdebstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$root" "$mirror"\n'),
           edit("scripts/bootstrap", "command -v debootstrap >/dev/null || missing+=(debootstrap)",
                "command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)"),
           edit("scripts/bootstrap", "debootstrap (base image)", "mmdebstrap (base image)"),
           edit("scripts/bootstrap", "(debootstrap shows its progress the first time)",
                "(mmdebstrap shows its progress the first time)"),
           edit("scripts/bootstrap", "(apt, pip, debootstrap, the image build)", "(apt, pip, mmdebstrap, the image build)")),
     old=("a Debian base image made with\ndebootstrap",),
     expect="the local base image is made with mmdebstrap instead of debootstrap, in make-local-images and in "
            "bootstrap's package list together: hermetic.md's hand-written '(a Debian base image made with "
            "debootstrap, ...)' is false: check fails at that line"),
Case("w6-script-publish-docs-any-tag", "m-618", "maintainer",
     edits(edit("scripts/publish-docs",
                "# Only a release tag (v followed by a digit) takes `latest`; any other tag is refused (exit 2, nothing\n"
                "# written), so `latest` never lands on a tag that is not a release.",
                "# Only a release tag (v followed by a digit) takes `latest`; any other tag (a release candidate, say)\n"
                "# is published as a version of its own, so `latest` never lands on a tag that is not a release."),
           _replace_lines("scripts/publish-docs", "  tag) [[ $name =~ ^v[0-9] ]]", "       version=$name ;;",
                          '  tag) [ -n "$name" ] || need "usage: scripts/publish-docs tag NAME"\n'
                          "       version=$name ;;\n"),
           edit("scripts/publish-docs", 'if [ "$kind" = tag ]; then\n',
                'if [ "$kind" = tag ] && [[ $version =~ ^v[0-9] ]]; then\n'),
           edit("scripts/publish-docs", '  default=latest\nelse\n',
                '  default=latest\nelif [ "$kind" = tag ]; then\n  "$mike" deploy "$version"\n'
                '  if "$mike" list latest >/dev/null 2>&1; then default=latest; else default=dev; fi\nelse\n')),
     old=("(another tag is\nrefused)",),
     expect="publish-docs publishes any other tag (a release candidate) as a version of its own, without `latest`, "
            "instead of refusing it: contributing.md's hand-written '(another tag is refused)' is false: check "
            "fails at that line"),
Case("w6-script-docker-engine-waits-longer", "m-620", "maintainer",
     edits(edit("scripts/docker-engine", "for i in $(seq 1 120); do", "for i in $(seq 1 360); do"),
           edit("scripts/docker-engine", "dockerd did not answer within 30 s", "dockerd did not answer within 90 s")),
     old=("waits up to 30 s",),
     setup=edit("docs/building/hermetic.md", "```bash\nscripts/docker-engine start\n```\n",
                "```bash\nscripts/docker-engine start\n```\n\n"
                "`scripts/docker-engine start` waits up to 30 s for a freshly started engine to answer, then prints "
                "the end of its log.\n"),
     expect="a maintainer had documented how long `scripts/docker-engine start` waits for dockerd (30 s, recorded "
            "by write); on slow CI machines the wait becomes 90 s (360 polls of 0.25 s, and the message): "
            "hermetic.md's 'waits up to 30 s' is false: check fails at that line"),
]
