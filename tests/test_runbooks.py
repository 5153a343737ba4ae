"""The maintainer's runbooks (docs/maintain/), each run as written on a scratch copy: their ```bash blocks in
order, under `bash -euo pipefail`, the way a maintainer pastes them. A local NeMo-RL mirror stands in for
NEMO_RL_REPO (git's url.insteadOf, tests/bump_scratch.py) and a local bare repository for `origin`.
(```text blocks are examples with placeholders and are not run.)"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.reference import needs_reference

REPO = Path(__file__).resolve().parents[1]
MAINTAIN = REPO / "docs" / "maintain"

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("runbooks")]


def script(page: str) -> str:
    text = (MAINTAIN / page).read_text()
    return "".join(re.findall(r"^```bash\n(.*?)^```$", text, re.M | re.S))


def paste(page: str, cwd: Path, env: dict, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script(page)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def mirrored(tmp: Path) -> dict:
    from tests.bump_scratch import scratch
    from tests.rl_checkout import FORK_URL, git
    s = scratch(tmp)
    git("config", "--global", f"url.{s['mirror']}.insteadOf", FORK_URL, env=s["env"])
    return s


def test_every_runbook_has_commands_to_run():
    pages = sorted(p.name for p in MAINTAIN.glob("*.md"))
    assert {"upgrade-nemo-rl.md", "review-bump.md", "release.md"} <= set(pages)
    for page in ("upgrade-nemo-rl.md", "review-bump.md", "release.md"):
        assert script(page).count("\n") >= 3, page


@needs_reference
def test_move_to_a_newer_nemo_rl(tmp_path):
    from tests.bump_scratch import docgen
    from tests.rl_checkout import git
    s = mirrored(tmp_path)
    run = paste("upgrade-nemo-rl.md", s["repo"], s["env"])
    assert run.returncode == 0, run.stdout + run.stderr
    prov = json.loads((s["repo"] / "snapshot/nemo-rl.json").read_text())["provenance"]
    assert prov["commit"] == s["b"]
    assert git("log", "-1", "--format=%s", env=s["env"], cwd=s["repo"]) == "Move to a newer NeMo-RL"
    assert git("status", "--porcelain", env=s["env"], cwd=s["repo"]) == ""
    assert "tqdm 4.69.0 -> 4.69.1" in (tmp_path / "bump-pr.md").read_text()
    assert docgen("check", cwd=s["repo"], env=s["env"]).returncode == 0
    # pasted again: NeMo-RL has not moved, so nothing is committed and nothing fails
    again = paste("upgrade-nemo-rl.md", s["repo"], s["env"])
    assert again.returncode == 0 and (tmp_path / "bump-pr.md").read_text() == ""


@needs_reference
def test_review_a_bump(tmp_path):
    from tests.bump_scratch import docgen
    from tests.rl_checkout import git
    s = mirrored(tmp_path)
    env, repo = s["env"], s["repo"]
    git("checkout", "-q", "-b", "docgen/bump-nemo-rl", env=env, cwd=repo)
    assert docgen("bump", cwd=repo, env=env).returncode == 0
    git("commit", "-q", "-am", "Move to a newer NeMo-RL", env=env, cwd=repo)
    origin = tmp_path / "origin.git"
    git("clone", "-q", "--bare", str(repo), str(origin), env=env)
    reviewer = tmp_path / "review"
    git("clone", "-q", "-b", "main", str(origin), str(reviewer / "clone"), env=env)
    (reviewer / "clone" / ".venv").symlink_to(REPO / ".venv")
    run = paste("review-bump.md", reviewer / "clone", env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (reviewer / "RL").is_dir()   # made by the runbook, beside the clone
    assert f"nmp/customizer @ {s['a'][:12]}" in run.stdout and f"nmp/customizer @ {s['b'][:12]}" in run.stdout
    assert "tqdm" in run.stdout


def test_release(tmp_path):
    from tests.rl_checkout import git, git_env
    env = git_env(tmp_path)
    src, origin = tmp_path / "src", tmp_path / "origin.git"
    git("clone", "-q", "--no-tags", str(REPO), str(src), env=env)
    git("clone", "-q", "--bare", str(src), str(origin), env=env)
    git("remote", "set-url", "origin", str(origin), env=env, cwd=src)
    run = paste("release.md", src, env, timeout=1200)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert run.stdout.strip().endswith("docgen 0.1.0")
    assert "v0.1.0" in git("tag", "-l", env=env, cwd=origin)
    assert sorted(p.name for p in (tmp_path / "dist").iterdir()) == [
        "nmp_rl_docgen-0.1.0-py3-none-any.whl", "nmp_rl_docgen-0.1.0.tar.gz"]
