"""The built site as a reader meets it: every paragraph is a whole sentence (an inline value that starts a
source line would end the paragraph there, in Python-Markdown as on GitHub)."""

from __future__ import annotations

import pytest

from tests.site.html_pages import read_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The text of every paragraph of the page's article that does not end like a sentence. Admonition titles
# are headings, and the labels mermaid draws inside its SVGs are <p> elements too: both are left out.
BROKEN_PARAGRAPHS = r"""
[...document.querySelectorAll('article p')]
  .filter(p => !p.classList.contains('admonition-title') && !p.closest('.mermaid, svg'))
  .map(p => p.textContent.replace(/\s+/g, ' ').trim())
  .filter(t => t && !/[.:;!?)\]"'\u201d\u2019\u2026]$/.test(t))
"""


def test_every_paragraph_ends_like_a_sentence(browser, site, site_server):
    broken, seen = [], 0
    for url in read_site(site):
        browser.open(site_server + url)
        seen += browser.evaluate("document.querySelectorAll('article p').length")
        broken += [f"/{url}: ...{text[-80:]!r}" for text in browser.evaluate(BROKEN_PARAGRAPHS)]
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


# Every code span of a table cell that holds a dotted name: its parts (split after each dot, where the site
# puts a <wbr>) and, for each part, the number of lines it was laid out on.
FQN_PARTS = r"""
[...document.querySelectorAll('article td code')].filter(c => c.textContent.split('.').length > 2).map(c => ({
  name: c.textContent, wbr: c.querySelectorAll('wbr').length,
  parts: [...c.childNodes].filter(n => n.nodeType === 3).map(n => {
    const r = document.createRange(); r.selectNodeContents(n);
    return [n.textContent, new Set([...r.getClientRects()].map(x => Math.round(x.top))).size];
  })}))
"""


def test_names_in_tables_break_after_their_dots_at_phone_width(browser, site, site_server):
    from tests.site.test_diagram_layout import viewport

    mid_word, names = [], 0
    with viewport(browser, 390):
        for url in ("concepts/workers/", "concepts/workflows/", "image/venvs/"):
            browser.open(site_server + url)
            for fqn in browser.wait_for(FQN_PARTS):
                names += 1
                assert fqn["wbr"] == fqn["name"].count(".") + fqn["name"].count("/"), fqn
                # a part short enough for the column (30 characters) must not itself be split, but at a hyphen
                mid_word += [f"/{url}: {fqn['name']}: {part!r}" for part, lines in fqn["parts"]
                             if lines > 1 + part.count("-") and len(part) <= 30]
    assert names > 50, f"only {names} dotted names found in tables"
    assert mid_word == []
