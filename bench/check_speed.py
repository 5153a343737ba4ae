"""How long `docgen check` takes as a whole process, and how it grows with the number of pages.

    .venv/bin/python bench/check_speed.py [--root DIR] [--runs 10] [--plain-venv]

Prints the median of N runs of: `python -c pass` (the interpreter's own start, for scale), `docgen check` on
the repository, the same two without a bytecode cache, and `docgen check` on a temporary copy with ten times
as many Markdown pages (each docs page copied nine more times), from which it derives the cost of one more
page. It sets no target: the budget (docgen check against `cog --check` on a README of 14 blocks) is
bench/check_vs_cog.py's.

All runs but the uncached pair share one bytecode cache (bench/timing.py), as a developer's or CI's Python
has one; with this machine's PYTHONDONTWRITEBYTECODE every run would otherwise recompile docgen.

With `--plain-venv` it also times both in a new venv holding a plain `pip install` of this checkout (as
pre-commit installs the hooks), where the interpreter starts faster: the development venv's editable
install loads pathlib, re and urllib at every start, docgen or not.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import bench_env, wall  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
COPIES = ("Dockerfile.nmp-rl-base", "README.md", "snapshot", "docs")


def median_seconds(cmd: list[str], runs: int, *, bytecode_cache: bool = True) -> float:
    """Median wall time of `cmd` as a whole process (it must exit 0; the warm-up run is not counted).
    Without a bytecode cache every process compiles its modules from source, as on this machine by default."""
    env = bench_env()
    if not bytecode_cache:
        env.pop("PYTHONPYCACHEPREFIX", None)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return statistics.median(wall(cmd, runs=runs, env=env))


def tenfold_copy(root: Path, into: Path) -> int:
    for rel in COPIES:
        src = root / rel
        if src.is_dir():
            shutil.copytree(src, into / rel)
        elif src.exists():
            shutil.copy2(src, into / rel)
    pages = [p for p in (into / "docs").rglob("*.md")]
    for n in range(1, 10):
        for page in pages:
            target = into / "docs" / f"copy{n}" / page.relative_to(into / "docs")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(page, target)
    return len(list((into / "docs").rglob("*.md"))) + (1 if (into / "README.md").exists() else 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--plain-venv", action="store_true",
                        help="also measure in a venv with a plain (non-editable) pip install of this checkout")
    args = parser.parse_args()
    root = args.root.resolve()
    check = [sys.executable, "-m", "docgen", "check", "--root"]

    pages = 1 + len(list((root / "docs").rglob("*.md")))
    with tempfile.TemporaryDirectory() as tmp:
        bare = median_seconds([sys.executable, "-c", "pass"], args.runs)
        repo = median_seconds(check + [str(root)], args.runs)
        bare_cold = median_seconds([sys.executable, "-c", "pass"], args.runs, bytecode_cache=False)
        repo_cold = median_seconds(check + [str(root)], args.runs, bytecode_cache=False)
        big_pages = tenfold_copy(root, Path(tmp))
        big = median_seconds(check + [tmp], args.runs)
    print(f"python -c pass                  {bare * 1000:7.1f} ms")
    print(f"docgen check, {pages:4d} pages       {repo * 1000:7.1f} ms  ({repo / bare:.1f}x bare start)")
    print(f"without a bytecode cache: python -c pass {bare_cold * 1000:.1f} ms, docgen check {repo_cold * 1000:.1f} ms "
          f"({repo_cold / bare_cold:.1f}x)")
    print(f"docgen check, {big_pages:4d} pages       {big * 1000:7.1f} ms  ({big / bare:.1f}x bare start, "
          f"{(big - repo) / max(big_pages - pages, 1) * 1000:.2f} ms per extra page)")
    if args.plain_venv:
        with tempfile.TemporaryDirectory() as venv:
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            python = str(Path(venv) / "bin" / "python")
            subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(REPO)],
                           check=True, cwd=venv)
            plain_bare = median_seconds([python, "-c", "pass"], args.runs)
            plain = median_seconds([python, "-m", "docgen", "check", "--root", str(root)], args.runs)
        print(f"plain pip install: python -c pass {plain_bare * 1000:.1f} ms, docgen check {plain * 1000:.1f} ms "
              f"({plain / plain_bare:.1f}x)")


if __name__ == "__main__":
    main()
