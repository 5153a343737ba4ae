"""Whole-process wall-clock timing for the benches: medians of repeated runs, ratios to a baseline measured
in the same run (absolute seconds vary with the machine; ratios are what the issues set targets for)."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


# This machine sets PYTHONDONTWRITEBYTECODE=1, so every process would recompile docgen from source. An
# installed tool runs from bytecode; give every measured process (baseline too) one shared bytecode cache.
_PYCACHE = Path(os.environ.get("TMPDIR", "/tmp")) / "docgen-bench-pycache"


def bench_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
    return env


def wall(cmd: list[str], *, runs: int = 7, warmup: int = 1, **kwargs) -> list[float]:
    """Seconds per run of `cmd` as a whole process (output discarded); the first `warmup` runs are dropped."""
    kwargs.setdefault("env", bench_env())
    times = []
    for i in range(warmup + runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return times


def round_robin(commands: dict[str, list[str]], runs: int, **kwargs) -> tuple[dict[str, list[float]],
                                                                         dict[str, list[float]]]:
    """(wall seconds, CPU seconds) per command over `runs` rounds of one run of each, after one round that warms
    the bytecode and file caches: on a shared machine the load drifts, and it should hit a command and its
    baseline alike. CPU time (user + system of the child) moves much less than wall time when other processes
    compete for the cores, so both are kept."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(runs + 1):
        for name, cmd in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            took = wall(cmd, runs=1, warmup=0, **kwargs)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if round_:
                times[name] += took
                cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return times, cpu


def summary(times: list[float]) -> dict:
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times), "runs": len(times)}


def report(name: str, result: dict) -> None:
    """Print the result and keep it under bench/results/ (git-ignored)."""
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    json.dump(result, sys.stdout, indent=2)
    print()
