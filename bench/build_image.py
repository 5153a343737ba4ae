"""Benchmark the hermetic nmp-rl-base build: cold, no-op-ish rebuilds, and an RL source-only change.

    .venv/bin/python bench/build_image.py

Needs the engine and the local base images (scripts/build-image once). Writes
bench/results/build_image-<UTC time>.json and prints a summary.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCKER = "/usr/bin/docker"
CACERT = "/etc/ssl/certs/ca-certificates.crt"
TAG = "nmp-rl-base:hermetic"
STEP = re.compile(r"^#(\d+) \[([^\]]+)\] (.*)$")
STATUS = re.compile(r"^#(\d+) (CACHED|DONE [\d.]+s|ERROR.*)$")


def build(standin: Path, *extra: str) -> dict:
    """One `bake hermetic` with plain progress: wall time and which Dockerfile steps ran or were cached."""
    env = dict(os.environ, STANDIN_DIR=str(standin), CACERT=CACERT)
    t0 = time.monotonic()
    proc = subprocess.run([DOCKER, "buildx", "bake", f"--allow=fs.read={CACERT}", f"--allow=fs.read={standin}", "--progress=plain",
                           "hermetic", *extra], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        sys.exit(f"build failed:\n{proc.stderr[-4000:]}")
    names, status = {}, {}
    for line in proc.stderr.splitlines():
        if m := STEP.match(line):
            label, instr = m.group(2), m.group(3)
            # internal loads, context transfers and FROM lines are not Dockerfile steps that can rerun
            if not label.startswith(("internal", "context")) and not instr.startswith("FROM"):
                names[m.group(1)] = f"[{label}] {instr.splitlines()[0][:90]}"
        elif m := STATUS.match(line):
            status[m.group(1)] = m.group(2)
    cached = sorted(names[n] for n in names if status.get(n) == "CACHED")
    ran = sorted(names[n] for n in names if status.get(n, "").startswith("DONE"))
    return {"wall_s": round(wall, 2), "steps": len(names), "cached": len(cached), "ran": len(ran), "ran_steps": ran}


def warmup_step(steps: list[str]) -> str:
    """The warm-up sync RUN: the builder step right before the full-source `COPY ... . ./`."""
    full = next(s for s in steps if s.startswith("[builder ") and s.endswith(" . ./"))
    k, n = re.match(r"\[builder (\d+)/(\d+)\]", full).groups()
    return next(s for s in steps if s.startswith(f"[builder {int(k) - 1}/{n}] RUN"))


def image_size(tag: str) -> int:
    out = subprocess.run([DOCKER, "image", "inspect", "-f", "{{.Size}}", tag], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def main() -> int:
    standin = ROOT / "build" / "standin"
    if not (standin / "uv.lock").is_file():
        sys.exit("no build/standin; run scripts/build-image first")
    results: dict = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     "engine": subprocess.run([DOCKER, "version", "-f", "{{.Server.Version}}"],
                                              capture_output=True, text=True).stdout.strip()}

    # `--no-cache` is safe here: the Dockerfile uses no cache mounts (the uv cache lives in the image).
    results["cold"] = build(standin, "--no-cache")
    results["image_size_mb"] = round(image_size(TAG) / 1e6, 1)
    results["noop"] = build(standin)

    probe = ROOT / "docs" / "bench-probe-README.md"
    probe.parent.mkdir(exist_ok=True)
    try:
        probe.write_text(f"touched at {time.time()}\n")
        results["docs_touch"] = build(standin)
    finally:
        probe.unlink(missing_ok=True)
    results["docs_touch"]["ratio_to_cold"] = round(results["docs_touch"]["wall_s"] / results["cold"]["wall_s"], 3)

    # RL source-only change: a new module in the stand-in's nemo_rl package, in a copy of the workspace.
    with tempfile.TemporaryDirectory(prefix="bench-standin-") as tmp:
        changed = Path(tmp) / "rl"
        shutil.copytree(standin, changed, symlinks=True)
        (changed / "nemo_rl" / "utils" / "bench_probe.py").write_text(f"STAMP = {time.time()!r}\n")
        results["rl_source_change"] = build(changed)
    ran = results["rl_source_change"]["ran_steps"]
    warmup = warmup_step(results["cold"]["ran_steps"])
    results["rl_source_change"]["warmup_step"] = warmup
    results["rl_source_change"]["warmup_sync_cached"] = warmup not in ran
    results["rl_source_change"]["ratio_to_cold"] = round(
        results["rl_source_change"]["wall_s"] / results["cold"]["wall_s"], 3)
    build(standin)  # leave the tag pointing at the unmodified stand-in's image

    out_dir = ROOT / "bench" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = results["when"].replace(":", "").replace("-", "").replace("+0000", "Z")
    path = out_dir / f"build_image-{stamp}.json"
    path.write_text(json.dumps(results, indent=1) + "\n")

    c, d, r = results["cold"], results["docs_touch"], results["rl_source_change"]
    print(f"engine {results['engine']}; results in {path.relative_to(ROOT)}")
    print(f"cold build (--no-cache):   {c['wall_s']:6.2f} s, {c['ran']}/{c['steps']} steps run")
    print(f"image size:                {results['image_size_mb']} MB")
    print(f"no change:                 {results['noop']['wall_s']:6.2f} s, {results['noop']['ran']} steps run")
    print(f"docs/ touched:             {d['wall_s']:6.2f} s, {d['ran']} steps run, ratio to cold {d['ratio_to_cold']}")
    print(f"RL source-only change:     {r['wall_s']:6.2f} s, {r['ran']}/{r['steps']} steps run, "
          f"ratio {r['ratio_to_cold']}, warm-up sync cached: {r['warmup_sync_cached']}")
    for step in r["ran_steps"]:
        print(f"    reran {step}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
