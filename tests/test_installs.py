"""docgen judges the tree it runs in, however it was installed: a plain `pip install .` into a fresh venv, this
checkout's editable install run from a `git worktree` of another repository, `python -m docgen`, and the
pre-commit hooks of `.pre-commit-hooks.yaml` used from a consumer repository through the real `pre-commit`.
Each drifts a consumer tree and asserts that tree is the one reported and written, and no other changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, checkout_copy
from tests.test_project import consumer_repo, drop_mcore_filter, tree

pytestmark = pytest.mark.slow
VENV_BIN = Path(sys.executable).parent


def run(*cmd, cwd: Path, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**base, **(env or {})})


def git(*args, cwd: Path) -> str:
    out = run("git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main",
              "-c", "commit.gpgsign=false", *args, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def rendered_consumer(root: Path, docgen: list) -> Path:
    consumer_repo(root)
    assert run(*docgen, "write", cwd=root).returncode == 0
    return root


def assert_judges(docgen: list, root: Path, untouched: dict[Path, dict]) -> None:
    """`check` fails naming `root`, `write` fixes the pages of `root`, and nothing under `untouched` changed."""
    drop_mcore_filter(root / "docker/rl/Dockerfile.nmp-rl-base")
    report = run(*docgen, "check", "--format", "json", cwd=root / "docs")
    assert report.returncode == 1, report.stderr
    assert json.loads(report.stdout)["judged"]["root"] == str(root.resolve())
    written = run(*docgen, "write", cwd=root / "docs")
    assert written.returncode == 0, written.stderr
    assert "-->8<!--" in (root / "docs/rl/venvs.md").read_text()
    after = run(*docgen, "check", cwd=root)   # the docs follow; the Dockerfile's own comments still lie
    assert after.returncode == 1 and "0 stale blocks, 0 stale values, 3 findings" in after.stderr, after.stderr
    for where, before in untouched.items():
        assert tree(where) == before, f"{where} changed"


def test_plain_pip_install_into_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    # pip installs into the fresh venv from outside it (`pip --python`): the venv's own copy of pip, which
    # ensurepip would spend 3.8 CPU-s putting there, has no part in what gets installed
    assert run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path).returncode == 0
    version_file = (REPO / "docgen/_version.py").read_bytes() if (REPO / "docgen/_version.py").exists() else None
    checkout_copy(tmp_path / "src")   # pip builds in the tree it is given: not this checkout's
    install = run(sys.executable, "-m", "pip", "--python", venv / "bin/python", "install", "-q",
                  "--disable-pip-version-check", tmp_path / "src", cwd=tmp_path, timeout=600)
    assert install.returncode == 0, install.stderr
    assert ((REPO / "docgen/_version.py").read_bytes() if (REPO / "docgen/_version.py").exists() else None) \
        == version_file   # the checkout's installed version, which this test process imported, stands
    site = run(venv / "bin/python", "-c", "import docgen, sys; print(docgen.__file__)", cwd=tmp_path)
    assert "site-packages" in site.stdout  # a copy, not this checkout
    root = rendered_consumer(tmp_path / "consumer", [venv / "bin/docgen"])
    assert_judges([venv / "bin/docgen"], root, {REPO / "docs": tree(REPO / "docs")})
    # the copy ships the stand-in's files: it can still generate the workspace the hermetic image builds from
    standin = run(venv / "bin/docgen", "standin", "--no-lock", "--out", tmp_path / "standin", cwd=root)
    assert standin.returncode == 0, standin.stderr
    assert (tmp_path / "standin/nemo_rl/utils/prefetch_venvs.py").is_file()


def test_editable_install_run_from_a_git_worktree(tmp_path):
    main = tmp_path / "main"
    main.mkdir()
    git("init", "-q", cwd=main)
    consumer_repo(main)
    assert run(VENV_BIN / "docgen", "write", cwd=main).returncode == 0
    git("add", "-A", cwd=main)
    git("commit", "-qm", "docs", cwd=main)
    worktree = tmp_path / "feature"
    git("worktree", "add", "-q", "-b", "feature", str(worktree), cwd=main)
    assert (worktree / ".git").is_file()
    main_before = tree(main)
    # this checkout's editable docgen, from the worktree: it must judge the worktree, not main, not this repo
    assert_judges([VENV_BIN / "docgen"], worktree, {main: main_before, REPO / "docs": tree(REPO / "docs")})


def test_python_dash_m_gives_the_same_answer_as_the_script(tmp_path):
    root = rendered_consumer(tmp_path / "consumer", [VENV_BIN / "docgen"])
    drop_mcore_filter(root / "docker/rl/Dockerfile.nmp-rl-base")
    script = run(VENV_BIN / "docgen", "check", "--format", "json", cwd=root / "docker")
    module = run(sys.executable, "-m", "docgen", "check", "--format", "json", cwd=root / "docker")
    assert script.returncode == module.returncode == 1
    assert script.stdout == module.stdout


def test_pre_commit_hooks_from_a_consumer_repository(tmp_path):
    hooks_repo = tmp_path / "docgen-repo"
    hooks_repo.mkdir()
    rev = checkout_copy(hooks_repo)
    root = tmp_path / "consumer"
    root.mkdir()
    git("init", "-q", cwd=root)
    consumer_repo(root)
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks_repo}\n    rev: {rev}\n    hooks:\n      - id: docgen-check\n")
    git("add", "-A", cwd=root)
    env = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    pre_commit = [VENV_BIN / "pre-commit", "run", "--all-files", "--color", "never"]
    never_rendered = run(*pre_commit, cwd=root, env=env, timeout=900)
    assert never_rendered.returncode == 1, never_rendered.stdout + never_rendered.stderr
    assert "docs/rl/venvs.md" in never_rendered.stdout and "Failed" in never_rendered.stdout
    assert run(VENV_BIN / "docgen", "write", cwd=root).returncode == 0
    clean = run(*pre_commit, cwd=root, env=env)
    assert clean.returncode == 0 and "Passed" in clean.stdout, clean.stdout
    drop_mcore_filter(root / "docker/rl/Dockerfile.nmp-rl-base")   # a file no default `files` filter would match
    drifted = run(*pre_commit, cwd=root, env=env)
    assert drifted.returncode == 1 and "venvs 9 -> 8" in drifted.stdout, drifted.stdout
