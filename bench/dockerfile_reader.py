"""How the Dockerfile reader scales, and what `docgen inventory` costs on a production-style Dockerfile.

    .venv/bin/python bench/dockerfile_reader.py [--runs 7]

1. Huge inputs, parsed in process (median seconds): a 1 MB and a 10 MB ARG value, a 10 MB quoted value
   full of escapes, a 2 MB line of backticks (default escape, `# escape=`` and inside a heredoc), 100k
   filter lines, a 200k-word verification loop. Each is also given as a ratio to one linear regex pass
   over the same text (`re.findall(r"\\S+", text)`), measured in the same run: a reader that stays linear
   keeps that ratio flat as the input grows. Target: each under 2 s.
2. `docgen inventory` on the largest fixture of tests/fixtures/dockerfiles/corpus/ as a whole process,
   against `python -c pass` (bench/timing.py: one bytecode cache, medians). Target: at most 3x.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import report, summary, wall  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from docgen.inputs.dockerfile import parse_dockerfile  # noqa: E402

TAIL = "RUN python tools/prefetch_venvs.py a.B\n"
TICKS = "`" * 2_000_000
INPUTS = {
    "arg-1mb": lambda: "FROM d\nARG X=" + "a" * 1_000_000 + "\n" + TAIL,
    "arg-10mb": lambda: "FROM d\nARG X=" + "a" * 10_000_000 + "\n" + TAIL,
    "arg-10mb-quoted-escapes": lambda: 'FROM d\nARG X="' + 'a b\\" ' * 2_000_000 + '"\n' + TAIL,
    "backticks-2mb": lambda: "FROM d\nRUN echo " + TICKS + "\n" + TAIL,
    "backticks-2mb-escape-directive": lambda: "# escape=`\nFROM d\nRUN echo " + TICKS + "\n" + TAIL,
    "backticks-2mb-in-heredoc": lambda: "FROM d\nRUN <<EOF\necho " + TICKS + " # c\nEOF\n" + TAIL,
    "filters-100k-lines": lambda: "FROM d\nRUN python tools/prefetch_venvs.py \\\n"
                                  + "".join(f"  f{i}.A \\\n" for i in range(100_000)) + "  last.B\n",
    "verify-loop-200k-words": lambda: "FROM d\n" + TAIL + "RUN for actor in "
                                      + " ".join(f"a{i}.B" for i in range(200_000)) + "; do true; done\n",
}


def _median(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def largest_fixture() -> Path:
    corpus = REPO / "tests" / "fixtures" / "dockerfiles" / "corpus"
    return max(corpus.rglob("*Dockerfile*"), key=lambda p: p.stat().st_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    huge = {}
    for name, make in INPUTS.items():
        text = make()
        parse = _median(lambda: parse_dockerfile(text, name), max(1, args.runs // 2))
        scan = _median(lambda: re.findall(r"\S+", text), max(1, args.runs // 2))
        huge[name] = {"bytes": len(text), "parse_s": round(parse, 3), "linear_scan_s": round(scan, 4),
                      "ratio_to_scan": round(parse / scan, 1) if scan else None, "under_2s": parse < 2}

    fixture = largest_fixture()
    bare = wall([sys.executable, "-c", "pass"], runs=args.runs)
    inventory = wall([sys.executable, "-m", "docgen", "inventory", "--dockerfile", str(fixture),
                      "--snapshot", str(REPO / "snapshot" / "nemo-rl.json")], runs=args.runs, cwd=REPO)
    ratio = statistics.median(inventory) / statistics.median(bare)
    report("dockerfile_reader", {
        "huge_inputs": huge,
        "inventory": {"fixture": str(fixture.relative_to(REPO)), "bytes": fixture.stat().st_size,
                      "python_c_pass": summary(bare), "docgen_inventory": summary(inventory),
                      "ratio": round(ratio, 2), "target": "<= 3x", "ok": ratio <= 3},
    })


if __name__ == "__main__":
    main()
