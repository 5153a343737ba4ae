"""Every diagram of the built site, laid out by a real Chromium at a desktop width (1280 px) and a phone's
(390 px): it fits the text column without scrolling (the page itself never gets wider), no label overlaps
another (participant names, messages, notes, nodes, edge labels), nor spills out of its own box; and one tap
on its fullscreen button shows it at its natural size, to pan."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest

from tests.site.conftest import REPO
from tests.site.html_pages import read_site
from tests.site.test_browser import ALL_RENDERED

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Geometry of one rendered diagram (a div.mermaid holding its svg), measured in page pixels.
LAYOUT = r"""
window.__layout = (div) => {
  const svg = div.querySelector('svg');
  const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; };
  const union = (bs) => { const x = Math.min(...bs.map(b => b.x)), y = Math.min(...bs.map(b => b.y));
    return {x, y, w: Math.max(...bs.map(b => b.x + b.w)) - x, h: Math.max(...bs.map(b => b.y + b.h)) - y}; };
  const overlap = (a, b) => Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 1
                         && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 1;
  const inside = (a, b) => a.x >= b.x - 2 && a.y >= b.y - 2 && a.x + a.w <= b.x + b.w + 2 && a.y + a.h <= b.y + b.h + 2;
  const name = (e) => (e.textContent || '').trim().slice(0, 40);
  const labels = [], spills = [];
  // sequence diagrams: each participant is a <g> with its rect and one text per label line
  for (const rect of svg.querySelectorAll('rect.actor')) {
    const texts = [...rect.parentElement.querySelectorAll('text.actor')];
    if (!texts.length) continue;
    const text = union(texts.map(box));
    const label = {what: texts.map(name).join(' / '), ...text};
    labels.push(label);
    if (!inside(text, box(rect))) spills.push(label.what);
  }
  for (const e of svg.querySelectorAll('text.messageText, text.noteText, text.loopText, text.labelText'))
    labels.push({what: name(e), ...box(e)});
  // flowcharts: every node (shape and label) and every non-empty edge label
  for (const node of svg.querySelectorAll('g.node')) {
    labels.push({what: name(node), ...box(node)});
    const text = node.querySelector('.nodeLabel, foreignObject, text');
    const shape = node.querySelector('rect, path, polygon, circle, ellipse');
    if (text && shape && !inside(box(text), box(shape))) spills.push(name(node));
  }
  for (const e of svg.querySelectorAll('g.edgeLabel')) if (name(e)) labels.push({what: name(e), ...box(e)});
  // bar charts (the image-size page): title, axis titles and every tick label
  // (what clips a label is the svg, or the diagram's box when the svg lets its content overflow)
  const clip = getComputedStyle(svg).overflow === 'visible' ? box(div) : box(svg);
  if (svg.getAttribute('aria-roledescription') === 'xychart')
    for (const e of svg.querySelectorAll('text')) if (name(e)) {
      labels.push({what: name(e), ...box(e)});
      if (!inside(box(e), clip)) spills.push(name(e));   // a tick label cut off at the chart's edge
    }
  const sized = labels.filter(b => b.w > 0 && b.h > 0);
  const overlaps = [];
  for (let i = 0; i < sized.length; i++)
    for (let j = i + 1; j < sized.length; j++)
      if (overlap(sized[i], sized[j])) overlaps.push([sized[i].what, sized[j].what]);
  const before = div.scrollLeft; div.scrollLeft = 40; const scrolled = div.scrollLeft > before; div.scrollLeft = before;
  return {width: Math.round(box(svg).w), column: div.clientWidth, scrollWidth: div.scrollWidth,
          overflowX: getComputedStyle(div).overflowX, scrolled, labels: sized.length, overlaps, spills,
          role: svg.getAttribute('aria-roledescription')};
};
true
"""


def measure(browser) -> list[dict]:
    browser.evaluate(LAYOUT)
    return browser.evaluate("[...document.querySelectorAll('div.mermaid')].map(d => window.__layout(d))")


def diagram_pages(site) -> list[str]:
    return [url for url, page in read_site(site).items() if page.mermaid_sources]


WIDTHS = (1280, 390)
ARTIFACTS = REPO / "artifacts"


@contextmanager
def viewport(browser, width: int):
    """The page laid out at `width` CSS pixels (a phone's, with touch, below 500)."""
    phone = width < 500
    browser.page("Emulation.setDeviceMetricsOverride", width=width, height=844 if phone else 1000,
                 deviceScaleFactor=1, mobile=phone)
    browser.page("Emulation.setTouchEmulationEnabled", enabled=phone)
    try:
        yield
    finally:
        browser.page("Emulation.setTouchEmulationEnabled", enabled=False)
        browser.page("Emulation.clearDeviceMetricsOverride")


# every diagram drawn, and the panzoom plugin's script has taken each box over (it looks once a second)
READY = ("(() => { const d = [...document.querySelectorAll('div.mermaid')];"
         " return d.length > 0 && d.every(e => e.querySelector('svg'))"
         " && document.querySelectorAll('.panzoom-box div.mermaid[data-zoom]').length === d.length; })()")


@pytest.mark.parametrize("width", WIDTHS)
def test_every_diagram_fits_its_column_and_no_label_overlaps(browser, site, site_server, width):
    pages = diagram_pages(site)
    assert len(pages) >= 3, pages
    checked = 0
    with viewport(browser, width):
        for url in pages:
            browser.open(site_server + url)
            assert browser.wait_for(READY), f"/{url}: not every diagram rendered in a pan-and-zoom box"
            page_width = browser.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert page_width[0] <= page_width[1], f"/{url} at {width} px: a diagram widened the page itself"
            for n, d in enumerate(measure(browser)):
                where = f"/{url} diagram {n + 1} ({d['role']}) at {width} px"
                checked += 1
                assert d["labels"] >= 3, f"{where}: no labels found, the layout probe sees nothing: {d}"
                assert d["width"] <= d["column"] + 1 and not d["scrolled"], \
                    f"{where}: wider than its column ({d['width']} > {d['column']} px): {d}"
                assert d["overlaps"] == [], f"{where}: labels overlap: {json.dumps(d['overlaps'][:5])}"
                assert d["spills"] == [], f"{where}: labels spill out of their boxes: {d['spills'][:5]}"
        ARTIFACTS.mkdir(exist_ok=True)
        browser.open(site_server + "concepts/workflows/")
        browser.wait_for(READY)
        browser.screenshot(ARTIFACTS / f"site-workflows-{width}.png", selector=".panzoom-box", hide=".md-sidebar")
    assert checked >= 5


# One tap on a diagram's fullscreen button: the box covers the screen and the diagram is drawn at its natural
# size (its viewBox width), its labels as large as mermaid sets them; panzoom then pans it.
FULLSCREEN = r"""
(async (n) => {
  const box = document.querySelectorAll('.panzoom-box')[n];
  box.scrollIntoView();
  box.querySelector('.panzoom-max').click();
  await new Promise(r => setTimeout(r, 100));
  const svg = box.querySelector('div.mermaid svg'), r = svg.getBoundingClientRect(), b = box.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text, .nodeLabel, .edgeLabel span')].map(t => t.getBoundingClientRect().height).filter(h => h > 0);
  const out = {natural: svg.viewBox.baseVal.width, drawn: r.width, box: [b.left, b.top, b.width, b.height],
               screen: [document.documentElement.clientWidth, document.documentElement.clientHeight], position: getComputedStyle(box).position,
               text: texts.length ? Math.min(...texts) : 0, zoomable: !!box.querySelector('div.mermaid[data-zoom]')};
  box.querySelector('.panzoom-min').click();
  await new Promise(r => setTimeout(r, 100));
  out.back = Math.round(svg.getBoundingClientRect().width) <= box.querySelector('div.mermaid').clientWidth + 1;
  return out;
})
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_one_tap_shows_each_diagram_full_size(browser, site, site_server, width):
    seen = 0
    with viewport(browser, width):
        for url in diagram_pages(site):
            browser.open(site_server + url)
            assert browser.wait_for(READY), f"/{url}: not every diagram rendered in a pan-and-zoom box"
            for n in range(browser.evaluate("document.querySelectorAll('.panzoom-box').length")):
                f = browser.evaluate(f"({FULLSCREEN})({n})")
                where = f"/{url} diagram {n + 1} at {width} px"
                seen += 1
                assert f["position"] == "fixed" and f["box"] == [0, 0, *f["screen"]], f"{where}: not fullscreen: {f}"
                assert f["drawn"] >= 0.95 * f["natural"], f"{where}: still shrunk in fullscreen: {f}"
                assert f["text"] >= 10, f"{where}: labels under 10 px high in fullscreen: {f}"
                assert f["zoomable"], f"{where}: no pan and zoom on the box: {f}"
                assert f["back"], f"{where}: leaving fullscreen did not give the column back: {f}"
    assert seen >= 5


# A deliberately broken diagram: the probe must see the overlap and the spill, or it proves nothing above.
BROKEN = """
<div class="mermaid" style="width: 200px; overflow-x: auto"><svg width="600" height="100" style="max-width: none">
  <g class="node"><rect x="0" y="0" width="120" height="40"></rect><text x="5" y="20">first node</text></g>
  <g class="node"><rect x="100" y="10" width="120" height="40"></rect><text x="105" y="30">second node</text></g>
  <g><rect class="actor" x="300" y="0" width="60" height="40"></rect>
     <text class="actor" x="305" y="20">AVeryLongParticipantNameThatSpills</text></g>
</svg></div>
"""


def test_the_layout_probe_catches_overlaps_spills_and_a_box_that_does_not_scroll(browser, site, site_server):
    browser.open(site_server)
    browser.evaluate(f"document.body.innerHTML = {json.dumps(BROKEN)}; true")
    [d] = measure(browser)
    assert ["first node", "second node"] in d["overlaps"]
    assert d["spills"] == ["AVeryLongParticipantNameThatSpills"]
    assert d["width"] > d["column"] and d["scrolled"]
    browser.evaluate("document.querySelector('div.mermaid').style.overflowX = 'visible'; true")
    [d] = measure(browser)
    assert not d["scrolled"]
