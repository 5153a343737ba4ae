"""A/B start-up figures: this tree's docgen against another commit's, interleaved in one run.

    .venv/bin/python bench/ab_speed.py [--base REF] [--runs 15] [-- ARGS...]

Runs `python -m docgen ARGS` (default: `check --root <this repository>`) with the docgen package of REF
(default HEAD, exported with `git archive`) and with the working tree's, alternating run by run, together
with a bare `python -c pass`. Every process starts in an empty scratch folder, so that neither side imports
docgen from the working directory (`-m` puts it first on sys.path); give ARGS a `--root`. Interleaving keeps a busy neighbour from favouring one side; the medians are
printed as milliseconds and as ratios to the bare start, which is what the issues set targets for.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import bench_env  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def export(ref: str, into: Path) -> None:
    tar = subprocess.run(["git", "-C", str(REPO), "archive", ref, "docgen"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")


def once(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("args", nargs="*", default=None)
    args = parser.parse_args()
    docgen_args = args.args or ["check", "--root", str(REPO)]
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as scratch:
        export(args.base, Path(tmp))
        which = [sys.executable, "-c", "import docgen; print(docgen.__file__)"]
        for path in (tmp, str(REPO)):   # each side must import its own docgen
            found = subprocess.run(which, env=bench_env() | {"PYTHONPATH": path}, cwd=scratch, check=True,
                                   capture_output=True, text=True).stdout.strip()
            assert found.startswith(path + os.sep), f"PYTHONPATH={path} imported {found}"
        sides = {"bare": ([sys.executable, "-c", "pass"], bench_env()),
                 args.base: ([sys.executable, "-m", "docgen", *docgen_args], bench_env() | {"PYTHONPATH": tmp}),
                 "tree": ([sys.executable, "-m", "docgen", *docgen_args], bench_env() | {"PYTHONPATH": str(REPO)})}
        times: dict[str, list[float]] = {name: [] for name in sides}
        for i in range(args.runs + 1):
            for name, (cmd, env) in sides.items():
                seconds = once(cmd, env, Path(scratch))
                if i:   # the first round warms the bytecode cache and the page cache
                    times[name].append(seconds)
    bare = statistics.median(times["bare"])
    print(f"docgen {' '.join(docgen_args)}   ({args.runs} interleaved runs, load {os.getloadavg()[0]:.2f})")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"  {name:>12}: {median * 1000:6.1f} ms  {median / bare:4.2f}x bare")


if __name__ == "__main__":
    main()
