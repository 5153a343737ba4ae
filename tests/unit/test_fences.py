"""One rule for where a page shows code or a comment (docgen/fences.py): the block engine, the prose lint and
the console parser all walk a page with `regions`, so they agree on every page."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docgen.blocks import parse_document
from docgen.check.prose import _sort_lines, lint_document
from docgen.console.parser import find_blocks
from docgen.errors import InputError
from docgen.fences import COMMENT, FENCED, INDENTED, Region, regions
from docgen.inputs.dockerfile import parse_dockerfile
from docgen.model.build import build_model
from docgen.render.generators import GENERATORS
from docgen.render.values import VALUES
from docgen.snapshot.load import load_snapshot

REPO = Path(__file__).resolve().parents[2]
VALUE = "<!-- docgen:value venvs.count -->9<!-- docgen:end-value -->"


def parse(text: str):
    return parse_document(text, "page.md", {n: g.params for n, g in GENERATORS.items()}, frozenset(VALUES))


@pytest.fixture(scope="module")
def model():
    dockerfile = parse_dockerfile((REPO / "Dockerfile.nmp-rl-base").read_text(), "Dockerfile")
    return build_model(dockerfile, load_snapshot(REPO / "snapshot" / "nemo-rl.json"))


def count_findings(text: str, model) -> list[int]:
    return [f.line for f in lint_document(parse(text), model) if "venvs" in f.message]


# ------------------------------------------------------------------------------------------ the regions

def test_regions_name_fences_indented_code_and_comments_in_order():
    text = ("a\n```sh\n<!-- x -->\n```\n\n    code\n    more\nb <!-- one\ntwo --> c <!-- three -->\n"
            "`<!--` is text\n~~~\nopen")
    assert list(regions(text)) == [
        Region(FENCED, 1, 4, regions("```sh\n```").__next__().fence),
        Region(INDENTED, 5, 7),
        Region(COMMENT, 7, 9, first=2, last=7),
        Region(COMMENT, 8, 9, first=10, last=24),
        Region(FENCED, 10, 12, regions("~~~").__next__().fence, closed=False),
    ]


def test_a_comment_left_open_runs_to_the_end_and_hides_a_fence():
    assert [(r.kind, r.start, r.stop, r.closed) for r in regions("x\n<!--\n```\nstill\n")] == [
        (COMMENT, 1, 4, False)]


def test_indented_code_opens_neither_a_fence_nor_a_comment_but_a_list_item_keeps_its_content_live():
    page = "text\n\n    ```console\n    <!-- x\n\n- item\n\n    ```console\n    ```\n"
    kinds = [(r.kind, r.start, r.stop) for r in regions(page)]
    assert kinds == [(INDENTED, 2, 4), (FENCED, 7, 9)]


# ------------------------------------------------------------------------------------ the three readers

@pytest.mark.probe("escaping and markers")
@pytest.mark.parametrize("wrap", [
    lambda block: f"<!--\n{block}-->\n",                       # inside an HTML comment
    lambda block: f"<!-- a note\n\n{block}\n-->\n",
    lambda block: "text\n\n" + "".join("    " + ln + "\n" for ln in block.splitlines()),   # indented code
])
def test_a_console_block_inside_a_comment_or_indented_code_is_not_run(wrap):
    block = "```console\n$ rm -rf /\n```\n"
    assert [b.line for b in find_blocks("# T\n\n" + block, "p.md")] == [3]   # the same block in the flow runs
    assert list(find_blocks("# T\n\n" + wrap(block), "p.md")) == []


@pytest.mark.probe("escaping and markers")
def test_options_inside_a_comment_do_not_bind_to_the_next_fence():
    page = "<!-- aside\n<!-- console: skip=\"x\" -->\n```console\n$ true\n```\n"
    # the inner `-->` closes the outer comment: the fence is in the flow, the options comment is not
    [block] = find_blocks(page, "p.md")
    assert block.options.skip is None


def test_console_lines_end_at_newline_only_as_the_block_engine_numbers_them():
    page = "a\u2028b\x0c\n```console\n$ true\n```\n"
    assert [b.line for b in find_blocks(page, "p.md")] == [2]


@pytest.mark.probe("escaping and markers")
@pytest.mark.parametrize("page, lines", [
    ("The image holds 9 venvs.\n", [1]),                                  # prose: a finding
    ("Text.\n\n    The image holds 9 venvs.\n", []),                       # indented code
    ("Text.\n<!--\nThe image holds 9 venvs.\n-->\n", []),                  # inside a comment
    ("<!-- The image holds\n9 venvs. --> and 9 venvs.\n", [2]),            # after the comment closes
    ("Before 9 venvs <!-- a\nb -->\n", [1]),                               # before it opens
    ("- item\n\n    The image holds 9 venvs.\n", [3]),                     # a list item's paragraph is prose
])
def test_a_count_in_indented_code_or_a_comment_is_not_a_prose_finding(model, page, lines):
    assert count_findings(page, model) == lines


# A generated page: fragments that open and close fences, comments and indented code, around value markers and
# console fences, so the three readers have something to disagree about.
FRAGMENTS = ["```console", "```", "~~~", "  ```console", "    ```", "<!--", "-->", "<!-- note -->", "`<!--`", "",
             "    indented", "\tindented", "- item", "!!! note", "# Heading", "text", VALUE, "    " + VALUE,
             "$ echo hi", "x <!-- y", "z --> " + VALUE, "        deep"]


@pytest.mark.probe("escaping and markers")
@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=24).map("\n".join), st.sampled_from(["\n", "\r\n"]))
def test_the_three_readers_agree_on_every_page(page, nl):
    page = page.replace("\n", nl) + nl
    try:
        doc = parse(page)
        blocks = list(find_blocks(page, "p.md"))
    except InputError:
        return   # a marker after a fence or comment left open: refused, so nothing to agree on
    prose, code, _ = _sort_lines(doc)
    value_lines = {v.line_index for v in doc.values}
    in_console = set()
    for block in blocks:
        first = block.line   # 0-based index of the first body line
        in_console.update(range(first, first + page[block.body_start:block.body_end].count("\n")))
    for index, line in enumerate(page.split(nl)[:-1]):
        if VALUE in line:
            # the engine reads the value exactly where the prose lint reads prose, never in a console block
            assert (index in value_lines) == ("\x00" in prose[index]), (index, line)
            assert not (index in value_lines and index in in_console), (index, line)
        if index in in_console:
            assert prose[index] == code[index] == "", (index, line)
    # every console fence the parser runs is a fenced region of the walk, and every such region is run
    fenced = [r.start + 1 for r in regions(page) if r.kind == FENCED and r.fence.language == "console"]
    assert [b.line for b in blocks] == fenced


def _in_indented_code(lines: list[str], index: int) -> bool:
    """The indented-code rule read the slow way, as the block engine used to: walk up from the line."""
    def depth(line):
        return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" \t"))
    line = lines[index]
    col = depth(line)
    if col < 4 or not line.strip():
        return False
    blank = False
    for above in reversed(lines[:index]):
        if not above.strip():
            blank = True
            continue
        if depth(above) >= col:
            continue
        container = above.lstrip()[:1] in "-*+" and above.lstrip()[1:2] in ("", " ", "\t") or \
            above.lstrip().startswith(("!!!", "???", "==="))
        base = depth(above) + 4 if container else depth(above)
        return col >= base + 4 and (blank or above.lstrip().startswith("#"))
    return True


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["", "  ", "    x", "\tx", "  \tx", "        x", "  - item", "!!! note", "# h",
                                 "text", "   text", "      x", "* y", "???+ tip", "=== tab"]), max_size=20))
def test_indented_code_found_in_one_pass_is_the_walk_up_rule(lines):
    page = "\n".join(lines) + "\n"
    found = {i for r in regions(page) if r.kind == INDENTED for i in range(r.start, r.stop)}
    assert found == {i for i in range(len(lines)) if _in_indented_code(lines, i)}
