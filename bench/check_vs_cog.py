"""The start-up budget: `docgen check` against `cog --check` on a README of 14 generated blocks, and the
whole check of this repository against the same `cog --check`.

    .venv/bin/python bench/check_vs_cog.py [--runs 21] [--blocks 14] [--venv DIR] [--keep] [--base REF]

A user never waits on docgen when its check costs about what the simplest tool of its kind costs. cog
(the `cogapp` package) runs Python snippets written in a file and, with `--check`, only reports whether
their output is current. The bench sets up, in a scratch folder:

- a venv with a plain `pip install` of this tree (not editable: what pre-commit and a user get) and of
  `cogapp`, both by name through pip's configured index (`--venv DIR` reuses one made before);
- a copy of this repository whose README holds the first `--blocks` generated blocks of its pages (in the
  order the configuration lists them), the only page docgen owns there (`pages = ["README.md"]`, no
  generator required), written once by `docgen write`;
- a cog README with as many blocks, each a snippet that loads its rows from a JSON file and prints them:
  the same lines the matching docgen block holds, so both tools check the same amount of text;
- a second, unchanged copy of this repository, whose `docgen check` is the whole check a contributor runs.

Then it runs `docgen check` on the 14-block copy, `cog --check README.md` and `docgen check` on the whole
copy, each as a whole process in its own folder, alternating run by run (a busy neighbour slows all alike),
and prints the medians (wall and CPU), the minimums and each docgen check's ratio to cog. Budgets (wall
medians): the 14-block check at most 1.5x cog, the whole check at most 2x.

`--base REF` also installs the docgen of another commit (its files as git holds them at REF) into a venv of
its own and runs its two checks on REF's own two copies (its pages and facts record, the ones its check
agrees with), in the same rounds: the ratios before and after a change, measured side by side.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import bench_env, report  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
BUDGET = 1.5
BUDGET_WHOLE = 2.0
_BLOCK = re.compile(r"^<!-- docgen:begin .*?^<!-- docgen:end [^\n]*-->$", re.M | re.S)


def _run(cmd: list[str], cwd: Path | None = None, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=bench_env(), **kwargs)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} (in {cwd}) exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done


def make_venv(where: Path, source: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    python = where / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", str(source), "cogapp"])
    return where


def copy_tree(into: Path) -> Path:
    """The files git tracks in this repository (what a clone holds), plus a git folder for the root."""
    files = _run(["git", "-C", str(REPO), "ls-files", "-z"]).stdout.split("\0")
    for rel in filter(None, files):
        target = into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, target)
    _run(["git", "init", "-q", str(into)])
    return into


def export_ref(ref: str, into: Path) -> Path:
    """The files of commit `ref` (for `--base`), as `git archive` gives them, plus a git folder for the root."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", ref], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    _run(["git", "init", "-q", str(into)])
    return into


def harvest_blocks(tree: Path, count: int) -> list[str]:
    """The first `count` generated blocks of the pages (README first, then docs/ in name order)."""
    pages = [tree / "README.md", *sorted((tree / "docs").rglob("*.md"))]
    blocks = [m.group(0) for page in pages for m in _BLOCK.finditer(page.read_text())]
    if len(blocks) < count:
        raise SystemExit(f"the pages hold only {len(blocks)} generated blocks, fewer than {count}")
    return blocks[:count]


def docgen_readme(tree: Path, blocks: list[str], docgen: Path) -> None:
    """The copy's README becomes the blocks alone, and the only page docgen owns there."""
    pyproject = tree / "pyproject.toml"
    text, n = re.subn(r'^pages = \[.*\]$', 'pages = ["README.md"]\nrequired = []', pyproject.read_text(), flags=re.M)
    if n != 1:
        raise SystemExit("pyproject.toml: no `pages = [...]` line under [tool.docgen] to replace")
    pyproject.write_text(text)
    (tree / "README.md").write_text("# Generated blocks\n\n" + "".join(
        f"## Block {i}\n\n{block}\n\n" for i, block in enumerate(blocks, 1)))
    _run([str(docgen), "write"], cwd=tree)
    _run([str(docgen), "check"], cwd=tree)


def cog_readme(folder: Path, blocks: list[str], cog: Path) -> None:
    """As many cog blocks, each printing the body lines of one docgen block from a JSON file."""
    folder.mkdir()
    rows = [block.split("\n")[1:-1] for block in blocks]
    (folder / "tables.json").write_text(json.dumps(rows, indent=1) + "\n")
    parts = ["# Generated blocks\n\n"]
    for i in range(len(rows)):
        parts.append(f"## Block {i + 1}\n\n<!-- [[[cog\nimport json\n"
                     f"for row in json.load(open('tables.json'))[{i}]:\n    cog.outl(row)\n]]] -->\n"
                     "<!-- [[[end]]] -->\n\n")
    (folder / "README.md").write_text("".join(parts))
    _run([str(cog), "-r", "README.md"], cwd=folder)
    _run([str(cog), "--check", "README.md"], cwd=folder)


