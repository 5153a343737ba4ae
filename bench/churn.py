"""How many lines `docgen write` changes for an input change, and how many of them carry content.

    .venv/bin/python bench/churn.py [--tree DIR] [--change uv|cuda-arch|snapshot|all]

For each change it copies the tree's committed files into a temporary directory, makes the change there
(no Docker involved), runs `docgen write` and then `docgen check` with the copied tree's own docgen, and
compares every file (the pages, README.md and docs/**/*.md, and the facts record) before and after
`write`. A changed line is one the write added (the lines it replaced are not counted again). Each is
content, the end marker of a block whose text changed as well, or the end marker of a block whose text
did not change: a line changed only for a stamp, which a reader never sees. Blocks are found with this
checkout's parser; the copy's own docgen does the writing.

`--tree` measures another checkout, e.g. the previous commit for a before/after figure:

    git worktree add /tmp/before HEAD~1 && .venv/bin/python bench/churn.py --tree /tmp/before

The changes: `uv` raises UV_VERSION's patch number; `cuda-arch` adds an architecture to
TORCH_CUDA_ARCH_LIST; `snapshot` moves one package version in the committed snapshot (its lock entry),
the smallest change `docgen snapshot` could make to it.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = "Dockerfile.nmp-rl-base"
SNAPSHOT = "snapshot/nemo-rl.json"


def copy_tree(tree: Path, into: Path) -> Path:
    """The files git tracks in `tree` (its working copy of them), without the venv or any build output."""
    listed = subprocess.run(["git", "-C", str(tree), "ls-files", "-z"], check=True, capture_output=True).stdout
    for rel in filter(None, listed.decode().split("\0")):
        src = tree / rel
        if src.is_file() and not src.is_symlink():
            dst = into / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
    return into


def bump_uv(root: Path) -> str:
    path = root / DOCKERFILE
    text = path.read_text()
    m = re.search(r"^ARG UV_VERSION=(\d+)\.(\d+)\.(\d+)$", text, re.M)
    if not m:
        raise SystemExit(f"{path}: no ARG UV_VERSION=X.Y.Z line")
    new = f"{m[1]}.{m[2]}.{int(m[3]) + 1}"
    path.write_text(text[: m.start()] + f"ARG UV_VERSION={new}" + text[m.end():])
    return f"UV_VERSION {m[1]}.{m[2]}.{m[3]} -> {new}"


def add_cuda_arch(root: Path) -> str:
    path = root / DOCKERFILE
    text = path.read_text()
    m = re.search(r'^ARG TORCH_CUDA_ARCH_LIST="([^"]*)"$', text, re.M)
    if not m:
        raise SystemExit(f'{path}: no ARG TORCH_CUDA_ARCH_LIST="..." line')
    new = f"{m[1]} 12.0"   # a newer architecture: the floor (the highest minimum of the arch lists) stays
    path.write_text(text[: m.start()] + f'ARG TORCH_CUDA_ARCH_LIST="{new}"' + text[m.end():])
    return f"TORCH_CUDA_ARCH_LIST {m[1]!r} -> {new!r}"


def move_package(root: Path, name: str = "ray") -> str:
    """One package of the snapshot's lock to the next patch version: its entry and every reference to its
    key (install sets and shared builds name packages as `name==version`)."""
    path = root / SNAPSHOT
    data = json.loads(path.read_text())
    packages = data["lock"]["packages"]
    key = next((k for k, p in packages.items() if p["name"] == name and p.get("version")), None)
    if key is None:
        raise SystemExit(f"{path}: no package {name!r} with a version")
    old = packages[key]["version"]
    parts = old.split(".")
    parts[-1] = str(int(parts[-1]) + 1) if parts[-1].isdigit() else parts[-1] + "1"
    version = ".".join(parts)
    new_key = key.replace(f"=={old}", f"=={version}", 1)

    def rename(value):
        if isinstance(value, dict):
            return {new_key if k == key else k: rename(v) for k, v in value.items()}
        if isinstance(value, list):
            return [rename(v) for v in value]
        return new_key if value == key else value
    data = rename(data)
    data["lock"]["packages"][new_key]["version"] = version
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return f"{name} {old} -> {version} in {SNAPSHOT}"


CHANGES = {"uv": bump_uv, "cuda-arch": add_cuda_arch, "snapshot": move_package}


def files(root: Path) -> dict[str, str]:
    """Every text file of the copy: the pages, the facts record and anything else `write` might touch."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            try:
                out[p.relative_to(root).as_posix()] = p.read_text()
            except UnicodeDecodeError:
                continue
    return out


