"""What a docs session's container costs to start, reset between pages and tear down, and what the orphan
reaper adds when nothing is left over; before (git REF) and after (this checkout) in the same run.

    .venv/bin/python bench/console_sessions.py [--image nmp-rl-base:hermetic] [--runs 7] [--baseline REF]

Per run, in the order a session does them:
- start:       `SessionContainer(...)`: after, this includes the reaper and the watchdog registration
- first shell: the first page's bash ready in the container and one `true` run
- reset:       (after only) the between-pages reset: kill what the page left, empty /tmp and /dev/shm
- teardown:    remove the container
and, after only, `reap_orphans` on its own (one filtered list call; nothing to remove), also as a ratio to
the start-up it is part of. The before tree is REF's docgen package (`git archive`), run by the same
interpreter against the same engine, interleaved run by run with the after tree.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.timing import bench_env, report  # noqa: E402

ONE_RUN = r"""
import json, os, sys, time, uuid
sys.path.insert(0, sys.argv[1])
import docker
try:
    from docgen.console import container as mod, watchdog as reaper
except ImportError:   # a tree from before console/shell.py was split: one module held both
    from docgen.console import shell as mod
    reaper = mod
client = docker.from_env(timeout=120)
os.environ["DOCGEN_CONSOLE_SESSION_ID"] = f"bench-issue-12-{uuid.uuid4().hex}"
out = {}
if hasattr(reaper, "reap_orphans"):
    t = time.perf_counter(); removed = reaper.reap_orphans(client); out["reaper"] = time.perf_counter() - t
    assert removed == [], removed
t = time.perf_counter(); session = mod.SessionContainer(client, sys.argv[2]); out["start"] = time.perf_counter() - t
try:
    t = time.perf_counter(); sh = session.shell(); sh.run("echo x > /tmp/x", 30); out["first_shell"] = time.perf_counter() - t
    sh.kill()
    if hasattr(session, "reset"):
        t = time.perf_counter(); problem = session.reset(); out["reset"] = time.perf_counter() - t
        assert problem is None, problem
finally:
    t = time.perf_counter(); session.remove(); out["teardown"] = time.perf_counter() - t
print(json.dumps(out))
"""


def one_run(tree: Path, image: str) -> dict:
    done = subprocess.run([sys.executable, "-c", ONE_RUN, str(tree), image], env=bench_env(),
                          capture_output=True, text=True, check=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    from docgen.console.evaluator import DEFAULT_IMAGE

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--image", default=DEFAULT_IMAGE)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", default="bbed632")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="docgen-bench-sessions-") as tmp:
        data = subprocess.run(["git", "archive", args.baseline, "docgen"], cwd=REPO, check=True,
                              capture_output=True).stdout
        with tarfile.open(fileobj=BytesIO(data)) as tar:
            tar.extractall(tmp, filter="data")
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for _ in range(args.runs):
            runs["before"].append(one_run(Path(tmp), args.image))
            runs["after"].append(one_run(REPO, args.image))

    def medians(entries: list[dict]) -> dict:
        return {k: round(statistics.median(e[k] for e in entries) * 1000, 1) for k in entries[0]}

    before, after = medians(runs["before"]), medians(runs["after"])
    result = {
        "image": args.image, "runs": args.runs, "baseline": args.baseline,
        "before_ms": before, "after_ms": after,
        "after_over_before": {k: round(after[k] / before[k], 2) for k in before},
        "reaper_over_start": round(after["reaper"] / after["start"], 3),
    }
    report("console_sessions", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
