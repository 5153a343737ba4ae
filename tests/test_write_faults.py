"""`docgen write` under faults: a page it cannot replace, a page edited while it runs, a kill at any moment.
Each file is left wholly old or wholly new, a refusal found before the first rename changes nothing, exit 2
names the path, never a traceback. And `check` never writes, whatever an interrupted write left behind."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from docgen.console.shell import copy_worktree
from tests.docgen_cli import docgen, docgen_process
from tests.test_mutations import not_inputs

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
def test_a_page_that_cannot_be_replaced_leaves_every_file_whole_and_says_which_changed(tmp_path):
    if not shutil.which("chattr"):
        pytest.skip("chattr is not installed")
    repo = scratch_repo(tmp_path / "repo")
    before = snapshot_of(repo)
    # which pages would change, in the order write replaces them; lock one in the middle
    dry = docgen("check", cwd=repo)
    assert dry.returncode == 1
    stale = sorted({line.split(":", 1)[0] for line in dry.stdout.splitlines() + dry.stderr.splitlines()
                    if line.startswith(("docs/", "README.md")) and ".md:" in line and " is stale" in line})
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
    assert f"docgen: error: {locked}: cannot write: " in run.stderr, run.stderr
    replaced = re.search(r"(\d+) of \d+ files were replaced already \(([^)]*)\)", run.stderr)
    assert replaced and "run docgen write again" in run.stderr, run.stderr
    after = snapshot_of(repo)
    assert after.keys() == before.keys()         # no temporary file left
    changed = sorted(name for name in before if after[name] != before[name])
    assert changed == sorted(replaced.group(2).split(", ")) and str(locked.relative_to(repo)) not in changed
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
def test_sigkill_at_random_moments_leaves_each_file_whole(tmp_path):
    """bench/kill_sweep.py, 30 runs: after each kill every file is wholly old or wholly new; where the kill
    left a mixed set or temporary files, `check` changes nothing and the next write makes the set wholly new
    and leaves no temporary file (the bench runs 200+ for the figures)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kill_sweep", ROOT / "bench" / "kill_sweep.py")
    kill_sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kill_sweep)
    counts = kill_sweep.sweep(30, seed=20, where=tmp_path)
    assert counts["broken"] == 0, counts
    assert counts["old"] + counts["new"] + counts["mixed"] == 30, counts
    assert counts["files_per_set"] >= 3


# ------------------------------------------------------------------ check and lint change nothing

def pages_copy(dest: Path) -> Path:
    """The Dockerfile, snapshot, README and docs of this repository (no docgen package, so no interpreter
    writes bytecode into the tree), with the Megatron filter removed: `check` finds stale pages and facts."""
    dest.mkdir(parents=True)
    for rel in ("Dockerfile.nmp-rl-base", "README.md", "snapshot", "docs"):
        if (ROOT / rel).is_dir():
            shutil.copytree(ROOT / rel, dest / rel, ignore=not_inputs)
        else:
            shutil.copy2(ROOT / rel, dest / rel)
    dockerfile = dest / "Dockerfile.nmp-rl-base"
    dockerfile.write_text(dockerfile.read_text().replace(MEGATRON_FILTER, "", 1))
    return dest


def tree_state(root: Path) -> dict[str, tuple]:
    """Every entry under root (folders included: a file made and removed again changes its folder's mtime):
    its kind, inode, mode, size, mtime and ctime, and a file's bytes."""
    state = {}
    for path in [root, *sorted(root.rglob("*"))]:
        st = os.lstat(path)
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        state[str(path.relative_to(root))] = (stat.S_IFMT(st.st_mode), st.st_ino, st.st_mode, st.st_size,
                                             st.st_mtime_ns, st.st_ctime_ns, data)
    return state


def dead_pid() -> int:
    gone = subprocess.Popen(["true"])
    gone.wait()
    return gone.pid


def leftovers_of_an_interrupted_write(root: Path, pid: int) -> list[Path]:
    """What a killed `docgen write` leaves: temporary files beside the pages and the facts record, and the
    journal an older docgen put at the root, naming those files and the pages they were meant to replace."""
    pages = [root / "README.md", root / "docs" / "index.md"]
    made = []
    for page in pages + [root / "docs" / ".docgen-facts.json"]:
        tmp = page.parent / f".{page.name}.{pid}.k3x9.new.docgen-tmp"
        tmp.write_text("half a page\n")
        made.append(tmp)
    journal = root / ".docgen-journal.docgen-tmp"
    journal.write_text(json.dumps({"docgen-journal": 1, "pid": pid, "files": [
        [p.relative_to(root).as_posix(), f".{p.name}.{pid}.k3x9.new.docgen-tmp", None] for p in pages]}))
    return made + [journal]


@pytest.mark.probe("interrupted writes")
@pytest.mark.parametrize("command", ["check", "lint"])
def test_check_and_lint_leave_every_byte_and_inode_of_the_tree_as_it_was(tmp_path, command):
    root = pages_copy(tmp_path / "repo")
    leftovers = leftovers_of_an_interrupted_write(root, dead_pid())
    before = tree_state(root)
    run = docgen_process(command, "--root", str(root))
    assert run.returncode == 1, (run.stdout, run.stderr)   # stale pages and findings: write would change files
    assert "Traceback" not in run.stderr
    assert tree_state(root) == before
    assert all(p.exists() for p in leftovers)


@pytest.mark.probe("writes outside what docgen owns")
def test_no_command_renames_a_file_docgen_does_not_own(tmp_path):
    """A crafted journal and temporary files named like the writer's, beside files docgen does not own
    (`scripts/bootstrap`, `.git/config`): no docgen command replaces those files or removes the crafted ones;
    write replaces only the pages and the facts record."""
    root = pages_copy(tmp_path / "repo")
    (root / "scripts").mkdir()
    (root / ".git").mkdir()
    (root / "scripts/bootstrap").write_text("#!/bin/sh\necho the real bootstrap\n")
    (root / ".git/config").write_text("[core]\n\tbare = false\n")
    pid = dead_pid()
    crafted = {"scripts/bootstrap": root / "scripts" / f".bootstrap.{pid}.a1.new.docgen-tmp",
               ".git/config": root / ".git" / f".config.{pid}.a1.new.docgen-tmp"}
    for path in crafted.values():
        path.write_text("#!/bin/sh\necho hostile\n")
    (root / ".docgen-journal.docgen-tmp").write_text(json.dumps({"docgen-journal": 1, "pid": pid, "files": [
        [rel, path.name, None] for rel, path in crafted.items()]}))
    theirs = [root / "scripts/bootstrap", root / ".git/config", *crafted.values()]
    before = {p: (os.lstat(p).st_ino, p.read_bytes()) for p in theirs}
    for command in ("inventory", "lint", "check", "write", "check"):
        run = docgen_process(command, "--root", str(root))
        assert run.returncode in (0, 1), (command, run.stdout, run.stderr)
        assert {p: (os.lstat(p).st_ino, p.read_bytes()) for p in theirs} == before, command
    assert "hostile" not in (root / "README.md").read_text()
