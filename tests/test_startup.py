"""Start-up budget: what `docgen check`, `lint`, `inventory` and `diff` import.

`docgen check` runs on every commit and its figure is a ratio to a bare interpreter start (bench/), so the
modules it loads are part of its contract. Each of these costs a millisecond or more and is not needed to
read the inputs, render the pages and report: typing and tomllib (with datetime) alone were about 7 ms
of a 90 ms check. Type-only imports sit under `TYPE_CHECKING = False`; configurations in plain TOML are
read by docgen.plain_toml. A new import of one of these on the check path fails here with its name.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

HEAVY = ("typing", "tomllib", "datetime", "shutil", "hashlib", "subprocess", "tempfile", "packaging",
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
