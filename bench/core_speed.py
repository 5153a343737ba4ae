"""The readers' start-up budget, measured in one run.

- `docgen snapshot` on the NeMo-RL reference vs a process that only runs `tomllib.load` on the same uv.lock
  (target: at most 2x; the work is parse-bound, the walk must be nearly free);
- `docgen inventory` on the committed snapshot vs a bare `python -c pass` (target: at most 3x).

Usage: .venv/bin/python bench/core_speed.py [--ref ../shared/nemo-rl-ref] [--runs 11]

Each is a whole process (bench/timing.py), run round-robin with its baseline.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import report, round_robin, summary  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", type=Path, default=ROOT.parent / "shared" / "nemo-rl-ref")
    ap.add_argument("--runs", type=int, default=11)
    args = ap.parse_args()
    ref = args.ref.resolve()
    docgen = [PY, "-m", "docgen"]
    dockerfile = ROOT / "Dockerfile.nmp-rl-base"
    if not dockerfile.exists():
        dockerfile = ROOT / "tests/fixtures/dockerfiles/eight-filters.Dockerfile"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "snap.json"
        commands = {
            "tomllib_load_uv_lock": [PY, "-c", f"import tomllib; tomllib.load(open({str(ref / 'uv.lock')!r}, 'rb'))"],
            "docgen_snapshot": docgen + ["snapshot", "--from", str(ref), "--registry-facts",
                                        str(ref / "registry.json"), "--root", tmp, "-o", str(out)],
            "python_c_pass": [PY, "-c", "pass"],
            "docgen_inventory_json": docgen + ["inventory", "--root", str(ROOT), "--dockerfile", str(dockerfile), "--json"],
            "docgen_inventory_text": docgen + ["inventory", "--root", str(ROOT), "--dockerfile", str(dockerfile)],
        }
        times, cpu = round_robin(commands, args.runs)   # interleaved, with CPU time (bench/timing.py)
    sums = {name: summary(t) for name, t in times.items()}
    med = {name: s["median_s"] for name, s in sums.items()}
    med_cpu = {name: statistics.median(c) for name, c in cpu.items()}
    report("core_speed", {
        **sums,
        "cpu_median_s": med_cpu,
        "snapshot_over_tomllib_cpu": med_cpu["docgen_snapshot"] / med_cpu["tomllib_load_uv_lock"],
        "snapshot_over_tomllib": med["docgen_snapshot"] / med["tomllib_load_uv_lock"],
        "inventory_json_over_bare_python": med["docgen_inventory_json"] / med["python_c_pass"],
        "inventory_text_over_bare_python": med["docgen_inventory_text"] / med["python_c_pass"],
        "targets": {"snapshot_over_tomllib": 2.0, "inventory_over_bare_python": 3.0},
    })


if __name__ == "__main__":
    main()
