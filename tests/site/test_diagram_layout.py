"""Every diagram of the built site, laid out by a real Chromium at a desktop width (1280 px) and a phone's
(390 px): on a desktop it fits the text column without scrolling (at 12 px or more: test_diagram_reading);
on a phone it fits, or (too wide to read at 12 px) is folded to its table (the page itself never gets wider); no label overlaps
another (participant names, messages, notes, nodes, edge labels), nor spills out of its own box; and one tap
on its fullscreen button shows it at its natural size, to pan.

The pages are loaded once per width for all of these tests (the diagram tour, tests/site/visits.py, which
holds the probes); each test asserts on what that visit measured."""

from __future__ import annotations

import json

import pytest

from tests.site.visits import diagram_pages, measure

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDTHS = (1280, 390)


@pytest.mark.parametrize("width", WIDTHS)
def test_every_diagram_fits_its_column_and_no_label_overlaps(diagram_tour, site, width, capsys):
    pages = diagram_pages(site)
    assert len(pages) >= 3, pages
    tour = diagram_tour(width)   # also writes artifacts/site-workflows-{width}.png
    checked = 0
    for url in pages:
        visit = tour[url]
        assert visit.ready, f"/{url}: not every diagram rendered in a pan-and-zoom box: {visit.unready}"
        page_width = visit.page_width
        assert page_width[0] <= page_width[1], f"/{url} at {width} px: a diagram widened the page itself"
        for n, (d, fold) in enumerate(zip(visit.layouts, visit.folds, strict=True)):
            where = f"/{url} diagram {n + 1} ({d['role']}) at {width} px"
            checked += 1
            if fold["folded"]:   # on a phone, in place of a diagram too wide to read (test_diagram_reading)
                assert not fold["diagramShown"] and fold["button"], f"{where}: folded, but shown: {fold}"
                continue
            assert d["labels"] >= 3, f"{where}: no labels found, the layout probe sees nothing: {d}"
            with capsys.disabled():
                print(f"\n{where}: {d['width']} px drawn in a {d['column']} px box,"
                      f" {max(0, d['scrollWidth'] - d['column'])} px beyond it", end="")
            if width >= 1000:   # a desktop: every diagram fits its column at a readable size, none scrolls
                assert not fold["wide"] and not d["scrolled"] and d["scrollWidth"] <= d["column"], \
                    f"{where}: {d['scrollWidth'] - d['column']} px wider than its box, scrolled sideways: {d}"
            if fold["wide"]:   # kept readable: wider than the column, it scrolls in its own box
                assert d["width"] > d["column"] and d["scrolled"] and d["overflowX"] == "auto", \
                    f"{where}: marked wide, but does not scroll in its box: {d}"
            else:
                assert d["width"] <= d["column"] + 1 and not d["scrolled"], \
                    f"{where}: wider than its column ({d['width']} > {d['column']} px): {d}"
            assert d["overlaps"] == [], f"{where}: labels overlap: {json.dumps(d['overlaps'][:5])}"
            assert d["spills"] == [], f"{where}: labels spill out of their boxes: {d['spills'][:5]}"
    assert checked >= 5


@pytest.mark.parametrize("width", WIDTHS)
def test_one_tap_shows_each_diagram_full_size(diagram_tour, site, width):
    # visits.FULLSCREEN: one tap on each box's fullscreen button, measured, then one on its exit button
    tour = diagram_tour(width)
    seen = 0
    for url in diagram_pages(site):
        visit = tour[url]
        assert visit.ready, f"/{url}: not every diagram rendered in a pan-and-zoom box: {visit.unready}"
        for n, f in enumerate(visit.fullscreen):
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
