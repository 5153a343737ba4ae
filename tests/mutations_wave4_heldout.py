"""Wave 4 of the issue-27 generalisation corpus: the held-out half of the mutations.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet; the full wave-4 list was split by
`split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once. Run with bench/generalise.py --set wave4_heldout.
"""

from __future__ import annotations

from pathlib import Path

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, actor, edit, edits, move_actor, project_key, snap)

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
Case("w4-up-broker-actor-to-system", "2027-01-06", "upstream-style",
     snap(move_actor("nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor", "SYSTEM")),
     old=("(and the sandbox actors this fork adds)", "and the sandbox actors this fork adds run in `nemo_gym` venvs"),
     expect="the fork's episode broker becomes a plain bookkeeping actor on `sys.executable` (it imports nothing from "
            "NeMo-Gym any more): its filter now selects an actor that gets no venv (findings at the Dockerfile's count "
            "comment and verification loop); venvs.md's and workflows.md's hand-written sentences that the sandbox "
            "actors run in (prefetched) `nemo_gym` venvs are false for the broker: check fails at those lines"),
Case("w4-up-requires-python-floor", "2027-01-11", "upstream-style",
     snap(project_key("requires_python", ">=3.13.15,<3.14")),
     old=("Python is 3.13.14,",),
     expect="NeMo-RL raises its Python floor to 3.13.15 (a CPython security fix): the Dockerfile's PYTHON_VERSION "
            "3.13.14 no longer satisfies requires-python, so every `uv sync` of the build fails. check must fail "
            "(a finding at the PYTHON_VERSION ARG); index.md's 'Python is 3.13.14' describes an image that cannot "
            "be built"),
Case("w4-up-build-group-renamed", "2027-01-18", "upstream-style",
     snap(_rename_group("build", "build-deps")),
     old=("NeMo-RL makes its `build` dependency group",),
     expect="upstream renames the default dependency group `build` to `build-deps` (still a default group): "
            "transformer-engine.md's hand-written sentence names a group NeMo-RL no longer has: check fails at "
            "that line"),
Case("w4-df-gym-venv-env-renamed", "w4-m-001", "maintainer",
     edit(DOCKERFILE, "    NEMO_GYM_VENV_DIR=/opt/gym_venvs", "    NEMO_GYM_VENVS_ROOT=/opt/gym_venvs"),
     old=("`NEMO_GYM_VENV_DIR`\n:   Where NeMo-Gym creates the venvs", "`NEMO_GYM_VENV_DIR` (`/opt/gym_venvs`)"),
     expect="NeMo-Gym renamed the variable it reads, and the image follows: the ENV is now NEMO_GYM_VENVS_ROOT. "
            "The runtime table re-renders; runtime.md's definition list entry and venvs.md's sentence still name "
            "`NEMO_GYM_VENV_DIR`, which the image no longer sets: check fails at those lines"),
Case("w4-df-vllm-copies-read-only", "w4-m-003", "maintainer",
     edits(edit(DOCKERFILE,
                "# NeMo-RL patches vLLM in place when a worker starts; a symlinked tree would patch the shared cache.\n"
                "# Give each venv its own real copy, writable by the runtime group.\n",
                "# NeMo-RL patches vLLM in place during the prefetch; a symlinked tree would have patched the shared\n"
                "# cache. Each venv keeps its own real copy, read-only like everything else.\n"),
           edit(DOCKERFILE, '  chmod -R g+w "$pkg"\n', "")),
     old=("belong to the runtime group and are group-writable", "real files writable by the runtime group"),
     expect="security hardening: the private vLLM copies stay group-owned but lose group write: the vllm-copies "
            "block and the writable-count transcript re-render (0 group-writable copies); inspect.md's hand-written "
            "'belong to the runtime group and are group-writable' is false: check fails at that sentence"),
Case("w4-df-debug-stage-appended", "w4-m-005", "maintainer",
     edits(edit(DOCKERFILE, "USER ${RUNTIME_UID}:${RUNTIME_GID}\n",
                "USER ${RUNTIME_UID}:${RUNTIME_GID}\n"
                "\n"
                "# ----------------------------------------------------------------------------------- nmp-rl-debug\n"
                "# The published image plus debuggers, for support engineers (bake target `debug`); never the default.\n"
                "FROM nmp-rl-base AS nmp-rl-debug\n"
                "ARG RUNTIME_UID\n"
                "ARG RUNTIME_GID\n"
                "USER root\n"
                'RUN <<"EOF" bash -exu -o pipefail\n'
                "umask 022\n"
                "export DEBIAN_FRONTEND=noninteractive\n"
                "apt-get update\n"
                "apt-get install -y --no-install-recommends gdb strace\n"
                "rm -rf /var/lib/apt/lists/*\n"
                "EOF\n"
                "USER ${RUNTIME_UID}:${RUNTIME_GID}\n"),
           edit(BAKE, '  tags = ["nmp-rl-base:hermetic-gym"]\n}\n',
                '  tags = ["nmp-rl-base:hermetic-gym"]\n}\n'
                "\n"
                "// The production image plus gdb and strace, for support engineers.\n"
                'target "debug" {\n'
                '  inherits = ["production"]\n'
                '  target   = "nmp-rl-debug"\n'
                '  tags     = ["nmp-rl-base:debug"]\n'
                "}\n")),
     old=("the published image is the last one",),
     expect="a debug stage is appended after nmp-rl-base (bake target `debug`); every other target still builds "
            "nmp-rl-base, which stays the published image: index.md's hand-written 'the published image is the last "
            "one' is false: check fails at that sentence (the stage tables gain the debug stage)"),
