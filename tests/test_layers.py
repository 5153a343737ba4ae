"""docgen's layers, as the import-linter contract in pyproject.toml states them (and docs/contributing.md
draws them): no module imports upwards or from a sibling in its layer, counting imports inside functions and
under `if TYPE_CHECKING:`, so no import circle can form again."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    # the tree's own docgen first on the path, whatever the venv's install points at
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=root, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


def test_the_repository_keeps_every_import_contract():
    run = lint_imports(REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def scratch_copy(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(REPO / "docgen", root / "docgen", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def test_an_upward_import_inside_a_function_breaks_the_layers(tmp_path):
    root = scratch_copy(tmp_path)
    assert lint_imports(root).returncode == 0          # the copy itself is sound
    stages = root / "docgen" / "model" / "stages.py"
    stages.write_text(stages.read_text() + "\n\ndef _late():\n    from docgen.render.tables import NONE\n    return NONE\n")
    run = lint_imports(root)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "docgen.model.stages -> docgen.render.tables" in run.stdout


def test_an_import_between_siblings_of_a_layer_breaks_their_independence(tmp_path):
    root = scratch_copy(tmp_path)
    diff = root / "docgen" / "diff.py"
    diff.write_text(diff.read_text() + "\n\nTYPE_CHECKING = False\nif TYPE_CHECKING:\n"
                    "    from docgen.render.markdown import code\n")
    run = lint_imports(root)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "docgen.diff -> docgen.render.markdown" in run.stdout
