"""The built site as a reader meets it: every paragraph is a whole sentence (an inline value that starts a
source line would end the paragraph there, in Python-Markdown as on GitHub)."""

from __future__ import annotations

import re

import pytest

from tests.site.html_pages import read_site
from tests.site.visits import BROKEN_PARAGRAPHS, FQN_PAGES

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_every_paragraph_ends_like_a_sentence(plain_tour, site):
    # each page as the plain tour saw it (tests/site/visits.py), its diagrams drawn; their labels are not counted
    broken, seen = [], 0
    for url in read_site(site):
        visit = plain_tour[url]
        seen += visit.paragraphs
        broken += [f"/{url}: ...{text[-80:]!r}" for text in visit.broken]
    assert seen > 100, f"only {seen} paragraphs found: the probe is not seeing the pages"
    assert broken == [], "paragraphs that end mid-sentence:\n" + "\n".join(broken)


def test_the_probe_sees_a_paragraph_cut_by_a_line_leading_value(browser, site, site_server):
    """The break as Python-Markdown makes it: the value's line becomes its own block, the sentence before it
    a paragraph that ends in the middle."""
    import json

    import markdown

    value = "<!-- docgen:value k -->3.13<!-- docgen:end-value -->"
    cut = markdown.markdown(f"Python is\n{value} and uv is\nthe one in the image.\n")
    whole = markdown.markdown(f"Python\nis {value} and uv is\nthe one in the image.\n")
    browser.open(site_server)
    found = []
    for html in (cut, whole):
        browser.evaluate(f"document.querySelector('article').innerHTML = {json.dumps(html)}; true")
        found.append(browser.evaluate(BROKEN_PARAGRAPHS))
    assert found == [["Python is"], []]


def test_names_and_paths_break_only_after_their_dots_and_slashes_at_phone_width(diagram_tour):
    # each page as the diagram tour saw it at 390 px (tests/site/visits.py: FQN_PARTS)
    tour = diagram_tour(390)
    mid_word, names = [], 0
    for url in FQN_PAGES:   # tables and lists of names and paths
        assert tour[url].fqn, f"/{url}: no dotted name or path found"   # the probe sees them
        for fqn in tour[url].fqn:
            names += 1
            # a break opportunity after every dot and slash but a last one
            assert fqn["wbr"] == len(re.findall(r"[./](?=.)", fqn["name"])), fqn
            # a part short enough for the column (30 characters) must not itself be split, but at a hyphen
            mid_word += [f"/{url}: {fqn['name']}: {part!r}" for part, lines in fqn["parts"]
                         if lines > 1 + part.count("-") and len(part) <= 30]
    assert names > 50, f"only {names} dotted names found"
    assert mid_word == []
