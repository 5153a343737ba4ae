"""Hostile inputs for what docgen renders and where its markers count (issue 20, points 5 and 6), and a
registry module too deep for Python's parser. Each hostile input is either rendered inert (escaped for the
context it lands in) or bad input (exit 2, naming file and line), never a traceback."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from docgen.errors import InputError
from docgen.snapshot.registry import REGISTRY_MODULE
from docgen.snapshot.registry_source import read_registry_source
from tests.docgen_cli import docgen
from tests.test_cli import LOCK, PYPROJECT

ROOT = Path(__file__).resolve().parent.parent
MIRROR = ROOT / "tests" / "fixtures" / "registry" / "mirror"


# ------------------------------------------------------------------------ registry: a 5,000-long elif chain

def _deep_registry_checkout(tmp_path: Path, tail: str) -> Path:
    rl = tmp_path / "rl"
    shutil.copytree(MIRROR, rl)
    (rl / "pyproject.toml").write_text(PYPROJECT)
    (rl / "uv.lock").write_text(LOCK)
    module = rl / REGISTRY_MODULE
    module.write_text(module.read_text() + tail)
    return rl


ELIF_CHAIN = ("\nif MODE == 0:\n    X = 0\n" + "".join(f"elif MODE == {i}:\n    X = {i}\n" for i in range(1, 5000))
              + "else:\n    X = -1\n")
IFEXP_CHAIN = "\nX = " + " if MODE else ".join(f'"{i}"' for i in range(5000)) + "\n"
# parses, but evaluating it takes one frame per level: too deep for the evaluator's recursion
EVAL_CHAIN = "\nX = " + " if False else ".join(f'"{i}"' for i in range(2500)) + "\n"


@pytest.mark.probe("malformed input")
@pytest.mark.parametrize("tail", [ELIF_CHAIN, IFEXP_CHAIN, EVAL_CHAIN],
                         ids=["elif-chain", "conditional-expression-chain", "chain-too-deep-to-evaluate"])
def test_a_chain_too_deep_for_ast_is_bad_input_naming_the_module(tail, tmp_path):
    rl = _deep_registry_checkout(tmp_path, tail)
    module = rl / REGISTRY_MODULE
    with pytest.raises(InputError) as caught:
        read_registry_source(rl)
    assert Path(caught.value.path) == module
    assert caught.value.line is not None and caught.value.line > 1
    out = tmp_path / "out.json"
    run = docgen("snapshot", "--from", str(rl), "--repo", "https://example.invalid/rl", "--ref", "main",
                  "-o", str(out), cwd=tmp_path)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr
    assert f"{module}:" in run.stderr, run.stderr
    assert not out.exists()


@pytest.mark.probe("malformed input")
def test_a_long_but_readable_chain_still_reads(tmp_path):
    """200 elifs parse fine: the module reads as before (the chain does not shape the registry)."""
    tail = "\nif MODE == 0:\n    X = 0\n" + "".join(f"elif MODE == {i}:\n    X = {i}\n" for i in range(1, 200))
    rl = _deep_registry_checkout(tmp_path, tail)
    assert read_registry_source(rl).entries == read_registry_source(MIRROR).entries


# ------------------------------------------------------------- input text on a page: escaped, never a block

HOSTILE_COMMENT = ("# <script>alert(1)</script> <!-- docgen:end build-options --> x\n"
                   "# <!-- docgen:begin filter-table --> `<!-- docgen:end x -->` a lone ` tick\n")


def _repo_copy(tmp_path: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    copy = tmp_path / "repo"
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)
    return copy


@pytest.mark.probe("escaping and markers")
def test_html_and_markers_in_a_dockerfile_comment_render_as_text_and_later_runs_pass(tmp_path):
    repo = _repo_copy(tmp_path)
    dockerfile = repo / "Dockerfile.nmp-rl-base"
    text = dockerfile.read_text()
    anchor = "ARG UV_VERSION="
    assert anchor in text
    dockerfile.write_text(text.replace(anchor, HOSTILE_COMMENT + anchor, 1))
    first = docgen("write", cwd=repo)
    assert first.returncode == 0, first.stderr
    page = (repo / "docs" / "building" / "options.md").read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;!-- docgen:begin filter-table --&gt;" in page
    assert "`<!-- docgen:end x -->`" in page   # inside the author's code span: text, as the parser reads it
    # the write made a page every later command reads: no marker was created or broken
    for args in (("check",), ("write",), ("check",)):
        run = docgen(*args, cwd=repo)
        assert run.returncode in (0, 1) and "error" not in run.stderr, (args, run.stderr)
    assert docgen("write", cwd=repo).stdout.strip() == ""   # nothing left to change


@pytest.mark.probe("escaping and markers")
def test_refresh_refuses_a_body_that_would_act_on_the_page():
    from docgen.blocks import parse_document, refresh
    page = "<!-- docgen:begin t -->\n<!-- docgen:end t -->\n"
    doc = parse_document(page, "p.md", {"t": {}}, frozenset())
    for body, words in (("<!-- docgen:end t -->\n", "marker"), ("```\nopen\n", "fence"), ("<!-- open\n", "comment")):
        with pytest.raises(InputError, match=rf"p\.md:1: block t: .*{words}"):
            refresh(doc, lambda b, body=body: body, lambda v: "")


# ------------------------------------------------------------------ a value from an input: escaped as text

HOSTILE_VALUE = "<img src=x onerror=alert(1)>"


@pytest.mark.probe("escaping and markers")
def test_html_in_an_arg_default_reaches_the_page_as_text_through_a_plain_value(tmp_path):
    """A plain value (not a code span) renders an ARG default or an ENV path: its HTML becomes entities, so the
    built page shows it as text; the `.code` form of a value shows it inside a code span, as code."""
    repo = _repo_copy(tmp_path)
    dockerfile = repo / "Dockerfile.nmp-rl-base"
    text = dockerfile.read_text()
    for old, new in (("ARG CMAKE_VERSION=3.31.6", f'ARG CMAKE_VERSION="{HOSTILE_VALUE}"'),
                     ("UV_CACHE_DIR=/opt/uv_cache", f'UV_CACHE_DIR="/opt/{HOSTILE_VALUE}"')):
        assert old in text
        text = text.replace(old, new, 1)
    dockerfile.write_text(text)
    page = repo / "docs" / "index.md"
    page.write_text(page.read_text() + "\nCMake <!-- docgen:value cmake.version -->x<!-- docgen:end-value --> "
                    "caches in <!-- docgen:value paths.uv_cache -->x<!-- docgen:end-value --> "
                    "(<!-- docgen:value paths.uv_cache.code -->x<!-- docgen:end-value -->).\n")
    first = docgen("write", cwd=repo)
    assert first.returncode == 0, first.stderr
    written = page.read_text()
    last = written.rsplit("\n", 2)[-2]
    outside_code = re.sub(r"`[^`]*`", "", written)
    assert "<img" not in outside_code, last
    assert last.count("&lt;img src=x onerror=alert(1)&gt;") == 2, last    # the two plain values, as text
    assert f"`/opt/{HOSTILE_VALUE}`" in last                              # the code span keeps it as code
    for args in (("check",), ("write",)):                                   # the page stays readable
        run = docgen(*args, cwd=repo)
        assert run.returncode in (0, 1) and "error" not in run.stderr, (args, run.stderr)
    assert page.read_text() == written
