"""Every diagram of the built site as a reader sees it in Chromium, in the light and the dark scheme, at a
desktop's width and a phone's: its text meets WCAG's 4.5:1 contrast against what is drawn behind it, and its
lines, arrowheads, outlines and bars 3:1 (WCAG 1.4.11, graphical objects). Its text is at least 12 px as
drawn at 1280 px; at 390 px a diagram that cannot be drawn that large in the column gives way to a notice
with a button that opens it full screen (where its text is at least 12 px), above its phone form: the
table under it, at 12 px or more, which names everything the diagram draws.

The pages are loaded once per width (the diagram tour, tests/site/visits.py); READING is measured there in
each scheme. The last test gives the probe diagrams drawn to fail, so a probe that saw nothing cannot pass."""

from __future__ import annotations

import json

import pytest

from tests.site.visits import FOLDS, READING, SCHEMES, diagram_pages

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDTHS = (1280, 390)
TEXT, LINES = 4.5, 3.0   # WCAG 2: 1.4.3 (text) and 1.4.11 (graphical objects)


def figures(reading: list[dict]) -> str:
    return ", ".join(f"{d['role']}: text {min(t['contrast'] for t in d['texts']):.2f}"
                     f" lines {min(l['contrast'] for l in d['lines']):.2f}" for d in reading)


@pytest.mark.parametrize("width", WIDTHS)
def test_every_diagram_meets_wcag_contrast_in_both_schemes(diagram_tour, site, width, capsys):
    tour = diagram_tour(width)
    checked = 0
    for url in diagram_pages(site):
        visit = tour[url]
        assert visit.ready, f"/{url}: not every diagram rendered: {visit.unready}"
        assert set(visit.reading) == set(SCHEMES), f"/{url}: not measured in both schemes: {visit.reading.keys()}"
        for scheme, reading in visit.reading.items():
            assert reading, f"/{url} at {width} px: the {scheme} scheme was never applied"
            assert {d["scheme"] for d in reading} == {SCHEMES[scheme]}, reading
            with capsys.disabled():
                print(f"\n/{url} {width} px {scheme}: {figures(reading)}", end="")
            for n, d in enumerate(reading):
                where = f"/{url} diagram {n + 1} ({d['role']}) at {width} px, {scheme}"
                assert len(d["texts"]) >= 3 and len(d["lines"]) >= 3, f"{where}: the probe sees nothing: {d}"
                if d["role"] == "sequence":   # every message line and lifeline is measured
                    kinds = {l["what"] for l in d["lines"]}
                    assert {"line.messageLine0", "line.actor-line"} <= kinds, f"{where}: {sorted(kinds)}"
                low = [t for t in d["texts"] if t["contrast"] < TEXT]
                assert low == [], f"{where}: text under {TEXT}:1: {json.dumps(low[:5])}"
                low = [l for l in d["lines"] if l["contrast"] < LINES]
                assert low == [], f"{where}: lines under {LINES}:1: {json.dumps(low[:5])}"
                checked += 1
    assert checked >= 2 * 5


READABLE = 12.0   # px


@pytest.mark.parametrize("width", WIDTHS)
def test_diagram_text_is_readable_as_drawn_or_gives_way_on_a_phone(diagram_tour, site, width, capsys):
    tour = diagram_tour(width)
    checked = folded = 0
    for url in diagram_pages(site):
        visit = tour[url]
        assert visit.ready, f"/{url}: not every diagram rendered: {visit.unready}"
        light = visit.reading["light"]
        assert len(light) == len(visit.folds) == len(visit.fullscreen), url
        for n, (d, fold, full) in enumerate(zip(light, visit.folds, visit.fullscreen)):
            where = f"/{url} diagram {n + 1} ({d['role']}) at {width} px"
            smallest = min(t["px"] for t in d["texts"])
            with capsys.disabled():
                print(f"\n{where}: text {smallest:.2f} px in the column"
                      f"{' (folded)' if fold['folded'] else ''}, {full['px']:.2f} px full screen", end="")
                if fold["folded"] and fold["table"]:
                    code = fold["table"]["codePx"]   # None: no code span in it
                    print(f"; its table {fold['table']['px']:.2f} px, code in it "
                          f"{f'{code:.2f} px' if code else 'none'}", end="")
            checked += 1
            assert full["px"] >= READABLE, f"{where}: text under {READABLE} px even full screen: {full}"
            if fold["folded"]:
                folded += 1
                assert width < 500, f"{where}: folded on a wide screen: {fold}"
                assert fold["button"] and fold["note"] and "too wide" in fold["note"], fold
                # its phone form: the table under it, shown at a readable size, names everything the diagram
                # draws (each line of every participant's, node's, edge's or axis' label)
                table = fold["table"]
                assert table and table["shown"], f"{where}: folded with no table under it to read instead"
                assert "table below" in fold["note"], fold
                assert table["px"] >= READABLE, f"{where}: its table's text is {table['px']} px"
                assert not table["codePx"] or table["codePx"] >= READABLE, \
                    f"{where}: the code in its table is {table['codePx']} px"
                missing = [w for w in fold["words"] if w not in table["text"]]
                assert len(fold["words"]) >= 3 and missing == [], \
                    f"{where}: its table does not name what the diagram shows: {missing}"
            else:
                assert smallest >= READABLE - 0.05, f"{where}: text {smallest:.2f} px as drawn: {d['texts'][:3]}"
    assert checked >= 5
    if width < 500:
        assert folded >= 1   # the sequence diagrams are far wider than a phone


