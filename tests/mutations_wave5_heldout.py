"""Wave 5 of the issue-27 generalisation corpus: the held-out half of the mutations.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet: coordinated multi-file pull requests,
removals and additions, facts that follow from two inputs together, and subtle wrong claims; the full wave-5
list was split by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development
set, even positions are held out) and written out here once. Run with bench/generalise.py --set wave5_heldout.
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
Case("w5-up-te-override-dropped", "2027-02-04", "upstream-style",
     snap(_te_override_dropped),
     old=("the lock holds exactly one TE", "Because both extras resolve to the same locked TE"),
     expect="upstream drops the transformer-engine override: automodel's own tag v2.14.1 now locks for automodel "
            "while Megatron-Bridge keeps release_v2.15 for mcore, so the lock holds two TEs and both are built; TE "
            "stops being a shared build (shared-builds table, quick inventory, te-consumers re-render). "
            "transformer-engine.md's 'the lock holds exactly one TE' and 'Because both extras resolve to the same "
            "locked TE' are false, and the Dockerfile's mcore warm comment 'reuses automodel's TE wheel' is a "
            "finding at that comment: check fails"),
Case("w5-up-nemogym-actor-to-system", "2027-02-09", "upstream-style",
     edits(snap(_to_system("nemo_rl.environments.nemo_gym.NemoGym")),
           edit(DOCKERFILE, "  nemo_gym.NemoGym \\\n", ""),
           edit(DOCKERFILE, "  nemo_rl.environments.nemo_gym.NemoGym \\\n", ""),
           edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Seven filters -> eight venvs.")),
     old=("The `NemoGym` actor (and the sandbox actors this fork adds)\nrun in prefetched `nemo_gym` venvs",
          "The `NemoGym` actor\nand the sandbox actors this fork adds run in `nemo_gym` venvs"),
     expect="upstream runs the NemoGym actor on sys.executable (it only drives NeMo-Gym's own servers) and the PR "
            "drops its filter, its verification line and fixes the count comment: counts, filter table, venv "
            "inventory and transcripts re-render (8 venvs); venvs.md's and workflows.md's hand-written sentences "
            "that the NemoGym actor runs in a prefetched `nemo_gym` venv are false: check fails at those lines"),
Case("w5-up-dtensor-v1-removed", "2027-02-13", "upstream-style",
     edits(snap(drop_member("FSDP")),
           edit(DOCKERFILE, "  dtensor_policy_worker.DTensorPolicyWorker \\\n", ""),
           edit(DOCKERFILE, "  nemo_rl.models.policy.workers.dtensor_policy_worker.DTensorPolicyWorker \\\n", ""),
           edit(DOCKERFILE, "# Eight filters -> nine venvs.", "# Seven filters -> eight venvs.")),
     old=("DTensor V1 (extra `fsdp`, `DTensorPolicyWorker`)", "without that flag a DTensor config gets V1"),
     expect="upstream deletes the DTensor V1 policy worker and its FSDP member (the fsdp extra stays, still warmed); "
            "the PR drops its filter and verification line and fixes the count. Tables, counts and the transcripts "
            "that use the V1 venv re-render; workflows.md's hand-written definition 'DTensor V1 (extra `fsdp`, "
            "`DTensorPolicyWorker`)' and 'without that flag a DTensor config gets V1' describe a worker the "
            "registry no longer has: check fails at those lines"),
Case("w5-df-vllm-private-copy-dropped", "w5-m-002", "maintainer",
     _cut(DOCKERFILE, "# NeMo-RL patches vLLM in place", 'echo "vllm copied'),
     old=("copies the vLLM trees", "## Private vLLM copies", "VllmGenerationWorker: directory, 0 symlinks"),
     expect="NeMo-RL stopped patching vLLM in place, so the maintainer deletes the loop that gives each vLLM venv a "
            "real copy: the vllm-copies blocks and the writable-count transcript re-render (no private copies); "
            "layering.md's 'copies the vLLM trees' and inspect.md's heading 'Private vLLM copies' describe a step "
            "that is gone: check fails"),
Case("w5-df-usr-local-bin-left-writable", "w5-m-004", "maintainer",
     edit(DOCKERFILE, "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n", ""),
     old=("gives `/usr/local/bin` back to root",),
     expect="a maintainer drops the line that gives /usr/local/bin back to root (the published image keeps it "
            "group-writable by the build group): layering.md's 'gives `/usr/local/bin` back to root' is false, and "
            "the base stage's comment 'the published stage takes this back' is a stale Dockerfile comment: check "
            "fails"),
Case("w5-df-uv-stage-deleted", "w5-m-006", "maintainer",
     edits(edit(DOCKERFILE, "FROM ghcr.io/astral-sh/uv:${UV_VERSION} AS uv\n\n", ""),
           edit(DOCKERFILE, "COPY --from=uv /uv /uvx /usr/local/bin/\n",
                "ARG UV_VERSION\nCOPY --from=ghcr.io/astral-sh/uv:${UV_VERSION} /uv /uvx /usr/local/bin/\n"),
           edit(DOCKERFILE, "# uv release; the `uv` stage takes its static binaries from ghcr.io/astral-sh/uv:<this>.",
                "# uv release; the base stage copies its static binaries from ghcr.io/astral-sh/uv:<this>.")),
     old=("the `uv` stage's image is the local one", "| `uv` | `ghcr.io/astral-sh/uv:0.11.33` |  |"),
     expect="the one-line `uv` stage is deleted and base copies straight from the uv image: the stage graphs and "
            "tables re-render without it; hermetic.md's hand-written 'the `uv` stage's image is the local one' "
            "names a stage the Dockerfile no longer has: check fails at that line"),
Case("w5-bake-hermetic-runtime-uid-1001", "w5-m-008", "maintainer",
     edit(BAKE, '    SYSTEM_PACKAGES = ""\n  }\n  secret',
          '    SYSTEM_PACKAGES = ""\n'
          "    // match the CI runner's user (uid and gid 1001), so files written into mounted workspaces stay its own\n"
          '    RUNTIME_UID     = "1001"\n'
          '    RUNTIME_GID     = "1001"\n  }\n  secret'),
     old=("2000:1000 drwxrwsr-t /opt/ray_venvs", "-group 1000 -perm -g=w"),
     expect="the hermetic target runs its image as 1001:1001: the ownership and writable transcripts of inspect.md, "
            "which are run in the hermetic image, show group 1000 where that image has 1001 (and id -u 1000 where "
            "it has 1001): check must fail, naming the bake args that differ from the Dockerfile defaults the "
            "transcripts assume"),
Case("w5-df-uv-bumped-make-local-images-missed", "w5-m-010", "maintainer",
     edit(DOCKERFILE, "ARG UV_VERSION=0.11.33", "ARG UV_VERSION=0.11.40"),
     old=("the `uv` stage's image is the local one `scripts/make-local-images` tags under the registry name",
          "uv is 0.11.33"),
     expect="uv moves to 0.11.40 in the Dockerfile but scripts/make-local-images still defaults UV_VERSION to "
            "0.11.33, so the hermetic build's `FROM ghcr.io/astral-sh/uv:0.11.40` has no local image: the uv "
            "version value and stage tables re-render; hermetic.md's 'the `uv` stage's image is the local one "
            "`scripts/make-local-images` tags under the registry name' is false: check fails, naming the script's "
            "version"),
Case("w5-bake-cache-mode-min", "w5-m-012", "maintainer",
     edits(edit(BAKE, "  // mode=max also exports the builder stage's layers, which hold the expensive warm-up.\n",
                "  // mode=min: the published image's layers only (the registry quota cannot hold the warm-up).\n"),
           edit(BAKE, ',mode=max"]', ',mode=min"]')),
     old=("`CACHE_TO_REF` exports with `mode=max`", "in the cache, not only those of the published image"),
     expect="the production target's cache export drops to mode=min: options.md's 'CACHE_TO_REF exports with "
            "`mode=max`, so the layers of the builder stage (the expensive warm-up) are in the cache, not only "
            "those of the published image' is false: check fails at that sentence"),
Case("w5-script-docker-engine-deleted", "w5-m-014", "maintainer",
     edits(_delete_file("scripts/docker-engine"),
           edit("pyproject.toml", ', "scripts/docker-engine"]', "]"),
           edit("scripts/build-image",
                "#   1. start a Docker Engine (scripts/docker-engine) and check it is 28.5.0 or newer (scripts/check-engine)",
                "#   1. check the Docker Engine is 28.5.0 or newer (scripts/check-engine; CI's setup action installs one)"),
           edit("scripts/build-image", "scripts/docker-engine start\n", ""),
           edit("scripts/bootstrap", 'step "Docker engine"\nscripts/docker-engine start\n\n', ""),
           edit("scripts/bootstrap", "STEPS=6", "STEPS=5"),
           edit("scripts/check-engine", " (start one with scripts/docker-engine start)", ""),
           edit("scripts/check-engine", "Upgrade the engine (scripts/docker-engine installs one from Debian sid).",
                "Upgrade the engine.")),
     old=("scripts/docker-engine start\n```", "Chromium, a\nDocker engine, the hermetic image"),
     expect="the docker-engine script is deleted (CI installs the engine with a setup action), and build-image, "
            "bootstrap, check-engine and docgen's quoted list in pyproject.toml stop calling or naming it: "
            "hermetic.md's `scripts/docker-engine start` step and the README's list of what bootstrap installs ('a Docker engine') are false: check fails there"),
Case("w5-df-system-packages-renamed-bake-missed", "w5-m-016", "maintainer",
     edit(DOCKERFILE, "SYSTEM_PACKAGES", "APT_PACKAGES", count=0),
     old=("The base stage installs nothing: `SYSTEM_PACKAGES` is empty",),
     expect="the Dockerfile renames SYSTEM_PACKAGES to APT_PACKAGES everywhere, but the hermetic bake target still "
            "sets SYSTEM_PACKAGES = \"\": the hermetic build now installs the default apt list. The options table "
            "re-renders; hermetic.md's 'The base stage installs nothing: `SYSTEM_PACKAGES` is empty' is false: "
            "check fails, naming the bake arg no ARG declares"),
Case("w5-df-gym-venvs-own-stage", "w5-m-018", "maintainer",
     edits(edit(DOCKERFILE, "# NeMo-Gym configs (space-separated paths) whose environment servers each get a venv under\n",
                "# -------------------------------------------------------------------------------------- gym-venvs\n"
                "# Its own stage, so `--target builder` gives an image without Gym environment venvs.\n"
                "FROM builder AS gym-venvs\n\n"
                "# NeMo-Gym configs (space-separated paths) whose environment servers each get a venv under\n"),
           edit(DOCKERFILE, "FROM builder AS nmp-rl-base\n", "FROM gym-venvs AS nmp-rl-base\n")),
     old=("The published stage is the build stage itself (`FROM builder`)",
          "| `nmp-rl-base`, the published image | stage `builder` |  |"),
     expect="the Gym venv step moves into a new stage `gym-venvs` between builder and the published stage: the stage "
            "graphs and tables re-render (five stages become six); layering.md's hand-written 'The published stage "
            "is the build stage itself (`FROM builder`)' is false: check fails at that line"),
Case("w5-df-nemo-rl-source-from-bake-context", "w5-m-020", "maintainer",
     edits(edit(DOCKERFILE,
                "# Git repository of NeMo-RL to build. Replace the whole source with `--build-context nemo-rl=DIR`.\n"
                "ARG NEMO_RL_REPO=https://github.com/soluwalana/RL.git\n"
                "# Branch, tag or commit of NEMO_RL_REPO to check out (submodules included).\n"
                "ARG NEMO_RL_REF=nmp/customizer\n",
                "# NeMo-RL's source is the named build context `nemo-rl`: docker-bake.hcl's NEMO_RL_GIT for production,\n"
                "# the stand-in workspace for hermetic builds.\n"),
           edit(DOCKERFILE, "FROM scratch AS nemo-rl\nARG NEMO_RL_REPO\nARG NEMO_RL_REF\n"
                            "ADD --keep-git-dir=false ${NEMO_RL_REPO}#${NEMO_RL_REF} /\n\n", ""),
           edit(BAKE, 'variable "STANDIN_DIR" {',
                '// NeMo-RL to build: a git URL and ref (branch, tag or commit), handed to the build as context `nemo-rl`.\n'
                'variable "NEMO_RL_GIT" {\n  default = "https://github.com/soluwalana/RL.git#nmp/customizer"\n}\n\n'
                'variable "STANDIN_DIR" {'),
           edit(BAKE, '  tags       = ["nmp-rl-base:latest"]\n',
                '  tags       = ["nmp-rl-base:latest"]\n  contexts   = {\n    nemo-rl = NEMO_RL_GIT\n  }\n')),
     old=("1. Reads `NEMO_RL_REPO` and `NEMO_RL_REF` from `Dockerfile.nmp-rl-base`.",
          "The `nemo-rl` stage is replaced with `--build-context nemo-rl=<stand-in workspace>`",
          "repo=$(sed -n 's/^ARG NEMO_RL_REPO=//p' Dockerfile.nmp-rl-base)"),
     expect="the nemo-rl stage and its two ARGs leave the Dockerfile; production names the source as a bake variable "
            "handed over as the named context `nemo-rl`. upgrade-nemo-rl.md's step 1, review-bump.md's `sed` on "
            "`ARG NEMO_RL_REPO=` and hermetic.md's 'The `nemo-rl` stage is replaced' are false; docgen must say so "
            "(or refuse loudly, naming the Dockerfile, since the source it records is gone), never pass"),
]
