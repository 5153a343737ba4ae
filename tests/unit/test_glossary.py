"""The glossary file (docs/includes/glossary.md): every page's tooltips and the Glossary page come from it. Its
lines read as Material's abbreviations, the jargon issue 30 names is in it, a bad line is bad input named by
file and line, and the page lists each meaning once under all of its spellings."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgen.errors import InputError
from docgen.render.site import glossary_page, read_glossary

REPO = Path(__file__).resolve().parents[2]
GLOSSARY = REPO / "docs" / "includes" / "glossary.md"
JARGON = ("extra", "FQN", "warm", "prefetch", "refit", "critic-free", "PY_EXECUTABLES", "stand-in", "hermetic")


def test_the_glossary_defines_the_jargon_the_pages_use():
    terms = dict(read_glossary(GLOSSARY.read_text(encoding="utf-8"), "docs/includes/glossary.md"))
    assert set(JARGON) <= set(terms)
    assert all(meaning and "\n" not in meaning for meaning in terms.values())
    # every term is used on some page, else it is no jargon of these pages
    pages = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "docs").rglob("*.md") if p != GLOSSARY)
    assert [t for t in terms if t not in pages] == []


def test_the_page_lists_each_meaning_once_under_every_spelling():
    source = ("*[extra]: An optional dependency group.\n*[extras]: An optional dependency group.\n\n"
              "*[FQN]: Fully qualified <name>.\n")
    page = glossary_page(read_glossary(source, "g.md"), "g.md")
    assert page.startswith("# Glossary\n") and "(2 entries)" in page
    assert "extra, extras\n:   An optional dependency group.\n" in page
    assert "FQN\n:   Fully qualified &lt;name&gt;.\n" in page and page.index("extra,") < page.index("FQN")


@pytest.mark.parametrize("source, line", [("*[extra]: fine\nnot a term\n", 2), ("*[extra]:\n", 1),
                                          ("*[]: empty term\n", 1)])
def test_a_line_that_is_no_term_is_bad_input_named_by_line(source, line):
    with pytest.raises(InputError) as caught:
        read_glossary(source, "docs/includes/glossary.md")
    assert caught.value.path == "docs/includes/glossary.md" and caught.value.line == line


def test_an_empty_glossary_is_bad_input():
    with pytest.raises(InputError, match="no term"):
        read_glossary("\n\n", "g.md")