# Drawn to fail: grey on grey text, a pale line, an arrowhead in use that is pale and one defined but unused
# that is black (the probe must skip it), on the page's own background.
FAINT = """
<div class="mermaid"><svg width="300" height="120" viewBox="0 0 300 120" aria-roledescription="probe">
  <defs><marker id="used"><path d="M0,0 L5,5" style="fill: #eee; stroke: none"></path></marker>
        <marker id="unused"><path d="M0,0 L5,5" style="fill: #000"></path></marker></defs>
  <rect x="0" y="0" width="300" height="60" style="fill: #777"></rect>
  <text x="10" y="30" style="fill: #888; font-size: 16px">grey on grey</text>
  <text x="10" y="90" style="fill: #000; font-size: 8px">black, small</text>
  <line x1="0" y1="110" x2="300" y2="110" style="stroke: #ddd; stroke-width: 2" marker-end="url(#used)"></line>
</svg></div>
"""


@pytest.mark.browser
def test_the_reading_probe_catches_faint_text_lines_and_arrowheads(browser, site_server):
    browser.open(site_server)
    browser.evaluate(f"document.querySelector('article').innerHTML = {json.dumps(FAINT)}; true")
    [d] = browser.evaluate(READING)
    texts = {t["what"]: t for t in d["texts"]}
    assert texts["grey on grey"]["contrast"] < 1.5 and texts["black, small"]["contrast"] > 15, d["texts"]
    assert texts["black, small"]["px"] == 8, d["texts"]
    lines = {l["what"]: l["contrast"] for l in d["lines"]}
    assert lines["line"] < 1.5 and lines["path (marker)"] < 1.5, d["lines"]
    assert len([l for l in d["lines"] if l["what"] == "path (marker)"]) == 1, d["lines"]   # the unused one skipped


# A folded sequence diagram whose table names one participant but not the other, and a flowchart with no
# table before the next heading: the fold probe must see the gap and the missing table.
FOLDED = """
<div class="panzoom-box diagram-folded"><div class="diagram-fold">too wide; the table below
  <button class="diagram-open">Open</button></div>
  <div class="mermaid" style="display: none"><svg aria-roledescription="sequence">
    <g><rect class="actor"></rect><text class="actor">named worker</text><text class="actor">vllm</text></g>
    <g><rect class="actor"></rect><text class="actor">unnamed helper</text></g></svg></div></div>
<p>legend</p>
<table><tr><th>In the diagram</th></tr><tr><td>named worker (<code>vllm</code>)</td></tr></table>
<div class="panzoom-box diagram-folded"><div class="mermaid"><svg aria-roledescription="flowchart-v2">
  <g class="node"><foreignObject><div><span class="nodeLabel"><p>first<br>stage</p></span></div></foreignObject></g>
</svg></div></div>
<h2>Next</h2>
<table><tr><td>first stage</td></tr></table>
"""


@pytest.mark.browser
def test_the_fold_probe_sees_a_label_its_table_leaves_out_and_a_missing_table(browser, site_server):
    browser.open(site_server)
    browser.evaluate(f"document.querySelector('article').innerHTML = {json.dumps(FOLDED)}; true")
    sequence, flowchart = browser.evaluate(FOLDS)
    assert sequence["folded"] and sequence["button"] and not sequence["diagramShown"]
    assert sequence["words"] == ["named worker", "vllm", "unnamed helper"]
    assert sequence["table"]["shown"] and sequence["table"]["px"] >= READABLE
    assert [w for w in sequence["words"] if w not in sequence["table"]["text"]] == ["unnamed helper"]
    assert flowchart["words"] == ["first", "stage"] and flowchart["table"] is None
