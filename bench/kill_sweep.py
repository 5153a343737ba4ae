"""SIGKILL `docgen write` at random moments and judge the page set it leaves (issue 20, point 7).

    .venv/bin/python bench/kill_sweep.py [--runs 200] [--seed 1]

A scratch copy of this repository has the Megatron filter removed, so that `write` rewrites several pages and
the facts record. Each run puts the old files back, starts `python -m docgen write`, kills it with SIGKILL
after a random delay (every other run drawn over the second half of a measured write and a little past its
end; the others up to 1 ms after the journal appears, inside the renames), and then looks at the set of
files write would change:

  old        every file as before (killed before the journal was in place);
  new        every file as write leaves it (killed after the set was whole);
  recovered  a journal was left; the next command (`docgen check`) said it recovered the write and the set
             is then wholly new;
  broken     anything else: a mixed set the next command did not make whole, or a recovery it did not
             report. Must be 0.

Prints the counts as one JSON object; exits 1 when a run was broken.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEGATRON_FILTER = "  megatron_policy_worker.MegatronPolicyWorker \\\n"


def _docgen(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "docgen", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _files(root: Path, names: list[str]) -> dict[str, bytes | None]:
    return {name: (root / name).read_bytes() if (root / name).exists() else None for name in names}


def prepare(dest: Path) -> tuple[dict[str, bytes | None], dict[str, bytes | None], float]:
    """The scratch repository; the old and new bytes of every file write changes; one write's duration."""
    sys.path.insert(0, str(ROOT))
    from docgen.console.shell import copy_worktree

    copy_worktree(ROOT, dest)
    # `python -m docgen` in the copy imports the copy's docgen: compiled once here, as an installed package is,
    # not from source again in each of the sweep's processes (PYTHONDONTWRITEBYTECODE forbids their cache)
    compileall.compile_dir(dest / "docgen", quiet=1)
    dockerfile = dest / "Dockerfile.nmp-rl-base"
    dockerfile.write_text(dockerfile.read_text().replace(MEGATRON_FILTER, "", 1))
    everything = [str(p.relative_to(dest)) for p in dest.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and ".git" not in p.parts]
    before = _files(dest, everything)
    t0 = time.perf_counter()
    done = _docgen("write", cwd=dest)
    _, err = done.communicate()
    took = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"write failed in the scratch copy: {err}")
    after = _files(dest, everything)
    changed = sorted(name for name in everything if before[name] != after[name])
    if len(changed) < 3:
        raise SystemExit(f"write changed only {changed}; the sweep needs a multi-file set")
    return {n: before[n] for n in changed}, {n: after[n] for n in changed}, took


def _restore(root: Path, files: dict[str, bytes | None]) -> None:
    for name, data in files.items():
        path = root / name
        if data is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(data)
    for leftover in root.rglob("*.docgen-tmp"):
        leftover.unlink()


def one_run(root: Path, old: dict, new: dict, delay: float, at_journal: bool = False) -> str:
    """`delay` after the start; or, with `at_journal`, `delay` after the journal appears (polled), which
    puts the kill inside the few milliseconds of renames that a delay from the start seldom hits."""
    _restore(root, old)
    proc = _docgen("write", cwd=root)
    if at_journal:
        journal = root / ".docgen-journal.docgen-tmp"
        while not journal.exists() and proc.poll() is None:
            pass
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    now = _files(root, list(old))
    journal = (root / ".docgen-journal.docgen-tmp").exists()
    if not journal and now == old:
        return "old"
    if not journal and now == new:
        return "new"
    nxt = _docgen("check", cwd=root)
    _, err = nxt.communicate()
    if "recovered an interrupted write" in err and _files(root, list(old)) == new \
            and not (root / ".docgen-journal.docgen-tmp").exists():
        return "recovered"
    return "broken"


def sweep(runs: int, seed: int, where: Path | None = None) -> Counter:
    """`runs` kills: every other one at a random delay from the start, the rest at a random delay of up to
    1 ms after the journal appears."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="docgen-kill-sweep-") as tmp:
        root = Path(where or tmp) / "repo"
        old, new, took = prepare(root)
        counts: Counter = Counter()
        for i in range(runs):
            if i % 2:
                counts[one_run(root, old, new, rng.uniform(0, 0.001), at_journal=True)] += 1
            else:
                counts[one_run(root, old, new, rng.uniform(0.5 * took, 1.1 * took))] += 1
        counts["files_per_set"] = len(old)
        counts["write_ms"] = round(took * 1000)
        return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    counts = sweep(args.runs, args.seed)
    print(json.dumps({"runs": args.runs, **{k: counts[k] for k in ("old", "new", "recovered", "broken")},
                      "files_per_set": counts["files_per_set"], "write_ms": counts["write_ms"]}))
    sys.exit(1 if counts["broken"] else 0)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
