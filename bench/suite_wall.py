"""Wall time of the README's test command, this tree against a baseline revision, measured in one run.

    .venv/bin/python bench/suite_wall.py [--baseline REV] [--runs 1] [--keep]

Each revision is checked out into a scratch git worktree and set up there by its own `scripts/bootstrap`
(its venv, stand-in workspace and site; the engine and the images are shared and cached), then the
README's test command runs in it with the engine, the image, the browser and the reference mandatory, as
CI runs it. Runs alternate between the two revisions (a busy neighbour slows both alike). For each run
the bench prints the wall time, the machine's busy CPU-seconds over that time (from /proc/stat: the
suite's own processes, the Docker engine's and Chromium's alike) and pytest's last line; then the
medians and the ratio of this tree to the baseline. The uncommitted changes of this tree are not
measured: commit first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import report  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TEST_COMMAND = [".venv/bin/python", "-m", "pytest"]   # README.md, "Run the tests"
DEFAULT_BASELINE = "1de8680"   # main before the suite was spread over the engine's files
GOAL_S = 180


def busy_seconds() -> float:
    """CPU-seconds the whole machine has spent busy since boot (user, nice, system, irq, softirq, steal)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    return (fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]) / os.sysconf("SC_CLK_TCK")


def checkout(rev: str, where: Path) -> Path:
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(where), rev], check=True)
    log = where.parent / f"{where.name}-bootstrap.log"
    with open(log, "w") as out:
        done = subprocess.run(["bash", "scripts/bootstrap"], cwd=where, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise SystemExit(f"scripts/bootstrap failed in {where} (revision {rev}); see {log}")
    return where


def run_suite(tree: Path, reference: str, log: Path | None = None) -> dict:
    """One run of the README's test command in `tree`, as CI runs it; its whole output goes to `log` if given."""
    env = {**os.environ, "NMP_REQUIRE_IMAGE": "1", "NMP_REQUIRE_BROWSER": "1", "NMP_REQUIRE_REFERENCE": "1",
           "NEMO_RL_REF_DIR": reference}
    busy, start = busy_seconds(), time.perf_counter()
    done = subprocess.run(TEST_COMMAND, cwd=tree, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, busy_seconds() - busy
    if log is not None:
        log.write_text(done.stdout + done.stderr)
    lines = done.stdout.strip().splitlines() or ["(no output)"]
    failed = [line.split(" ", 1)[1] for line in lines if line.startswith(("FAILED ", "ERROR "))]
    return {"wall_s": round(wall, 1), "busy_cpu_s": round(cpu, 1), "exit": done.returncode,
            "pytest": lines[-1].strip("= "), "failed": failed}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help=f"revision to compare with (default {DEFAULT_BASELINE})")
    parser.add_argument("--runs", type=int, default=1, help="runs of each revision, alternating (default 1)")
    parser.add_argument("--keep", action="store_true", help="leave the scratch worktrees in place")
    args = parser.parse_args()
    reference = os.environ.get("NEMO_RL_REF_DIR") or str(REPO.parent / "shared" / "nemo-rl-ref")
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    scratch = Path(tempfile.mkdtemp(prefix="suite-wall-"))
    trees = {}
    try:
        for label, rev in (("baseline", args.baseline), ("head", head)):
            print(f"setting up {label} ({rev}) in {scratch / label}", file=sys.stderr)
            trees[label] = checkout(rev, scratch / label)
        runs: dict[str, list[dict]] = {"baseline": [], "head": []}
        for i in range(args.runs):
            for label in ("baseline", "head"):
                result = run_suite(trees[label], reference)
                runs[label].append(result)
                print(f"run {i + 1} {label}: {result}", file=sys.stderr)
    finally:
        if not args.keep:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False)
            shutil.rmtree(scratch, ignore_errors=True)
    medians = {label: statistics.median(r["wall_s"] for r in results) for label, results in runs.items()}
    report("suite_wall", {
        "baseline": args.baseline, "head": head, "runs": runs,
        "median_wall_s": medians, "ratio_head_to_baseline": round(medians["head"] / medians["baseline"], 3),
        "goal_s": GOAL_S, "head_within_goal": medians["head"] < GOAL_S,
        "all_passed": all(r["exit"] == 0 for results in runs.values() for r in results),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
