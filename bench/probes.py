"""Run docgen's hostile-input, fault and concurrency probes and count, per class, how many ran and how many held.

    .venv/bin/python bench/probes.py [--no-docker] [--no-slow] [-- extra pytest arguments]

A probe is a test marked `@pytest.mark.probe("class")` (the marker is declared in pyproject.toml). The probes
live in the test files below; each parametrized case counts as one probe; the table counts every probe of the files (`probes`), those pytest ran and those that held. A probe *ran* when pytest ran it
(passed or failed, not skipped); it *held* when it passed. `--no-docker` leaves out the probes that need a
Docker engine (for when the shared engine is busy), `--no-slow` the slow ones (the SIGKILL sweep). Prints one
line per class and a total, then the probes that did not hold; exits 1 when a probe that ran did not hold, 2
when a probe names a class not listed in CLASSES.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = (
    "tests/test_hostile_inputs.py",
    "tests/test_hostile_render.py",
    "tests/test_project.py",
    "tests/unit/test_io.py",
    "tests/unit/test_fences.py",
    "tests/test_write_faults.py",
    "tests/console/test_faults.py",
    "tests/console/test_sessions.py",
    "tests/console/test_protocol.py",
)
CLASSES = (
    "writes outside what docgen owns",
    "symlinks and special files",
    "malformed input",
    "escaping and markers",
    "container ownership",
    "engine faults",
    "console block status",
    "interrupted writes",
    "python floor",
)


class Tally:
    """A pytest plugin: the class of each selected probe, and the outcome of each one that ran."""

    def __init__(self) -> None:
        self.class_of: dict[str, str] = {}
        self.outcome: dict[str, str] = {}   # nodeid -> passed / failed / skipped
        self.unknown: dict[str, str] = {}

    def pytest_collection_modifyitems(self, items) -> None:
        for item in items:
            marker = item.get_closest_marker("probe")
            if marker is None:
                continue
            cls = marker.args[0] if marker.args else ""
            self.class_of[item.nodeid] = cls
            if cls not in CLASSES:
                self.unknown[item.nodeid] = cls

    def pytest_runtest_logreport(self, report) -> None:
        if report.nodeid not in self.class_of:
            return
        if report.when == "call" or report.outcome != "passed":
            # a failure or a skip in setup or teardown decides; a pass counts only for the call itself
            if self.outcome.get(report.nodeid) in ("failed",):
                return
            self.outcome[report.nodeid] = "skipped" if report.skipped else report.outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-docker", action="store_true", help="leave out the probes that need a Docker engine")
    parser.add_argument("--no-slow", action="store_true", help="leave out the slow probes (the SIGKILL sweep)")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    expression = " and ".join(["probe"] + ["not docker"] * args.no_docker + ["not slow"] * args.no_slow)
    tally = Tally()
    code = pytest.main([*(str(ROOT / f) for f in FILES), "-m", expression, "-q", "-p", "no:cacheprovider",
                        "--no-header", "-rN", *args.pytest_args], plugins=[tally])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
        print(f"probes: pytest stopped with exit code {int(code)}", file=sys.stderr)
        return 2
    if tally.unknown:
        for nodeid, cls in sorted(tally.unknown.items()):
            print(f"probes: {nodeid}: unknown probe class {cls!r} (known: {', '.join(CLASSES)})", file=sys.stderr)
        return 2
    print()
    width = max(len(c) for c in CLASSES)
    print(f"{'class':<{width}}    probes  ran  held")
    totals = [0, 0, 0]
    for cls in CLASSES:
        ids = [n for n, c in tally.class_of.items() if c == cls]
        ran = [n for n in ids if tally.outcome.get(n) in ("passed", "failed")]
        held = [n for n in ran if tally.outcome[n] == "passed"]
        print(f"{cls:<{width}}  {len(ids):>8}  {len(ran):>3}  {len(held):>4}")
        for i, n in enumerate((ids, ran, held)):
            totals[i] += len(n)
    print(f"{'total':<{width}}  {totals[0]:>8}  {totals[1]:>3}  {totals[2]:>4}")
    broken = sorted(n for n, o in tally.outcome.items() if o == "failed")
    for nodeid in broken:
        print(f"did not hold: {nodeid} ({tally.class_of[nodeid]})")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
