""".github/workflows/bump.yml, its steps run as written against a scratch repository with a local remote: the
scratch checkout of this repository (tests/bump_scratch.py) is the repository on the "server" (a bare
repository at $GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git), the local NeMo-RL mirror stands in for
NEMO_RL_REPO (git's url.insteadOf), and `gh` is a recorder. The steps GitHub provides (checkout, setup-python)
and the install (the project's venv stands in) are the only ones not run. Three runs: the first opens the
pull request, a second after NeMo-RL moved again updates the same one, a third with nothing new does nothing."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.reference import needs_reference

pytestmark = [needs_reference, pytest.mark.slow, pytest.mark.xdist_group("bump-workflow")]

WORKFLOW = Path(__file__).resolve().parents[1] / ".github" / "workflows" / "bump.yml"
NOT_RUN = {"Install docgen"}   # besides the `uses:` steps

RECORDER = """#!/bin/bash
# gh, recorded: each call's arguments on one line of calls.txt; a body file's text kept beside it
log="$GH_RECORD/calls.txt"
echo "$*" >>"$log"
if [ "$1 $2" = "pr list" ]; then cat "$GH_RECORD/open-pr" 2>/dev/null; exit 0; fi
while [ $# -gt 0 ]; do
  if [ "$1" = "--body-file" ]; then cp "$2" "$GH_RECORD/body-$(wc -l <"$log").md"; fi
  shift
done
[ -f "$GH_RECORD/open-pr" ] || echo 7 >"$GH_RECORD/open-pr"
"""


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def test_least_permissions_and_a_schedule():
    wf = workflow()
    assert wf["permissions"] == {}
    [job] = wf["jobs"].values()
    assert job["permissions"] == {"contents": "write", "pull-requests": "write"}
    triggers = wf[True] if True in wf else wf["on"]   # YAML 1.1 reads `on` as true
    assert "schedule" in triggers and "workflow_dispatch" in triggers
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False


def _expand(text: str) -> str:
    """The two expressions the run steps use, as GitHub would fill them in here."""
    text = text.replace("${{ inputs.ref }}", "").replace("${{ github.token }}", "test-token")
    assert "${{" not in text, text
    return text


def _condition(step: dict, outputs: dict[str, dict[str, str]]) -> bool:
    cond = step.get("if")
    if cond is None:
        return True
    m = re.fullmatch(r"steps\.(\w+)\.outputs\.(\w+) == '(\w+)'", cond.strip())
    assert m, f"the test knows no condition {cond!r}"
    return outputs.get(m[1], {}).get(m[2]) == m[3]


def run_workflow(s: dict, n: int) -> list[str]:
    """Check out the server's main into a fresh workspace and run the job's steps; the names of those run."""
    from tests.rl_checkout import git
    env, server = s["env"], s["server"]
    work = s["tmp"] / f"workspace-{n}"
    git("clone", "-q", "-b", "main", str(server), str(work), env=env)
    (work / ".venv").symlink_to(s["repo"] / ".venv")   # what `python -m venv .venv` makes there (.gitignore'd)
    (work / ".git" / "info" / "exclude").write_text(".venv\n")   # .gitignore's `.venv/` matches no symlink
    temp = s["tmp"] / f"runner-temp-{n}"
    temp.mkdir()
    [job] = workflow()["jobs"].values()
    outputs: dict[str, dict[str, str]] = {}
    ran = []
    for i, step in enumerate(job["steps"]):
        if "uses" in step or step.get("name") in NOT_RUN or not _condition(step, outputs):
            continue
        out_file = temp / f"output-{i}"
        out_file.touch()
        step_env = {**env, **{k: str(v) for k, v in job.get("env", {}).items()},
                    **{k: _expand(str(v)) for k, v in step.get("env", {}).items()},
                    "RUNNER_TEMP": str(temp), "GITHUB_OUTPUT": str(out_file),
                    "GITHUB_STEP_SUMMARY": str(temp / "summary.md"), "GITHUB_SERVER_URL": str(s["tmp"] / "server"),
                    "GITHUB_REPOSITORY": "owner/nmp-rl-base", "GH_RECORD": str(s["record"]),
                    "PATH": f"{s['bin']}{os.pathsep}{env['PATH']}"}
        run = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _expand(step["run"])],
                             cwd=work, env=step_env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"{step.get('name')}: {run.stdout}{run.stderr}"
        outputs[step.get("id", "")] = dict(line.split("=", 1) for line in out_file.read_text().splitlines() if line)
        ran.append(step["name"])
    return ran


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    from tests.bump_scratch import scratch
    from tests.rl_checkout import FORK_URL, git
    s = scratch(tmp_path_factory.mktemp("bump-workflow"))
    env = s["env"]
    git("config", "--global", f"url.{s['mirror']}.insteadOf", FORK_URL, env=env)
    server = s["tmp"] / "server" / "owner" / "nmp-rl-base.git"
    git("clone", "-q", "--bare", str(s["repo"]), str(server), env=env)
    bin_dir, record = s["tmp"] / "bin", s["tmp"] / "gh-record"
    bin_dir.mkdir()
    record.mkdir()
    (bin_dir / "gh").write_text(RECORDER)
    (bin_dir / "gh").chmod(0o755 | stat.S_IXUSR)
    return {**s, "server": server, "bin": bin_dir, "record": record}


def calls(s) -> list[str]:
    path = s["record"] / "calls.txt"
    return path.read_text().splitlines() if path.exists() else []


def test_the_first_run_pushes_the_branch_and_opens_the_pull_request(s):
    import json

    from tests.rl_checkout import git
    ran = run_workflow(s, 1)
    assert ran == ["Move to the newest NeMo-RL", "Commit and push the branch", "Open or update the pull request"]
    env, server = s["env"], s["server"]
    snap = json.loads(git("show", "docgen/bump-nemo-rl:snapshot/nemo-rl.json", env=env, cwd=server))
    assert snap["provenance"]["commit"] == s["b"]
    assert git("rev-parse", "docgen/bump-nemo-rl~1", env=env, cwd=server) == git("rev-parse", "main", env=env,
                                                                                   cwd=server)
    assert calls(s)[0].startswith("pr list --head docgen/bump-nemo-rl")
    assert calls(s)[1].startswith("pr create --head docgen/bump-nemo-rl --title Move to a newer NeMo-RL")
    body = (s["record"] / "body-2.md").read_text()
    assert body.startswith("Moves the image's NeMo-RL from `nmp/customizer`") and "tqdm 4.69.0 -> 4.69.1" in body


def test_a_second_move_updates_the_same_pull_request(s):
    from tests.bump_scratch import NEW_TQDM
    from tests.rl_checkout import BRANCH, git
    env, work = s["env"], s["tmp"] / "rl-again"
    git("clone", "-q", "-b", BRANCH, str(s["mirror"]), str(work), env=env)
    lock = work / "uv.lock"
    lock.write_text(lock.read_text().replace(NEW_TQDM, NEW_TQDM.replace("4.69.1", "4.69.2")))
    git("commit", "-q", "-am", "C: tqdm 4.69.2", env=env, cwd=work)
    git("push", "-q", "origin", BRANCH, env=env, cwd=work)
    before = len(calls(s))
    run_workflow(s, 2)
    new = calls(s)[before:]
    assert new[0].startswith("pr list") and new[1].startswith("pr edit 7 --title Move to a newer NeMo-RL")
    assert not any(c.startswith("pr create") for c in new)
    assert "tqdm 4.69.0 -> 4.69.2" in (s["record"] / f"body-{before + 2}.md").read_text()


def test_nothing_new_opens_nothing(s):
    from tests.rl_checkout import git
    # the server's main takes the bump (as a merged pull request would), then NeMo-RL has not moved
    git("push", "-q", str(s["server"]), "docgen/bump-nemo-rl:main", env=s["env"], cwd=s["server"])
    before = len(calls(s))
    assert run_workflow(s, 3) == ["Move to the newest NeMo-RL"]
    assert len(calls(s)) == before
