"""What the prose lint costs inside `docgen check`, per page, on the repository and at ten times the pages.

    .venv/bin/python bench/prose_lint.py [--runs 20]

In one process: the median time of the whole pipeline's `prepare` (read inputs, build the model, parse and
render every page: the baseline) and of `prose_findings` over the same run, on the repository and on a
temporary copy with each docs page copied nine more times (bench/check_speed.py's tenfold copy). The
prose lint's cost is reported per page and as a fraction of the baseline measured in the same run, and as
the least CPU time of one run (time.process_time: the steadier figure on a machine others share).

The start-up line is what one check pays on the repository: in fresh processes (the best of `--runs`), the
import of docgen.check.prose (which compiles the lint's patterns) and its first run, after the pipeline has
prepared the run. The last line is a whole `docgen check` of the repository in this process (after one
warm-up run): its median wall time and least CPU time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_speed import REPO, tenfold_copy  # noqa: E402


def timed_ms(fn, runs: int) -> tuple[float, float]:
    """The median wall time and the least CPU time of `fn`, in ms, after one warm-up call (imports are not
    per-page costs)."""
    fn()
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall) * 1000, min(cpu) * 1000


def measure(root: Path, runs: int) -> tuple[int, float, float, float]:
    from docgen.check.pipeline import prepare
    from docgen.check.prose import prose_findings
    from docgen.project import find_project

    project = find_project(root, None)
    run = prepare(project)
    pipeline, _ = timed_ms(lambda: prepare(project), runs)
    return (len(run.pages), pipeline, *timed_ms(lambda: prose_findings(run), runs))


def check_ms(root: Path, runs: int) -> tuple[float, float]:
    """`docgen check` on `root` in this process (output discarded): median wall and least CPU time, in ms."""
    from docgen.cli import main

    def check() -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            if main(["check"]) != 0:
                raise SystemExit(f"docgen check fails on {root}")

    here = os.getcwd()
    os.chdir(root)
    try:
        return timed_ms(check, runs)
    finally:
        os.chdir(here)


_FRESH = """
import sys, time
from pathlib import Path
from docgen.check import lint
from docgen.check.pipeline import prepare
from docgen.project import find_project
run = prepare(find_project(Path(sys.argv[1]), None))
start = time.perf_counter()
from docgen.check.prose import prose_findings
imported = time.perf_counter()
prose_findings(run)
print(imported - start, time.perf_counter() - imported)
"""


def start_up_ms(root: Path, runs: int) -> tuple[float, float]:
    """The best import and first-run times of the prose lint, each in a new process (bytecode cached)."""
    from timing import bench_env

    times = [subprocess.run([sys.executable, "-c", _FRESH, str(root)], check=True, capture_output=True, text=True,
                            env=bench_env()).stdout.split() for _ in range(runs + 1)][1:]
    return min(float(t[0]) for t in times) * 1000, min(float(t[1]) for t in times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text())
        tenfold_copy(REPO, Path(tmp))
        rows = [("repository", *measure(REPO, args.runs)), ("10x pages", *measure(Path(tmp), args.runs))]
    for name, pages, pipeline, prose, prose_cpu in rows:
        print(f"{name:<11} {pages:4d} pages: prepare {pipeline:7.2f} ms, prose lint {prose:6.2f} ms "
              f"({prose / pages:.3f} ms per page, {prose / pipeline * 100:.1f}% of prepare; "
              f"least CPU {prose_cpu:.2f} ms)")
    imported, first = start_up_ms(REPO, args.runs)
    print(f"start-up    repository: import {imported:.2f} ms, first run {first:.2f} ms (fresh processes)")
    wall, cpu = check_ms(REPO, args.runs)
    print(f"docgen check repository: {wall:.1f} ms median, least CPU {cpu:.1f} ms (in this process)")


if __name__ == "__main__":
    main()
