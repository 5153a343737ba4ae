"""`docgen write` under faults: a page it cannot replace, a page edited while it runs. All or nothing,
exit 2 naming the path, never a traceback, no temporary files left behind."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from docgen.console.shell import copy_worktree
from tests.docgen_cli import docgen

ROOT = Path(__file__).resolve().parent.parent
MEGATRON_FILTER = "  megatron_policy_worker.MegatronPolicyWorker \\\n"


def scratch_repo(dest: Path) -> Path:
    """This repository's tracked and new files, with the Megatron filter removed so that `write` rewrites
    several pages and the facts record."""
    copy_worktree(ROOT, dest)
    dockerfile = dest / "Dockerfile.nmp-rl-base"
    text = dockerfile.read_text()
    assert MEGATRON_FILTER in text
    dockerfile.write_text(text.replace(MEGATRON_FILTER, "", 1))
    return dest


def snapshot_of(root: Path) -> dict[str, bytes]:
    """Every file under root but the interpreter's bytecode caches: a `python -m docgen` started in the copy
    imports the copy's docgen package, and whether that leaves __pycache__ behind is the machine's bytecode
    setting (PYTHONDONTWRITEBYTECODE), not something docgen writes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.relative_to(root).parts}


def _immutable(path: Path, on: bool) -> bool:
    done = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True)
    return done.returncode == 0


@pytest.mark.probe("interrupted writes")
def test_a_page_that_cannot_be_replaced_leaves_every_file_as_it_was(tmp_path):
    if not shutil.which("chattr"):
        pytest.skip("chattr is not installed")
    repo = scratch_repo(tmp_path / "repo")
    before = snapshot_of(repo)
    # which pages would change, in the order write replaces them; lock one in the middle
    dry = docgen("check", cwd=repo)
    assert dry.returncode == 1
    stale = sorted({line.split(":", 1)[0] for line in dry.stdout.splitlines() + dry.stderr.splitlines()
                    if line.startswith(("docs/", "README.md")) and ".md:" in line})
    assert len(stale) >= 3, dry.stdout + dry.stderr
    locked = repo / stale[len(stale) // 2]
    if not _immutable(locked, True):
        pytest.skip("this file system does not support the immutable attribute")
    try:
        run = docgen("write", cwd=repo)
    finally:
        _immutable(locked, False)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    assert f"docgen: error: {locked}" in run.stderr and "nothing was changed" in run.stderr, run.stderr
    assert snapshot_of(repo) == before          # no page rewritten, no facts file, no .tmp/.bak left
    run = docgen("write", cwd=repo)              # unlocked, the same write goes through
    assert run.returncode == 0, run.stderr
    assert docgen("check", cwd=repo).returncode in (0, 1)   # 1: the Dockerfile's own comments now disagree


@pytest.mark.probe("interrupted writes")
def test_a_page_edited_while_write_runs_is_not_overwritten(tmp_path, monkeypatch):
    from docgen.check import pipeline
    from docgen.errors import InputError
    from docgen.project import find_project

    repo = scratch_repo(tmp_path / "repo")
    run = pipeline.prepare(find_project(root=repo))
    changed = [page for page in run.pages if page.new_text != page.doc.text]
    assert len(changed) >= 2
    victim = changed[-1].path
    edited = victim.read_text() + "\nA sentence saved in the editor while docgen ran.\n"
    victim.write_text(edited)
    before = snapshot_of(repo)
    with pytest.raises(InputError) as err:
        pipeline.write(run)
    assert str(victim) in str(err.value) and "changed on disk" in err.value.message
    assert snapshot_of(repo) == before
    assert victim.read_text() == edited


@pytest.mark.probe("interrupted writes")
@pytest.mark.slow
def test_sigkill_at_random_moments_leaves_a_whole_page_set(tmp_path):
    """bench/kill_sweep.py, 30 runs: after each kill the set is wholly old, wholly new, or made wholly new by
    the next command, which says it recovered the write (the bench runs 200+ for the figures)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kill_sweep", ROOT / "bench" / "kill_sweep.py")
    kill_sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kill_sweep)
    counts = kill_sweep.sweep(30, seed=20, where=tmp_path)
    assert counts["broken"] == 0, counts
    assert counts["old"] + counts["new"] + counts["recovered"] == 30, counts
    assert counts["files_per_set"] >= 3
