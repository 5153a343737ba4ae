"""The everyday routine's figure (issue 31): from a fresh clone to a green check and a pull-request body.

    .venv/bin/python bench/bump_routine.py

Makes the scratch of tests/bump_scratch.py (this repository with its snapshot at commit A of a local NeMo-RL
mirror, the mirror standing in for NEMO_RL_REPO), clones it fresh (no venv, no ../RL), and runs the README's
routine there as written: its commands counted, the whole timed, then `docgen check` timed in the same clone
as the baseline (the routine's time as a ratio to one check). The install step builds docgen's venv through
pip, so the figure includes what a first-time maintainer waits for.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.bump_scratch import scratch  # noqa: E402
from tests.rl_checkout import FORK_URL, git  # noqa: E402
from tests.test_readme_snippets import routine_script  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bump-routine-") as tmp:
        s = scratch(Path(tmp))
        env = s["env"]
        git("config", "--global", f"url.{s['mirror']}.insteadOf", FORK_URL, env=env)
        fresh = Path(tmp) / "fresh" / "repo"
        git("clone", "-q", str(s["repo"]), str(fresh), env=env)
        script = routine_script()
        commands = [c for c in script.splitlines() if c.strip() and not c.lstrip().startswith("#")]
        started = time.monotonic()
        run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=fresh, env=env, capture_output=True,
                             text=True, timeout=1800)
        routine = time.monotonic() - started
        assert run.returncode == 0, run.stderr[-3000:]
        body = (fresh.parent / "bump-pr.md").read_text()
        started = time.monotonic()
        check = subprocess.run([str(fresh / ".venv/bin/docgen"), "check"], cwd=fresh, env=env, capture_output=True,
                               text=True, timeout=300)
        baseline = time.monotonic() - started
        assert check.returncode == 0, check.stderr
        headline = body.split("\n\n", 1)[0]
        shown = "; ".join(re.sub(r"\s+", " ", c)[:40] for c in commands)
        print(f"commands: {len(commands)} ({shown})")
        print(f"routine from a fresh clone: {routine:.1f} s; docgen check alone: {baseline:.2f} s; "
              f"ratio {routine / baseline:.0f}x")
        print(f"check after: exit {check.returncode}; body: {len(body.splitlines())} lines; headline: {headline[:120]}")


if __name__ == "__main__":
    main()
