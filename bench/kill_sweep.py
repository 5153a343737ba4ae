"""SIGKILL `docgen write` at random moments and judge each file it leaves.

    .venv/bin/python bench/kill_sweep.py [--runs 200] [--seed 1]

A scratch copy of this repository has the Megatron filter removed, so that `write` rewrites several pages and
the facts record. Each run puts the old files back, starts `python -m docgen write`, kills it with SIGKILL
after a random delay (every other run drawn over the second half of a measured write and a little past its
end; the others up to 1 ms after its first temporary file appears, inside the staging and the renames), and
then looks at the files write would change:

  old        every file as before;
  new        every file as write leaves it;
  mixed      each file wholly old or wholly new, some of each (the writer replaces files one by one);
  broken     a file that is neither, or, after a kill that left a mixed set or temporary files: a
             `docgen check` that changed a byte, or a next `docgen write` that did not make the set wholly
             new and remove every temporary file. Must be 0.

Prints the counts (and how many runs left temporary files) as one JSON object; exits 1 when a run was broken.
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


def _temporary(folders: list[Path]) -> list[Path]:
    return [f / name for f in folders for name in os.listdir(f) if name.endswith(".docgen-tmp")]


def _state(root: Path, names: list[str], folders: list[Path]) -> dict:
    """The bytes of every file write changes and of every temporary file beside them."""
    return {**_files(root, names), **{str(p): p.read_bytes() for p in _temporary(folders)}}


def one_run(root: Path, old: dict, new: dict, delay: float, at_first_tmp: bool = False) -> tuple[str, bool]:
    """`delay` after the start; or, with `at_first_tmp`, `delay` after the writer's first temporary file
    appears (polled), which puts the kill inside the few milliseconds of staging and renames that a delay from
    the start seldom hits. Returns the outcome and whether temporary files were left."""
    names = list(old)
    folders = sorted({(root / name).parent for name in names})
    _restore(root, old)
    proc = _docgen("write", cwd=root)
    if at_first_tmp:
        while not _temporary(folders) and proc.poll() is None:
            pass
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    now = _files(root, names)
    left = bool(_temporary(folders))
    if any(now[n] not in (old[n], new[n]) for n in names):
        return "broken", left
    outcome = "old" if now == old else "new" if now == new else "mixed"
    if outcome == "mixed" or left:
        before = _state(root, names, folders)
        _docgen("check", cwd=root).communicate()
        if _state(root, names, folders) != before:
            return "broken", left
        again = _docgen("write", cwd=root)
        again.communicate()
        if again.returncode != 0 or _files(root, names) != new or _temporary(folders):
            return "broken", left
    return outcome, left


def sweep(runs: int, seed: int, where: Path | None = None) -> Counter:
    """`runs` kills: every other one at a random delay from the start, the rest at a random delay of up to
    1 ms after the first temporary file appears."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="docgen-kill-sweep-") as tmp:
        root = Path(where or tmp) / "repo"
        old, new, took = prepare(root)
        counts: Counter = Counter()
        for i in range(runs):
            if i % 2:
                outcome, left = one_run(root, old, new, rng.uniform(0, 0.001), at_first_tmp=True)
            else:
                outcome, left = one_run(root, old, new, rng.uniform(0.5 * took, 1.1 * took))
            counts[outcome] += 1
            counts["left_temporary_files"] += left
        counts["files_per_set"] = len(old)
        counts["write_ms"] = round(took * 1000)
        return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    counts = sweep(args.runs, args.seed)
    print(json.dumps({"runs": args.runs, **{k: counts[k] for k in ("old", "new", "mixed", "broken")},
                      **{k: counts[k] for k in ("left_temporary_files", "files_per_set", "write_ms")}}))
    sys.exit(1 if counts["broken"] else 0)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
