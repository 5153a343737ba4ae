"""Benchmark the hermetic nmp-rl-base build: cold, no-op-ish rebuilds, an RL source-only change, the
prefetch's rebuilds and the published stage's layer overhead.

    .venv/bin/python bench/build_image.py [--tag nmp-rl-base:hermetic] [--dockerfile PATH]

Needs the engine and the local base images (scripts/build-image once). `--tag` names the image built
(and `<tag>-builder` the builder stage, removed again); `--dockerfile` measures another Dockerfile
(e.g. an older revision) on the same stand-in. Writes bench/results/build_image-<UTC time>.json and
prints a summary.
"""

from __future__ import annotations

import argparse
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
BUILT = re.compile(r"^#(\d+) [\d.]+ \s*Built (\S+) @ ")
TRACE = re.compile(r"^#(\d+) [\d.]+ \+ (.*)$")
STEP = re.compile(r"^#(\d+) \[([^\]]+)\] (.*)$")
STATUS = re.compile(r"^#(\d+) (CACHED|DONE [\d.]+s|ERROR.*)$")


def build(standin: Path, *extra: str, tag: str = TAG, dockerfile: Path | None = None, target: str = "") -> dict:
    """One `bake hermetic` with plain progress: wall time and which Dockerfile steps ran or were cached."""
    env = dict(os.environ, STANDIN_DIR=str(standin), CACERT=CACERT)
    sets = ["--set", f"hermetic.tags={tag}"]
    if dockerfile:
        sets += ["--set", f"hermetic.dockerfile={dockerfile}", f"--allow=fs.read={dockerfile.parent}"]
    if target:
        sets += ["--set", f"hermetic.target={target}"]
    t0 = time.monotonic()
    proc = subprocess.run([DOCKER, "buildx", "bake", f"--allow=fs.read={CACERT}", f"--allow=fs.read={standin}", "--progress=plain",
                           *sets, "hermetic", *extra], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        sys.exit(f"build failed:\n{proc.stderr[-4000:]}")
    names, status = {}, {}
    built, traced = {}, {}
    for line in proc.stderr.splitlines():
        if m := STEP.match(line):
            label, instr = m.group(2), m.group(3)
            # internal loads, context transfers and FROM lines are not Dockerfile steps that can rerun
            if not label.startswith(("internal", "context")) and not instr.startswith("FROM"):
                names[m.group(1)] = f"[{label}] {instr.splitlines()[0][:90]}"
        elif m := STATUS.match(line):
            status[m.group(1)] = m.group(2)
        elif m := BUILT.match(line):
            built.setdefault(m.group(1), set()).add(m.group(2))
        elif m := TRACE.match(line):
            traced.setdefault(m.group(1), []).append(m.group(2))
    cached = sorted(names[n] for n in names if status.get(n) == "CACHED")
    ran = sorted(names[n] for n in names if status.get(n, "").startswith("DONE"))

    def built_by(command: str) -> set[str]:
        return set().union(*(built.get(s, set()) for s, cmds in traced.items() if any(command in c for c in cmds)))

    warm, prefetch = built_by("uv sync"), built_by("nemo_rl/utils/prefetch_venvs.py")
    # the warm-up sync RUN, known by its shell trace (only when it ran: a cached step prints nothing)
    warmup = next((names[s] for s, cmds in traced.items() if s in names and any(c.startswith("uv sync") for c in cmds)), None)
    return {"wall_s": round(wall, 2), "steps": len(names), "cached": len(cached), "ran": len(ran), "ran_steps": ran,
            "warmup_step": warmup, "warmup_built": len(warm), "prefetch_built": len(prefetch),
            "prefetch_rebuilt": sorted(warm & prefetch)}


def layer_overhead(tag: str, builder_tag: str) -> dict:
    """(published image - builder stage) against the size of /opt in the builder stage."""
    final, builder = image_size(tag), image_size(builder_tag)
    du = subprocess.run([DOCKER, "run", "--rm", "--network", "none", "--entrypoint", "du", builder_tag, "-sb", "/opt"],
                        capture_output=True, text=True, check=True).stdout
    opt = int(du.split()[0])
    return {"final_bytes": final, "builder_bytes": builder, "opt_bytes": opt,
            "added_bytes": final - builder, "added_over_opt": round((final - builder) / opt, 4)}


def image_size(tag: str) -> int:
    out = subprocess.run([DOCKER, "image", "inspect", "-f", "{{.Size}}", tag], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tag", default=TAG, help=f"image tag to build (default {TAG})")
    ap.add_argument("--dockerfile", type=Path, help="measure this Dockerfile instead of the checkout's")
    args = ap.parse_args()
    tag, dockerfile = args.tag, args.dockerfile.resolve() if args.dockerfile else None
    standin = ROOT / "build" / "standin"
    if not (standin / "uv.lock").is_file():
        sys.exit("no build/standin; run scripts/build-image first")
    results: dict = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "tag": tag,
                     "dockerfile": str(dockerfile or "Dockerfile.nmp-rl-base"),
                     "engine": subprocess.run([DOCKER, "version", "-f", "{{.Server.Version}}"],
                                              capture_output=True, text=True).stdout.strip()}
    run = lambda where, *extra: build(where, *extra, tag=tag, dockerfile=dockerfile)  # noqa: E731

    # `--no-cache` is safe here: the Dockerfile uses no cache mounts (the uv cache lives in the image).
    results["cold"] = run(standin, "--no-cache")
    results["image_size_mb"] = round(image_size(tag) / 1e6, 1)
    builder_tag = f"{tag}-builder"
    build(standin, tag=builder_tag, dockerfile=dockerfile, target="builder")
    try:
        results["layer_overhead"] = layer_overhead(tag, builder_tag)
    finally:
        subprocess.run([DOCKER, "image", "rm", builder_tag], capture_output=True)
    results["noop"] = run(standin)

    probe = ROOT / "docs" / "bench-probe-README.md"
    probe.parent.mkdir(exist_ok=True)
    try:
        probe.write_text(f"touched at {time.time()}\n")
        results["docs_touch"] = run(standin)
    finally:
        probe.unlink(missing_ok=True)
    results["docs_touch"]["ratio_to_cold"] = round(results["docs_touch"]["wall_s"] / results["cold"]["wall_s"], 3)

    # RL source-only change: a new module in the stand-in's nemo_rl package, in a copy of the workspace.
    with tempfile.TemporaryDirectory(prefix="bench-standin-") as tmp:
        changed = Path(tmp) / "rl"
        shutil.copytree(standin, changed, symlinks=True)
        (changed / "nemo_rl" / "utils" / "bench_probe.py").write_text(f"STAMP = {time.time()!r}\n")
        results["rl_source_change"] = run(changed)
    ran = results["rl_source_change"]["ran_steps"]
    warmup = results["cold"]["warmup_step"]
    results["rl_source_change"]["warmup_step"] = warmup
    results["rl_source_change"]["warmup_sync_cached"] = warmup not in ran
    results["rl_source_change"]["ratio_to_cold"] = round(
        results["rl_source_change"]["wall_s"] / results["cold"]["wall_s"], 3)
    run(standin)  # leave the tag pointing at the unmodified stand-in's image

    out_dir = ROOT / "bench" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = results["when"].replace(":", "").replace("-", "").replace("+0000", "Z")
    path = out_dir / f"build_image-{stamp}.json"
    path.write_text(json.dumps(results, indent=1) + "\n")

    c, d, r = results["cold"], results["docs_touch"], results["rl_source_change"]
    print(f"engine {results['engine']}; results in {path.relative_to(ROOT)}")
    print(f"cold build (--no-cache):   {c['wall_s']:6.2f} s, {c['ran']}/{c['steps']} steps run")
    print(f"image size:                {results['image_size_mb']} MB")
    lo = results["layer_overhead"]
    print(f"published - builder:       {lo['added_bytes']} bytes = {lo['added_over_opt']:.4f} of /opt ({lo['opt_bytes']} bytes)")
    print(f"prefetch rebuilds:         {len(c['prefetch_rebuilt'])} of the {c['warmup_built']} packages the warm-up built "
          f"({c['prefetch_built']} built in all)")
    print(f"no change:                 {results['noop']['wall_s']:6.2f} s, {results['noop']['ran']} steps run")
    print(f"docs/ touched:             {d['wall_s']:6.2f} s, {d['ran']} steps run, ratio to cold {d['ratio_to_cold']}")
    print(f"RL source-only change:     {r['wall_s']:6.2f} s, {r['ran']}/{r['steps']} steps run, "
          f"ratio {r['ratio_to_cold']}, warm-up sync cached: {r['warmup_sync_cached']}")
    for step in r["ran_steps"]:
        print(f"    reran {step}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
