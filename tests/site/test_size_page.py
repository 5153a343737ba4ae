"""The size page as a reader meets it in Chromium at 1280 px and 390 px: the production image's section comes
first, the stand-in's figures sit under the hermetic test image's heading and are tabled as that image, and
each bar chart is honest: bars start at zero (lengths in proportion to the values), they stand out from the
page, every value printed at a bar's end is inside the chart, and the table under it names every bar in full."""

from __future__ import annotations

import json

import pytest

from tests.site.conftest import REPO

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RECORD = json.loads((REPO / "docs/data/image-size.json").read_text())


@pytest.mark.parametrize("width", (1280, 390))
def test_the_size_page_leads_with_production_and_its_charts_are_honest(diagram_tour, width):
    # the page as the diagram tour saw it at this width (tests/site/visits.py: SIZE_PAGE), which also writes
    # artifacts/site-size-{width}.png
    visit = diagram_tour(width)["image/layering/"]
    assert visit.ready, f"the size page's diagrams were not all drawn in a pan-and-zoom box: {visit.unready}"
    facts = visit.size_page
    heads = facts["heads"]
    assert heads.index("Production image") < heads.index("Hermetic test image"), heads
    # the stand-in's summary is tabled as the hermetic test image, never as "the image"
    assert ["Measure", "Hermetic test image"] in facts["tables"], facts["tables"]
    charts = facts["charts"]
    assert len(charts) == 2, charts
    layers = [l for l in RECORD["layers"] if l["bytes"]]
    venvs = sorted(RECORD["venvs"].values(), reverse=True)
    for chart, values, unit in ((charts[0], [l["bytes"] / 1e6 for l in layers], 1e6),
                                (charts[1], [v / 1e3 for v in venvs], 1e3)):
        bars = chart["bars"]
        assert len(bars) == len(values), chart
        # zero-based: every bar starts at the same place and its length is in proportion to its value
        start = min(b["x"] for b in bars)
        assert all(abs(b["x"] - start) < 0.5 for b in bars), bars
        top = max(values)
        scale = max(b["w"] for b in bars) / top
        for bar, value in zip(bars, values):
            assert abs(bar["w"] - value * scale) <= 1.0, (chart["title"], value, bar, scale)
        assert chart["contrast"] >= 3, f"bars barely stand out from the page: contrast {chart['contrast']:.2f}"
        assert chart["values"] and all(v["inside"] for v in chart["values"]), chart["values"]
    # the table under each chart names every bar in full (the record's step text, the venv's class name)
    assert charts[0]["names"] == [l["step"].strip() for l in layers], charts[0]["names"]
    assert len(charts[1]["names"]) == len(venvs)
