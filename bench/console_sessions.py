"""What a docs session's container costs to start, reset between pages and tear down, and what the orphan
reaper adds when nothing is left over.

    .venv/bin/python bench/console_sessions.py [--image nmp-rl-base:hermetic] [--runs 5]

Per run, in the order a session does them:
- reaper:     `reap_orphans` (one filtered list call; nothing to remove)
- start:      `containers.run` with the hardened options
- first shell: the first page's bash ready in the container
- reset:      the between-pages reset (kill what the page left, empty /tmp and /dev/shm)
- teardown:   remove the container
The reaper's cost is also given as a ratio to the start-up it precedes (same run, same engine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.timing import report  # noqa: E402
from docgen.console.evaluator import DEFAULT_IMAGE  # noqa: E402
from docgen.console.shell import SessionContainer, reap_orphans  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--image", default=DEFAULT_IMAGE)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    import docker

    client = docker.from_env(timeout=120)
    phases: dict[str, list[float]] = {k: [] for k in ("reaper", "start", "first_shell", "reset", "teardown")}
    for _ in range(args.runs):
        os.environ["DOCGEN_CONSOLE_SESSION_ID"] = f"bench-issue-12-{uuid.uuid4().hex}"
        t0 = time.perf_counter()
        removed = reap_orphans(client)
        t1 = time.perf_counter()
        assert removed == [], f"the bench expects nothing left over; it removed {removed}"
        session = SessionContainer.__new__(SessionContainer)   # the constructor minus its own reaper call
        try:
            SessionContainer.__init__(session, client, args.image)
            t2 = time.perf_counter()
            shell = session.shell()
            shell.run("echo hi > /tmp/x", 30)
            t3 = time.perf_counter()
            shell.kill()
            t4 = time.perf_counter()
            problem = session.reset()
            t5 = time.perf_counter()
            assert problem is None, problem
        finally:
            t5b = time.perf_counter()
            session.remove()
            t6 = time.perf_counter()
        # the constructor ran the reaper again; subtract the separately timed call from its start-up
        phases["reaper"].append(t1 - t0)
        phases["start"].append(max(0.0, (t2 - t1) - (t1 - t0)))
        phases["first_shell"].append(t3 - t2)
        phases["reset"].append(t5 - t4)
        phases["teardown"].append(t6 - t5b)
    ms = {k: {"median_ms": round(statistics.median(v) * 1000, 1), "max_ms": round(max(v) * 1000, 1)}
          for k, v in phases.items()}
    result = {
        "image": args.image,
        "runs": args.runs,
        "phases": ms,
        "reaper_over_start_ratio": round(statistics.median(phases["reaper"]) / statistics.median(phases["start"]), 3),
    }
    report("console_sessions", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