def once(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run. CPU time moves much less than wall time when
    other processes compete for the cores, so both are kept."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=bench_env())
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode} in {cwd}")
    return elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--blocks", type=int, default=14)
    parser.add_argument("--venv", type=Path, default=None,
                        help="a venv this bench made before (with --keep): reused, not rebuilt")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder and say where it is")
    parser.add_argument("--base", metavar="REF", default=None,
                        help="also time the docgen of commit REF on the same copies, in the same rounds")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="docgen-vs-cog-"))
    try:
        tree = copy_tree(scratch / "repo")
        env_dir = args.venv or make_venv(scratch / "venv", tree)
        docgen, cog = env_dir / "bin" / "docgen", env_dir / "bin" / "cog"
        blocks = harvest_blocks(tree, args.blocks)
        cog_readme(scratch / "cog", blocks, cog)
        docgen_readme(tree, blocks, docgen)
        whole = copy_tree(scratch / "whole")
        sides = {"docgen check": ([str(docgen), "check"], tree),
                 "cog --check": ([str(cog), "--check", "README.md"], scratch / "cog"),
                 "docgen check (whole repository)": ([str(docgen), "check"], whole)}
        if args.base:   # on REF's own trees: its pages and facts record are the ones its check agrees with
            base_whole = export_ref(args.base, scratch / "base")
            base_docgen = make_venv(scratch / "base-venv", base_whole) / "bin" / "docgen"
            base_tree = export_ref(args.base, scratch / "base-blocks")
            docgen_readme(base_tree, harvest_blocks(base_tree, args.blocks), base_docgen)
            sides[f"docgen check at {args.base}"] = ([str(base_docgen), "check"], base_tree)
            sides[f"docgen check (whole repository) at {args.base}"] = ([str(base_docgen), "check"], base_whole)
        for cmd, cwd in sides.values():   # warm the bytecode cache and the file cache
            once(cmd, cwd)
        times: dict[str, list[float]] = {name: [] for name in sides}
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, (cmd, cwd) in sides.items():
                took, used = once(cmd, cwd)
                times[name].append(took)
                cpu[name].append(used)
        med = {name: statistics.median(t) for name, t in times.items()}
        med_cpu = {name: statistics.median(t) for name, t in cpu.items()}
        low = {name: min(t) for name, t in times.items()}
        ratio_median = med["docgen check"] / med["cog --check"]
        ratio_whole = med["docgen check (whole repository)"] / med["cog --check"]
        base_ratios = {} if not args.base else {
            "base": args.base,
            "base_ratio_median": round(med[f"docgen check at {args.base}"] / med["cog --check"], 2),
            "base_ratio_cpu_median": round(med_cpu[f"docgen check at {args.base}"] / med_cpu["cog --check"], 2),
            "base_whole_ratio_median": round(med[f"docgen check (whole repository) at {args.base}"]
                                             / med["cog --check"], 2),
            "base_whole_ratio_cpu_median": round(med_cpu[f"docgen check (whole repository) at {args.base}"]
                                                 / med_cpu["cog --check"], 2),
        }
        report("check_vs_cog", {
            "blocks": args.blocks,
            "runs": args.runs,
            "median_ms": {name: round(s * 1e3, 1) for name, s in med.items()},
            "min_ms": {name: round(s * 1e3, 1) for name, s in low.items()},
            "cpu_median_ms": {name: round(s * 1e3, 1) for name, s in med_cpu.items()},
            "ratio_median": round(ratio_median, 2),
            "ratio_min": round(low["docgen check"] / low["cog --check"], 2),
            "ratio_cpu_median": round(med_cpu["docgen check"] / med_cpu["cog --check"], 2),
            "budget": BUDGET,
            "within_budget": ratio_median <= BUDGET,
            "whole_ratio_median": round(ratio_whole, 2),
            "whole_ratio_min": round(low["docgen check (whole repository)"] / low["cog --check"], 2),
            "whole_ratio_cpu_median": round(med_cpu["docgen check (whole repository)"] / med_cpu["cog --check"], 2),
            "whole_budget": BUDGET_WHOLE,
            "whole_within_budget": ratio_whole <= BUDGET_WHOLE,
            **base_ratios,
        })
    finally:
        if args.keep:
            print(f"scratch kept: {scratch} (venv: {env_dir if 'env_dir' in locals() else 'not made'})",
                  file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
