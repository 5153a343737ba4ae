"""The glossary in the built site: each term of docs/includes/glossary.md is a tooltip (an <abbr> with its
meaning) wherever it stands in a page's text, on every page, and the Glossary page lists every term."""

from __future__ import annotations

import html
import re
from pathlib import Path

from docgen.render.site import read_glossary

REPO = Path(__file__).resolve().parents[2]
ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">(.*?)</article>', re.S)
# code, and the diagrams' source (mermaid draws it as SVG, where no tooltip can stand): not the pages' text
CODE = re.compile(r'<(pre|code|script|style)\b.*?</\1>|<div class="mermaid">.*?</div>', re.S)
ABBR = re.compile(r'<abbr title="([^"]*)">(.*?)</abbr>', re.S)


def terms() -> dict[str, str]:
    return dict(read_glossary((REPO / "docs" / "includes" / "glossary.md").read_text(encoding="utf-8"), "glossary"))


def pages(site: Path) -> list[Path]:
    return [p for p in site.rglob("index.html") if ARTICLE.search(p.read_text(encoding="utf-8"))]


def test_every_term_is_a_tooltip_wherever_it_stands_in_a_pages_text(site):
    glossary, bare, shown = terms(), [], set()
    for page in pages(site):
        article = CODE.sub("", ARTICLE.search(page.read_text(encoding="utf-8")).group(1))
        for title, word in ABBR.findall(article):
            assert html.unescape(title) == glossary[word], (page, word)
            shown.add(word)
        text = re.sub(r"<[^>]*>", " ", ABBR.sub(" ", article))   # the words outside any tooltip
        for term in ("FQN", "critic-free", "refit", "hermetic", "stand-in", "prefetched", "warmed"):
            if re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", html.unescape(text)):
                bare.append((page.relative_to(site).as_posix(), term))
    assert bare == []
    assert {"FQN", "critic-free", "refit", "hermetic", "prefetched", "warmed", "extra"} <= shown


def test_the_glossary_page_lists_every_term(site):
    page = (site / "glossary" / "index.html").read_text(encoding="utf-8")
    listed = {html.unescape(re.sub(r"<[^>]*>", "", dt)).strip()
              for dt in re.findall(r"<dt>(.*?)</dt>", page, re.S)}
    spellings = {s.strip() for line in listed for s in line.split(",")}
    assert set(terms()) == spellings
