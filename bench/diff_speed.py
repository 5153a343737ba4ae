"""`docgen diff` of two snapshots of the real lock vs a process that only loads both JSON files.

Usage: .venv/bin/python bench/diff_speed.py [--ref ../shared/nemo-rl-ref] [--runs 7]

OLD is the snapshot `docgen snapshot` makes from the NeMo-RL reference; NEW is a copy changed the way a
bump changes it (torch re-versioned everywhere, an actor moved to another module, a package added to the
vllm extra), so the diff has work in every section. Both are written to a temporary folder. Measured as
whole processes (bench/timing.py), round-robin, each output format (and text with `--dockerfile`, which
skips reading the configuration), with `docgen inventory` beside them: the same start-up without the second
snapshot and the comparison. Target: text at most 2x the JSON-only load.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import report, round_robin, summary, wall  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def bumped(data: dict) -> dict:
    """A copy of the snapshot as a bump would leave it (what changed is not important, only that it did)."""
    data = json.loads(json.dumps(data))
    lock = data["lock"]
    for key in [k for k, p in lock["packages"].items() if p["name"] == "torch"]:
        new_key = key.replace("2.11.0", "2.12.0")
        lock["packages"][new_key] = {**lock["packages"].pop(key), "version": "2.12.0+cu130"}
        for members in lock["install_sets"].values():
            if key in members:
                members[members.index(key)] = new_key
    index = next(p["source"] for p in lock["packages"].values() if p["source_kind"] == "registry")   # as recorded
    lock["packages"]["tiny-tokenizer==0.3.1"] = {"name": "tiny-tokenizer", "version": "0.3.1", "editable": False,
                                                 "source": index, "source_kind": "registry",
                                                 "source_built": False}
    lock["install_sets"]["vllm"].append("tiny-tokenizer==0.3.1")
    for actor in data["registry"]["actors"]:
        if actor["actor"].endswith(".MegatronPolicyWorker"):
            actor["actor"] = "nemo_rl.models.policy.megatron.policy_worker.MegatronPolicyWorker"
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", type=Path, default=ROOT.parent / "shared" / "nemo-rl-ref")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    ref = args.ref.resolve()
    docgen = [PY, "-m", "docgen"]
    with tempfile.TemporaryDirectory() as tmp:
        old, new = Path(tmp) / "old.json", Path(tmp) / "new.json"
        wall(docgen + ["snapshot", "--from", str(ref), "--registry-facts", str(ref / "registry.json"),
                       "--root", tmp, "-o", str(old)], runs=1, warmup=0)
        new.write_text(json.dumps(bumped(json.loads(old.read_text())), indent=1, sort_keys=True) + "\n")
        commands = {"load": [PY, "-c", "import json, sys\nfor p in sys.argv[1:]:\n    json.load(open(p))",
                             str(old), str(new)],
                    # the same start-up (arguments, configuration, Dockerfile) with one snapshot and no diff
                    "inventory": docgen + ["inventory", "--root", str(ROOT)]}
        for fmt in ("text", "markdown", "json"):
            commands[fmt] = docgen + ["diff", "--root", str(ROOT), str(old), str(new), "--format", fmt]
        # the same with the Dockerfile named: no configuration to find and parse (shows what that costs)
        named = ["--dockerfile", str(ROOT / "Dockerfile.nmp-rl-base")]
        commands["text_explicit_dockerfile"] = commands["text"] + named
        times, cpu = round_robin(commands, args.runs)   # interleaved, with CPU time (bench/timing.py)
        sizes = {"old_bytes": old.stat().st_size, "new_bytes": new.stat().st_size}
    base_wall, base_cpu = statistics.median(times["load"]), statistics.median(cpu["load"])
    result: dict = {**sizes}
    for name in commands:
        result[name] = {"wall": summary(times[name]), "cpu_median_s": statistics.median(cpu[name]),
                        "wall_over_json_load": statistics.median(times[name]) / base_wall,
                        "cpu_over_json_load": statistics.median(cpu[name]) / base_cpu}
    result["targets"] = {"text.wall_over_json_load": 2.0}
    report("diff_speed", result)


if __name__ == "__main__":
    main()
