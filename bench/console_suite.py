"""The console tests' wall time, serial (`pytest -n0 tests/console`), against another commit's, in one run.

    .venv/bin/python bench/console_suite.py [--baseline REF] [--runs 1] [-m docker] [--tree DIR]

The baseline is REF's tree (`git archive`: its docgen and its tests), run by this venv's interpreter
against the same engine and images, its child processes importing REF's docgen (PYTHONPATH); runs
alternate, baseline first. `--tree` measures a copy of this tree instead (one that stays put while
you edit this one). `-m docker` keeps the tests that need the Docker engine. Prints the seconds of
each run, the medians and the ratio this tree / baseline; every run must pass.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.timing import bench_env, report  # noqa: E402


def one_run(tree: Path, marker: str | None) -> float:
    env = {**bench_env(), "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", "pytest", "-n0", "-q", "-p", "no:cacheprovider", "tests/console"]
    started = time.perf_counter()
    done = subprocess.run(command + (["-m", marker] if marker else []), cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the console tests failed\n{done.stdout[-3000:]}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="faf9730")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("-m", dest="marker", default=None)
    parser.add_argument("--tree", type=Path, default=REPO)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="docgen-bench-console-") as tmp:
        data = subprocess.run(["git", "archive", args.baseline], cwd=REPO, check=True, capture_output=True).stdout
        with tarfile.open(fileobj=BytesIO(data)) as tar:
            tar.extractall(tmp, filter="data")
        runs: dict[str, list[float]] = {"baseline": [], "this": []}
        for _ in range(args.runs):
            runs["baseline"].append(one_run(Path(tmp), args.marker))
            runs["this"].append(one_run(args.tree, args.marker))
    medians = {k: round(statistics.median(v), 1) for k, v in runs.items()}
    report("console_suite", {"baseline": args.baseline, "marker": args.marker, "cores": len(os.sched_getaffinity(0)),
                             "seconds": {k: [round(x, 1) for x in v] for k, v in runs.items()}, "median_s": medians,
                             "this_over_baseline": round(medians["this"] / medians["baseline"], 2)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
