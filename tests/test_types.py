"""The types `py.typed` promises, and the imports each command pays for: mypy finds no error in docgen/, and
ruff (pyflakes, syntax, and `import-outside-toplevel`) none either, both as pyproject.toml configures them.
An import inside a function is allowed only with `# noqa: PLC0415  # <why>`, the why on the same line."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

BIN = Path(sys.executable).parent
# the tree's own docgen first on the path, whatever the venv's install points at; no cache left in the tree
ENV = {"PATH": "/usr/bin:/bin"}
NOQA = re.compile(r"#\s*noqa:\s*PLC0415\b(?P<rest>.*)$")
REASON = re.compile(r"^\s*#\s*\S.{3,}")   # `  # why`: a comment of a few words at least

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(root: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "mypy"), "--cache-dir", str(cache), "docgen"], cwd=root, capture_output=True,
                          text=True, timeout=600, env={**ENV, "PYTHONPATH": str(root)})


def ruff(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ruff"), "check", "--no-cache", "--output-format", "concise", "docgen"],
                          cwd=root, capture_output=True, text=True, timeout=300, env=ENV)


def scratch_copy(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(REPO / "docgen", root / "docgen", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def test_mypy_finds_no_error_in_docgen(mypy_cache):
    run = mypy(REPO, mypy_cache)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout


def test_mypy_reports_a_planted_type_error(tmp_path, mypy_cache):
    root = scratch_copy(tmp_path)
    text = root / "docgen" / "render" / "text.py"
    text.write_text(text.read_text() + '\n\ndef _planted() -> int:\n    return "not an int"\n')
    run = mypy(root, mypy_cache)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "docgen/render/text.py" in run.stdout and "[return-value]" in run.stdout


def test_ruff_finds_no_error_in_docgen():
    run = ruff(REPO)
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_reports_an_import_inside_a_function_without_noqa(tmp_path):
    root = scratch_copy(tmp_path)
    stages = root / "docgen" / "model" / "stages.py"
    stages.write_text(stages.read_text() + "\n\ndef _late():\n    import json\n    return json\n")
    run = ruff(root)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "docgen/model/stages.py" in run.stdout and "PLC0415" in run.stdout


def test_every_import_inside_a_function_says_why():
    bare = []
    for path in sorted((REPO / "docgen").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found = NOQA.search(line)
            if found and not REASON.match(found["rest"]):
                bare.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert bare == [], "a `# noqa: PLC0415` without `  # why` after it:\n" + "\n".join(bare)
