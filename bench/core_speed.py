"""The readers' start-up budget, measured in one run.

- `docgen snapshot` on the NeMo-RL reference vs a process that only runs `tomllib.load` on the same uv.lock
  (target: at most 2x; the work is parse-bound, the walk must be nearly free);
- `docgen inventory` on the committed snapshot vs a bare `python -c pass` (target: at most 3x).

Usage: .venv/bin/python bench/core_speed.py [--ref ../shared/nemo-rl-ref]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import report, summary, wall  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", type=Path, default=ROOT.parent / "shared" / "nemo-rl-ref")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    ref = args.ref.resolve()
    docgen = [PY, "-m", "docgen"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "snap.json"
        toml = wall([PY, "-c", f"import tomllib; tomllib.load(open({str(ref / 'uv.lock')!r}, 'rb'))"], runs=args.runs)
        snap = wall(docgen + ["snapshot", "--from", str(ref), "--registry-facts", str(ref / "registry.json"),
                              "--root", tmp, "-o", str(out)], runs=args.runs)
    bare = wall([PY, "-c", "pass"], runs=args.runs)
    dockerfile = ROOT / "Dockerfile.nmp-rl-base"
    if not dockerfile.exists():
        dockerfile = ROOT / "tests/fixtures/dockerfiles/eight-filters.Dockerfile"
    inv = wall(docgen + ["inventory", "--dockerfile", str(dockerfile), "--json"], runs=args.runs)
    inv_text = wall(docgen + ["inventory", "--dockerfile", str(dockerfile)], runs=args.runs)
    s_toml, s_snap, s_bare, s_inv, s_inv_text = map(summary, (toml, snap, bare, inv, inv_text))
    report("core_speed", {
        "tomllib_load_uv_lock": s_toml,
        "docgen_snapshot": s_snap,
        "snapshot_over_tomllib": s_snap["median_s"] / s_toml["median_s"],
        "python_c_pass": s_bare,
        "docgen_inventory_json": s_inv,
        "docgen_inventory_text": s_inv_text,
        "inventory_json_over_bare_python": s_inv["median_s"] / s_bare["median_s"],
        "inventory_text_over_bare_python": s_inv_text["median_s"] / s_bare["median_s"],
        "targets": {"snapshot_over_tomllib": 2.0, "inventory_over_bare_python": 3.0},
    })


if __name__ == "__main__":
    main()
