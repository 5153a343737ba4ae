"""`docgen write` / `docgen check` on this repository under random valid edits (hypothesis): prose added
anywhere, block bodies scribbled over, the Dockerfile's filters and the snapshot changed. Whatever the
edits, write keeps every byte outside the generated regions, a second write changes nothing, and check
after write is clean or its findings name an input (the Dockerfile, the snapshot, the image-size record
measured from earlier inputs), or a page's sentence that names a fact the edits moved (review), never a
page's text otherwise."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from docgen.blocks import parse_document
from docgen.cli import main
from docgen.console.shell import copy_worktree
from docgen.render.generators import GENERATORS
from docgen.render.values import VALUES

ROOT = Path(__file__).resolve().parent.parent
PARAMS = {name: g.params for name, g in GENERATORS.items()}
FILTER_LINE = re.compile(r"^  [a-z_0-9.]+\.[A-Za-z_0-9]+ \\\n", re.M)


@pytest.fixture(scope="module")
def scratch():
    """One copy of the repository for the whole module; each example starts from its pristine bytes."""
    where = Path(tempfile.mkdtemp(prefix="docgen-write-properties-"))
    copy_worktree(ROOT, where)
    pristine = {p: p.read_bytes() for p in where.rglob("*") if p.is_file()}
    yield where, pristine
    shutil.rmtree(where, ignore_errors=True)


def _reset(root: Path, pristine: dict[Path, bytes]) -> None:
    for path in [p for p in root.rglob("*") if p.is_file() and p not in pristine]:
        path.unlink()
    for path, data in pristine.items():
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)


def _docgen(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue() + err.getvalue()


def _pages(root: Path) -> list[Path]:
    return sorted((root / "docs").rglob("*.md")) + [root / "README.md"]


def _outside(text: str, path: str) -> list[str]:
    """The page with every block body (and its end marker, which carries stamps) and every inline value's
    text cut out: what write must leave byte for byte."""
    doc = parse_document(text, path, PARAMS, frozenset(VALUES))
    lines = list(doc.lines)
    for value in sorted(doc.values, key=lambda v: (v.line_index, v.start), reverse=True):
        line = lines[value.line_index]
        lines[value.line_index] = line[:value.start] + "<VALUE>" + line[value.stop:]
    for block in reversed(doc.blocks):
        lines[block.begin + 1: block.end + 1] = ["<BLOCK>\n"]
    return lines


# Prose that states no fact of the image: without `/`, no path (a random "/opt" is a path typed by hand, which the
# prose lint rightly reports and write cannot fix), without backticks, no code span
_prose = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="`~<>\\/"),
                 min_size=1, max_size=40).filter(lambda s: s.strip() and not s.lstrip().startswith(("#", "-", "*", "|", "+")))


@st.composite
def edits(draw):
    """A list of (kind, details) edits; applied in order by _apply."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["prose", "scribble", "drop-filter", "dockerfile-comment", "snapshot-version"]))
        out.append((kind, draw(st.integers(0, 10_000)), draw(_prose)))
    return out


def _apply(root: Path, edit: tuple[str, int, str]) -> None:
    kind, pick, text = edit
    pages = _pages(root)
    if kind in ("prose", "scribble"):
        page = pages[pick % len(pages)]
        source = page.read_text(encoding="utf-8")
        doc = parse_document(source, str(page), PARAMS, frozenset(VALUES))
        lines = list(doc.lines)
        if kind == "scribble" and doc.blocks:        # a hand edit inside a generated body
            block = doc.blocks[pick % len(doc.blocks)]
            lines[block.begin + 1: block.end] = [text + "\n"]
        else:                                          # a new paragraph between two lines outside blocks
            inside = {i for b in doc.blocks for i in range(b.begin + 1, b.end + 1)}
            spots = [i for i in range(len(lines) + 1) if i not in inside]
            at = spots[pick % len(spots)]
            lines[at:at] = ["\n", text + "\n", "\n"]
        page.write_text("".join(lines), encoding="utf-8")
    elif kind == "drop-filter":
        dockerfile = root / "Dockerfile.nmp-rl-base"
        source = dockerfile.read_text()
        found = list(FILTER_LINE.finditer(source))
        if len(found) > 1:
            m = found[pick % len(found)]
            dockerfile.write_text(source[:m.start()] + source[m.end():])
    elif kind == "dockerfile-comment":
        dockerfile = root / "Dockerfile.nmp-rl-base"
        lines = dockerfile.read_text().splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if line.startswith("FROM "))
        lines.insert(at, f"# {text}\n")
        dockerfile.write_text("".join(lines))
    elif kind == "snapshot-version":
        snapshot = root / "snapshot/nemo-rl.json"
        data = json.loads(snapshot.read_text())
        names = sorted(data["lock"]["packages"])
        package = data["lock"]["packages"][names[pick % len(names)]]
        if package["version"]:   # a later release of the same version, still a version (PEP 440)
            package["version"] = package["version"].split("+")[0].split(".post")[0] + f".post{pick}"
        snapshot.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits())
def test_write_keeps_prose_is_idempotent_and_leaves_check_clean(scratch, edit_list):
    root, pristine = scratch
    _reset(root, pristine)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for edit in edit_list:
            _apply(root, edit)
        before = {p: p.read_text(encoding="utf-8") for p in _pages(root)}
        code, output = _docgen("write")
        assert code == 0, output
        after = {p: p.read_text(encoding="utf-8") for p in _pages(root)}
        for page in before:
            assert _outside(after[page], str(page)) == _outside(before[page], str(page)), page
        written = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        code, output = _docgen("write")
        assert code == 0, output
        again = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        assert sorted(p for p in again.keys() | written.keys() if again.get(p) != written.get(p)) == [], \
            "a second write changed these files"
        code, output = _docgen("check")
        assert "0 stale blocks, 0 stale values" in output or code == 0, output
        if code != 0:
            assert code == 1, output
            finding_lines = [ln for ln in output.splitlines() if re.match(r"^\S+?(:\d+)?: \[", ln)]
            inputs = ("Dockerfile.nmp-rl-base:", "snapshot/nemo-rl.json:", "docs/data/image-size.json:")
            # or a page's sentence that names a fact the edit moved: a person's to edit or confirm (review)
            assert finding_lines and all(ln.startswith(inputs) or "[review] " in ln for ln in finding_lines), output
    finally:
        os.chdir(cwd)
