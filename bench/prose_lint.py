"""What the prose lint costs inside `docgen check`, per page, on the repository and at ten times the pages.

    .venv/bin/python bench/prose_lint.py [--runs 20]

In one process: the median time of the whole pipeline's `prepare` (read inputs, build the model, parse and
render every page: the baseline) and of `prose_findings` over the same run, on the repository and on a
temporary copy with each docs page copied nine more times (bench/check_speed.py's tenfold copy). The
prose lint's cost is reported per page and as a fraction of the baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_speed import REPO, tenfold_copy  # noqa: E402


def median_ms(fn, runs: int) -> float:
    fn()  # warm-up: imports and regex compilation are not per-page costs
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def measure(root: Path, runs: int) -> tuple[int, float, float]:
    from docgen.check.pipeline import prepare
    from docgen.check.prose import prose_findings
    from docgen.project import find_project

    project = find_project(root, None)
    run = prepare(project)
    return len(run.pages), median_ms(lambda: prepare(project), runs), median_ms(lambda: prose_findings(run), runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text())
        tenfold_copy(REPO, Path(tmp))
        rows = [("repository", *measure(REPO, args.runs)), ("10x pages", *measure(Path(tmp), args.runs))]
    for name, pages, pipeline, prose in rows:
        print(f"{name:<11} {pages:4d} pages: prepare {pipeline:7.2f} ms, prose lint {prose:6.2f} ms "
              f"({prose / pages:.3f} ms per page, {prose / pipeline * 100:.1f}% of prepare)")


if __name__ == "__main__":
    main()
