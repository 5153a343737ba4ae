"""Run a set of the issue-27 cases against the current docgen, each in its own scratch copy, in-process.

    .venv/bin/python bench/generalise.py --set dev --kind mutations
    .venv/bin/python bench/generalise.py --set heldout --kind planted

Mutations: apply, `check`, `write`, `check`; then search everything a reader looks at for each `old` string.
  slip       the last `check` exits 0 while an `old` string is still there
  caught     the first `check` failed, and after `write` the old values are gone or `check` still fails
  loud       `write` or `check` exits 2 with a message naming a file
  unflagged  the first `check` passed (a reader of the unwritten pages sees the old value), and no slip after
  crash      docgen raised, or exited 2 without naming a file
  vacuous    an `old` string is not in the unmutated pages: the case tests nothing (fix the case)
Planted: plant, `check --verbose`; whether it fails with a finding at the planted file:line, and the claims
coverage `check` reports before and after planting.

The held-out sets are run once before the design and once after it; nobody fits the design to them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.mutations_corpus import baseline_coverage, load, run_mutation, run_planted  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="which", choices=("dev", "heldout", "wave2_dev", "wave2_heldout",
                                                         "wave3_dev", "wave3_heldout", "wave4_dev", "wave4_heldout",
                                                         "wave5_dev", "wave5_heldout", "wave6_dev", "wave6_heldout",
                                                         "wave7_dev", "wave7_heldout"),
                        required=True)
    parser.add_argument("--kind", choices=("mutations", "planted"), required=True)
    args = parser.parse_args(argv)
    cases = load(args.kind, args.which)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="generalise-") as tmp:
        scratch = Path(tmp)
        if args.kind == "mutations":
            results = [run_mutation(c, scratch) for c in cases]
            for r in results:
                codes = "/".join("-" if c is None else str(c) for c in (r.first_check, r.write, r.last_check))
                left = f" left: {', '.join(repr(s) for s in r.left)}" if r.left else ""
                note = f" ({r.note})" if r.note else ""
                print(f"{r.outcome:9} {r.id}  check/write/check={codes}{left}{note}")
            tally = {k: sum(r.outcome == k for r in results)
                     for k in ("slip", "caught", "loud", "unflagged", "crash", "vacuous")}
            first_failed = sum(r.first_check not in (None, 0) for r in results)
            print(f"total {args.which} mutations: {len(results)}: " + ", ".join(f"{v} {k}" for k, v in tally.items())
                  + f"; first check failed in {first_failed}")
        else:
            before = baseline_coverage(scratch)
            results = [run_planted(p, scratch) for p in cases]
            for r in results:
                cov = "n/a" if r.coverage is None else f"{r.coverage:.1f}%"
                note = f" ({r.note})" if r.note else ""
                print(f"{'at-line' if r.at_line else 'missed':8} {r.id}  check={r.check} coverage={cov} "
                      f"rules={','.join(sorted(set(r.rules))) or '-'}{note}")
            covs = [r.coverage for r in results if r.coverage is not None]
            moved = sum(1 for c in covs if before is not None and c != before)
            judged = sum(bool(set(r.rules) - {"unrecorded-sentence"}) for r in results)
            print(f"judged false at their line (a rule other than unrecorded-sentence): {judged}")
            print(f"total {args.which} planted: {len(results)}: {sum(r.at_line for r in results)} fail at their line, "
                  f"{sum(r.check == 1 for r in results)} fail check at all; coverage before "
                  f"{'n/a' if before is None else f'{before:.1f}%'}, after: "
                  f"{'n/a' if not covs else f'{min(covs):.1f}%..{max(covs):.1f}%'}, moved in {moved}")
    print(f"({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
