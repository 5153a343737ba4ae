"""Start-up budget: what `docgen check`, `lint`, `inventory` and `diff` import.

The modules the everyday commands load are listed here only to catch a dependency nobody meant to add; the
start-up budget itself is a ratio to `cog --check` measured by bench/check_vs_cog.py (docs/contributing.md).
A new import of one of these on the check path fails here with its name.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

HEAVY = ("hashlib", "subprocess", "tempfile", "packaging",
         "dataclasses", "inspect", "ast", "ssl", "socket", "threading", "email", "importlib.metadata")
SNAPSHOT = str(REPO / "snapshot" / "nemo-rl.json")


@pytest.mark.parametrize("args", [
    ["check", "--root", str(REPO)],
    ["lint", "--root", str(REPO)],
    ["inventory", "--root", str(REPO)],
    ["diff", "--root", str(REPO), SNAPSHOT, SNAPSHOT],
], ids=["check", "lint", "inventory", "diff"])
def test_the_everyday_commands_import_nothing_heavy(args, tmp_path):
    probe = ("import contextlib, io, json, sys\n"
             "from docgen.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             f"    code = main({args!r})\n"
             f"print(json.dumps([code, sorted(m for m in {HEAVY!r} if m in sys.modules)]))\n")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    code, loaded = json.loads(run.stdout.splitlines()[-1])
    assert code == 0, run.stderr
    assert loaded == [], f"docgen {args[0]} imported {loaded}"
