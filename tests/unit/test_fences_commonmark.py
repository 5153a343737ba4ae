"""docgen/fences.py's regions held to markdown-it-py, a CommonMark parser, as the oracle: on every page of this
repository, on tricky literals and on pages made of fragments, the lines docgen reads as fenced or indented
code and the lines where a closed HTML comment opens are the lines CommonMark gives.

Where docgen follows mkdocs rather than CommonMark, the fragments stay clear of it: a line's content column is
its own indentation (CommonMark strips up to three blanks of a paragraph line), an indented line right below a
fence or an HTML block that is no paragraph is code only after a blank line, admonitions and content tabs hold
indented content, and an inline `<!--` never closed hides the rest of the page (CommonMark reads it as text)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docgen.fences import COMMENT, regions
from docgen.project import find_project

markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (requirements/dev.txt) is the oracle")
MD = markdown_it.MarkdownIt("commonmark")
REPO = Path(__file__).resolve().parents[2]


def ours(text: str) -> tuple[set[int], set[int]]:
    """(non-blank lines of code, lines where a closed comment opens) as docgen/fences.py reads the page."""
    lines = text.split("\n")
    code: set[int] = set()
    comments: set[int] = set()
    for region in regions(text):
        if region.kind != COMMENT:
            code |= {i for i in range(region.start, region.stop) if lines[i].strip()}
        elif region.closed:
            comments.add(region.start)
    return code, comments


def commonmark(text: str) -> tuple[set[int], set[int]]:
    """The same as markdown-it-py parses the page: `fence` and `code_block` tokens, `html_block` comments and
    the `html_inline` comments of each paragraph (their line counted from the paragraph's soft breaks)."""
    lines = text.split("\n")
    code: set[int] = set()
    comments: set[int] = set()
    for token in MD.parse(text):
        if token.type in ("fence", "code_block") and token.map:
            code |= {i for i in range(*token.map) if lines[i].strip()}
        elif token.type == "html_block" and token.content.lstrip().startswith("<!--") and "-->" in token.content:
            comments.add(token.map[0])
        elif token.type == "inline" and token.map and token.children:
            line = token.map[0]
            for child in token.children:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type == "html_inline" and child.content.startswith("<!--"):
                    comments.add(line)
                line += child.content.count("\n") if child.type in ("html_inline", "code_inline", "text") else 0
    return code, comments


def the_pages() -> list[Path]:
    return find_project(REPO).page_paths()


def test_the_oracle_sees_the_pages_code_and_comments():
    """Not vacuous: the repository's pages hold fenced code, indented code and comments for both to find."""
    texts = [p.read_text(encoding="utf-8") for p in the_pages()]
    assert len(texts) > 10
    assert sum(len(commonmark(t)[0]) for t in texts) > 300
    assert sum(len(commonmark(t)[1]) for t in texts) > 100


@pytest.mark.parametrize("page", the_pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_page_of_the_repository_splits_as_commonmark_splits_it(page):
    text = page.read_text(encoding="utf-8")
    assert ours(text) == commonmark(text)


CASES = {
    "backtick fence": "para\n\n```bash\necho hi\n```\nafter\n",
    "tilde fence holding backticks": "~~~\n```\nnot a close\n~~~\n",
    "a longer run closes": "````\n```\nstill code\n`````\nprose\n",
    "a closing run with an info string is content": "```\ncode\n``` x\nstill\n```\n",
    "a backtick info string with a backtick opens nothing": "``` a`b\nprose\n",
    "an unclosed fence runs to the end": "text\n\n```\ncode\nmore\n",
    "a fence inside a comment": "<!--\n```\n-->\nprose\n",
    "a comment inside a fence": "```\n<!-- x\n```\nprose <!-- y -->\n",
    "a comment opener in a code span is text": "a `<!--` b\n\nc <!-- real --> d\n",
    "a double-backtick span around a backtick": "a `` ` <!-- `` b <!-- c -->\n",
    "two comments on one line": "a <!-- x --> b <!-- y --> c\n",
    "a comment over lines": "a <!-- x\ny\nz --> b\n",
    "indented code after a blank line": "para\n\n    code\n    more\n\nprose\n",
    "indented lines continue a paragraph": "para\n    not code\n",
    "indented code right after a heading": "# Title\n    code\n",
    "a tab indents four": "para\n\n\tcode\n",
    "three blanks are no code": "para\n\n   not code\n",
    "blank lines inside indented code": "para\n\n    a\n\n    b\n\nc\n",
    "a fence in a list item": "- item\n\n  ```\n  code\n  ```\n- next\n",
    "a closing fence indented up to three": "```\ncode\n   ```\nprose\n",
    "an HTML block comment": "<!-- a\nb -->\n\ntext\n",
    "CRLF line endings": "para\r\n\r\n```\r\ncode\r\n```\r\nprose\r\n",
}


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_tricky_pages_split_as_commonmark_splits_them(text):
    assert ours(text) == commonmark(text)


FRAGMENTS = ["```", "```py", "``` x", "~~~", "````", "~~~~", "text", "more text", "", "    code", "\tcode", "# Head",
             "<!-- c -->", "<!--", "-->", "x --> y", "a <!-- c --> b", "a `<!--` b", "a `` ` `` b <!-- x -->"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12))
def test_pages_made_of_fragments_split_as_commonmark_splits_them(fragments):
    lines: list[str] = []
    for line in fragments:   # kept clear of the mkdocs readings the module docstring names
        lines += [line, ""] if "-->" in line else ["", line] if line.startswith(("    ", "\t")) else [line]
    text = "\n".join(lines) + "\n"
    assert ours(text) == commonmark(text)