def _blocks(text: str, path: str) -> dict[int, tuple[int, str]]:
    """Each block's end-marker line index -> (its position among the page's blocks, the text between its
    markers), read with docgen's own parser (markers shown inside code are text)."""
    sys.path.insert(0, str(REPO))
    from docgen.blocks import parse_document
    from docgen.render.generators import GENERATORS
    from docgen.render.values import VALUES

    doc = parse_document(text, path, {n: g.params for n, g in GENERATORS.items()}, frozenset(VALUES))
    return {b.end: (i, "".join(doc.lines[b.begin + 1: b.end])) for i, b in enumerate(doc.blocks)}


def changed_lines(before: dict[str, str], after: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """Per file, the lines `write` put in place of others or added, each as (kind, line): "content", "marker"
    (the end marker of a block whose text changed too) or "stamp" (the end marker of a block whose text
    did not change: a line changed only for a stamp)."""
    out = {}
    for path, new in after.items():
        old = before.get(path, "")
        if old == new:
            continue
        is_page = path.endswith(".md")
        new_blocks = _blocks(new, path) if is_page else {}
        old_texts = [t for _, t in sorted(_blocks(old, path).values())] if is_page else []
        new_lines = new.splitlines()
        sm = difflib.SequenceMatcher(None, old.splitlines(), new_lines, autojunk=False)
        lines = []
        for tag, _, _, j1, j2 in sm.get_opcodes():
            for j in range(j1, j2) if tag != "equal" else ():
                if j in new_blocks:
                    position, text = new_blocks[j]
                    same = position < len(old_texts) and old_texts[position] == text
                    lines.append(("stamp" if same else "marker", new_lines[j]))
                else:
                    lines.append(("content", new_lines[j]))
        out[path] = lines
    return out


def docgen(root: Path, tree: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("CI", None)
    return subprocess.run([sys.executable, "-m", "docgen", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)


def measure(tree: Path, change: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="docgen-churn-") as tmp:
        root = copy_tree(tree, Path(tmp) / "repo")
        described = CHANGES[change](root)
        before = files(root)
        write = docgen(root, tree, "write")
        if write.returncode != 0:
            raise SystemExit(f"docgen write exited {write.returncode}:\n{write.stderr}")
        after = files(root)
        check = docgen(root, tree, "check")
        lines = changed_lines(before, after)
        kinds = [kind for v in lines.values() for kind, _ in v]
        return {"change": described, "pages": len(lines), "lines": len(kinds), "stamp_only": kinds.count("stamp"),
                "markers": kinds.count("marker"), "content": kinds.count("content"), "check_exit": check.returncode,
                "check_tail": (check.stderr.strip().splitlines() or [""])[-1]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=REPO, help="the checkout to measure (default: this one)")
    ap.add_argument("--change", choices=[*CHANGES, "all"], default="all")
    args = ap.parse_args()
    tree = args.tree.resolve()
    for change in CHANGES if args.change == "all" else [args.change]:
        r = measure(tree, change)
        print(f"{r['change']}: {r['lines']} lines changed in {r['pages']} files: {r['content']} content, "
              f"{r['markers']} end markers of blocks whose text changed, {r['stamp_only']} changed only for a "
              f"stamp; `docgen check` after `write` exits {r['check_exit']}"
              + (f" ({r['check_tail']})" if r["check_exit"] else ""))


if __name__ == "__main__":
    main()
