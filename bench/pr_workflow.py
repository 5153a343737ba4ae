"""The pull-request workflow's steps (.github/workflows/docs.yml), run on this machine one after the other:
seconds per step, the slowest step, the total, and the critical path the workflow's job graph gives when
its jobs run in parallel (as they do on GitHub). A bare `docgen check` in the same run is the baseline every
step is also given as a ratio to.

    .venv/bin/python bench/pr_workflow.py [--skip-image]

The image job builds under its own tag (nmp-rl-base:<branch>-bench, label owner=<branch>) from the same
bake target, so nmp-rl-base:hermetic is never rebuilt; that tag is removed at the end. Setup steps the
runner needs and this machine already has (checkout, setup-python, apt, an engine) are not timed; the
installs are: a fresh venv with docgen alone (the drift job) and the dev tools (the other jobs).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import bench_env, report, summary, wall  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PY = REPO / ".venv" / "bin" / "python"
DOCGEN = REPO / ".venv" / "bin" / "docgen"


def branch() -> str:
    out = subprocess.run(["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return (out.stdout.strip() or "bench").replace("/", "-")


def steps(tmp: Path, image: str) -> list[tuple[str, str, list[str], dict]]:
    """(job, step, command, extra env): the workflow's run steps as this machine runs them."""
    changed = tmp / "changed-files.txt"
    changed.write_text(subprocess.run(["git", "diff", "--name-only", "HEAD~1"], cwd=REPO, capture_output=True,
                                      text=True).stdout)
    venv = tmp / "docgen-only"
    pytest = [str(PY), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    return [
        ("drift", "install docgen alone (fresh venv, pip install .)",
         ["bash", "-c", f"python3 -m venv {venv} && {venv}/bin/python -m pip install -q ."], {}),
        ("drift", "docgen check --format github --changed-files-from",
         [str(venv / "bin" / "docgen"), "check", "--format", "github", "--changed-files-from", str(changed)],
         {"GITHUB_STEP_SUMMARY": str(tmp / "summary.md")}),
        ("unit", "install the pinned tools (pip install -r requirements/dev.txt, all present)",
         [str(PY), "-m", "pip", "install", "-q", "-r", "requirements/dev.txt"], {}),
        ("unit", "tests without engine, image or browser",
         [*pytest, "--ignore=tests/image", "--ignore=tests/docs", "--ignore=tests/site"], {}),
        ("image", "engine requirement (docker version)",
         ["docker", "version", "--format", "{{.Server.Version}}"], {}),
        ("image", f"scripts/build-image (tag {image})",
         ["scripts/build-image", "--set", f"hermetic.tags={image}", "--set", f"hermetic.labels.owner={branch()}"],
         {}),
        ("image", "console docs in the image + lock-to-image test",
         [*pytest, "tests/docs", "tests/image/test_lock_to_image.py"],
         {"NMP_REQUIRE_IMAGE": "1", "NMP_IMAGE": image}),
        ("site", "scripts/build-docs (strict)", ["scripts/build-docs", str(tmp / "site")], {}),
        ("site", "browser tests", [*pytest, "tests/site"], {"NMP_REQUIRE_BROWSER": "1"}),
    ]


def critical_path(job_seconds: dict[str, float]) -> tuple[float, list[str]]:
    """The longest chain through the workflow's `needs` graph, over the jobs that were timed."""
    jobs = yaml.safe_load((REPO / ".github" / "workflows" / "docs.yml").read_text())["jobs"]
    missing = set(job_seconds) - set(jobs)
    if missing:
        raise SystemExit(f"bench steps name jobs the workflow does not have: {sorted(missing)}")
    memo: dict[str, tuple[float, list[str]]] = {}

    def finish(name: str) -> tuple[float, list[str]]:
        if name not in memo:
            needs = jobs[name].get("needs", [])
            needs = [needs] if isinstance(needs, str) else needs
            before = max((finish(n) for n in needs if n in job_seconds), default=(0.0, []))
            memo[name] = (before[0] + job_seconds[name], before[1] + [name])
        return memo[name]

    return max(finish(name) for name in job_seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-image", action="store_true", help="leave out the image job (no engine here)")
    args = parser.parse_args()
    image = f"nmp-rl-base:{branch()}-bench"
    baseline = summary(wall([str(DOCGEN), "check"], cwd=REPO, runs=5))
    results, job_seconds = [], {}
    with tempfile.TemporaryDirectory(prefix="pr-workflow-") as tmp:
        try:
            for job, name, cmd, extra in steps(Path(tmp), image):
                if args.skip_image and job == "image":
                    continue
                env = {**bench_env(), **extra}
                start = time.perf_counter()
                proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
                seconds = time.perf_counter() - start
                ok = proc.returncode == 0
                results.append({"job": job, "step": name, "seconds": round(seconds, 2), "ok": ok,
                                "ratio_to_baseline": round(seconds / baseline["median_s"], 1)})
                job_seconds[job] = job_seconds.get(job, 0.0) + seconds
                print(f"{job:6} {seconds:8.1f} s  {'ok ' if ok else 'FAIL'} {name}", file=sys.stderr)
                if not ok:
                    print((proc.stdout + proc.stderr)[-3000:], file=sys.stderr)
        finally:
            if not args.skip_image:
                subprocess.run(["docker", "image", "rm", image], capture_output=True)
    total = sum(r["seconds"] for r in results)
    slowest = max(results, key=lambda r: r["seconds"])
    path_seconds, path = critical_path(job_seconds)
    report("pr_workflow", {
        "baseline": {"what": "docgen check on this repository", **baseline},
        "steps": results,
        "total_sequential_s": round(total, 1),
        "critical_path_s": round(path_seconds, 1),
        "critical_path_jobs": path,
        "slowest_step": {k: slowest[k] for k in ("job", "step", "seconds")},
        "all_ok": all(r["ok"] for r in results),
        "cpus": os.cpu_count(),
    })
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
