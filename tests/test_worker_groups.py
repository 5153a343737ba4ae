"""The suite's xdist groups as the workers see them: the node ids a worker runs carry the group that keeps
tests sharing one resource on one worker (tests/conftest.py). A page's console blocks split over two
workers lose their shell; two builds of this checkout's targets side by side leave the image unlike its
own builder stage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Records the node ids each worker was given, after xdist named their groups in them, and runs none.
# Also records what a process the worker starts sees of SIGINT.
RECORDER = textwrap.dedent(
    """
    import json, os, subprocess, sys, pytest

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(config, items):
        worker = os.environ.get("PYTEST_XDIST_WORKER", "controller")
        child = subprocess.run([sys.executable, "-c", "import signal; h = signal.getsignal(signal.SIGINT); print(getattr(h, 'name', None) or h.__name__)"],
                               capture_output=True, text=True).stdout.strip()
        with open(os.path.join(os.environ["RECORD_DIR"], worker + ".json"), "w") as out:
            json.dump({"ids": [item.nodeid for item in items], "child_sigint": child}, out)
        items[:] = []
    """
)
# The child pytest starts as a background job of a non-interactive shell would: with SIGINT ignored.
IGNORING_SIGINT = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); os.execv(sys.executable, sys.argv[1:])"
PATHS = ["tests/docs", "tests/console/test_parser.py", "tests/image/test_layers.py", "tests/image/test_build_log.py",
         "tests/image/test_users.py", "tests/site/test_build.py", "tests/site/test_install_extra.py",
         "tests/unit/test_records.py"]


@pytest.fixture(scope="module")
def worker_record(tmp_path_factory) -> dict:
    """What the one worker of a child pytest session, started with SIGINT ignored, recorded."""
    tmp_path = tmp_path_factory.mktemp("groups")
    (tmp_path / "record_groups.py").write_text(RECORDER)
    env = {**os.environ, "RECORD_DIR": str(tmp_path), "PYTHONPATH": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", IGNORING_SIGINT, sys.executable, "-m", "pytest", "-q", "-n", "1",
                          "-p", "record_groups", "-p", "no:cacheprovider", *PATHS],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 5, run.stdout[-3000:] + run.stderr[-3000:]   # 5: no test ran, as the recorder wants
    recorded = sorted(tmp_path.glob("gw*.json"))   # one worker is enough: each names the groups alike
    assert len(recorded) == 1, run.stdout[-3000:]
    return json.loads(recorded[0].read_text())


def test_a_suite_started_ignoring_sigint_still_interrupts_its_children(worker_record):
    # the console tests send SIGINT to child sessions (tests/console/test_sessions.py); ignored, they sleep on
    assert worker_record["child_sigint"] == "default_int_handler"


def test_each_resource_keeps_its_tests_on_one_worker(worker_record):
    ids = worker_record["ids"]
    pages = [i for i in ids if not i.startswith("tests/")]
    assert {i.split("::")[0] for i in pages} >= {"docs/contributing.md", "docs/image/inspect.md"}
    for node in pages:                                 # a page's blocks: the page's own group
        assert node.endswith(f"@engine:{node.split('::')[0]}"), node
    for node in ids:
        path = node.split("::")[0]
        if path in ("tests/image/test_layers.py", "tests/image/test_build_log.py"):
            assert node.endswith("@engine:shared-engine-builds"), node
        elif path.startswith(("tests/console/", "tests/image/")):
            assert node.endswith(f"@engine:{path}"), node
        elif path == "tests/site/test_install_extra.py":   # builds its own site in a venv of its own: spread
            assert "@" not in node, node
        elif path.startswith("tests/site/"):
            assert node.endswith("@site"), node
        elif path.startswith("tests/unit/"):
            assert "@" not in node, node                # spread over the workers
    assert any(i.startswith("tests/unit/") for i in ids) and any(i.startswith("tests/site/") for i in ids)