Case("w4-df-warm-stage-split-off", "w4-m-007", "maintainer",
     edits(edit(DOCKERFILE, " builder\nFROM base AS builder\n", " warm\nFROM base AS warm\n"),
           edit(DOCKERFILE, "# The rest of the source, then the RL root itself",
                "# --------------------------------------------------------------------------------------- builder\n"
                "# Split from `warm` so CI can build and push `--target warm` (the expensive cache) on its own.\n"
                "FROM warm AS builder\n"
                "ARG BUILD_UID\n"
                "\n"
                "# The rest of the source, then the RL root itself")),
     old=("in the `builder` stage first",),
     expect="the warm-up moves into its own stage `warm`; `builder` (FROM warm) keeps the full-source COPY, the "
            "editable install and the prefetch: stage tables and graphs re-render; add-worker.md's hand-written "
            "instruction to add a warm-up line 'in the `builder` stage' points at the wrong stage: check fails there"),
Case("w4-bake-cacert-path-rhel", "w4-m-009", "maintainer",
     edits(edit(BAKE, 'default = "/etc/ssl/certs/ca-certificates.crt"', 'default = "/etc/pki/tls/certs/ca-bundle.crt"'),
           edit("scripts/build-image", "CACERT=${CACERT:-/etc/ssl/certs/ca-certificates.crt}",
                "CACERT=${CACERT:-/etc/pki/tls/certs/ca-bundle.crt}")),
     old=("--allow=fs.read=/etc/ssl/certs/ca-certificates.crt",),
     expect="CI moved to RHEL-family runners: the bake variable CACERT (and build-image's default) is now the RHEL "
            "bundle path. hermetic.md's hand-written bake commands grant read access to the old path, so bake "
            "refuses (or asks for) the new one: check fails at those command lines"),
Case("w4-script-check-engine-exit-1", "w4-m-011", "maintainer",
     edits(edit("scripts/check-engine", "Exit 0 when the engine is new enough, 2 when it is older or does not answer.",
                "Exit 0 when the engine is new enough, 1 when it is older, 2 when it does not answer."),
           edit("scripts/check-engine", "installs one from Debian sid).\\n' >&2\n  exit 2\n",
                "installs one from Debian sid).\\n' >&2\n  exit 1\n")),
     old=("exits 2 on an older engine",),
     expect="check-engine now tells a too-old engine (exit 1) from one that does not answer (exit 2): options.md's "
            "hand-written 'which says so and exits 2 on an older engine' is false: check fails at that line"),
Case("w4-script-bootstrap-no-docs-site", "w4-m-013", "maintainer",
     edits(edit("scripts/bootstrap", "the hermetic nmp-rl-base image, and the\n# docs site. Every step",
                "and the hermetic nmp-rl-base\n# image (the docs site is left to scripts/build-docs). Every step"),
           edit("scripts/bootstrap", "STEPS=6", "STEPS=5"),
           edit("scripts/bootstrap", ", debootstrap (base image), npm (docs site)\"", ", debootstrap (base image)\""),
           edit("scripts/bootstrap", "command -v npm >/dev/null || missing+=(npm)\n", ""),
           edit("scripts/bootstrap", 'step "Docs site"\nscripts/build-docs\n\n', "")),
     old=("the hermetic image, the docs site)",),
     expect="bootstrap stops building the docs site (and installing npm for it); the README's hand-written list of "
            "what the set-up installs still ends with 'the docs site': check fails at that line"),
Case("w4-df-repo-moved-to-org", "w4-m-015", "maintainer",
     edit(DOCKERFILE, "ARG NEMO_RL_REPO=https://github.com/soluwalana/RL.git",
          "ARG NEMO_RL_REPO=https://github.com/NVIDIA-NeMo/RL-nmp.git"),
     old=("soluwalana/RL",),
     expect="the fork is transferred to the NVIDIA-NeMo organisation and the Dockerfile's NEMO_RL_REPO follows, "
            "without a new snapshot: the options table re-renders the URL, but index.md's value (from the snapshot's "
            "provenance) still names soluwalana/RL: check must fail, asking for a snapshot of the repository the "
            "Dockerfile builds"),
Case("w4-script-publish-stable-alias", "w4-m-017", "maintainer",
     edit("scripts/publish-docs", "latest", "stable", count=0),
     old=("with the `latest` alias", "every version but `latest` and `dev`"),
     expect="releases of the site now carry mike's `stable` alias instead of `latest`: contributing.md's hand-written "
            "sentences about the `latest` alias are false: check fails at those lines"),
Case("w4-df-checkout-workdir-moved", "w4-m-019", "maintainer",
     edits(edit(DOCKERFILE, "WORKDIR /opt/nemo-rl", "WORKDIR /workspace/nemo-rl"),
           edit(DOCKERFILE, "/opt/nemo_rl_venv /opt/nemo-rl\n", "/opt/nemo_rl_venv /workspace/nemo-rl\n")),
     old=("at `/opt/nemo-rl`, the base", "`uv run --locked --extra fsdp --directory /opt/nemo-rl`"),
     expect="the NeMo-RL checkout moves to /workspace/nemo-rl (the platform's convention for job code): the "
            "checkout path values, the PY_EXECUTABLES commands ({git_root}) and the editable sources re-render"),
]
