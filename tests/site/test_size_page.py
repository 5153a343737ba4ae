"""The size page as a reader meets it in Chromium at 1280 px and 390 px: the production image's section comes
first, the stand-in's figures sit under the hermetic test image's heading and are tabled as that image, and
each bar chart is honest: bars start at zero (lengths in proportion to the values), they stand out from the
page, every value printed at a bar's end is inside the chart, and the table under it names every bar in full."""

from __future__ import annotations

import json

import pytest

from tests.site.conftest import REPO
from tests.site.test_diagram_layout import ARTIFACTS, READY, viewport

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RECORD = json.loads((REPO / "docs/data/image-size.json").read_text())

PAGE = r"""(() => {
  const article = document.querySelector('article');
  const heads = [...article.querySelectorAll('h2, h3')].map(h => h.textContent.replace('¶', '').trim());
  const lum = (c) => { const [r, g, b] = c.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map(v => v / 255)
    .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const bg = lum(getComputedStyle(document.querySelector('.md-main')).backgroundColor.replace('rgba(0, 0, 0, 0)', 'rgb(255,255,255)'));
  const charts = [...article.querySelectorAll('div.mermaid svg[aria-roledescription="xychart"]')].map(svg => {
    const clip = svg.getBoundingClientRect();
    const bars = [...svg.querySelectorAll('g.plot rect')].map(r => { const b = r.getBoundingClientRect();
      return {x: b.left, w: b.width, fill: getComputedStyle(r).fill}; });
    const values = [...svg.querySelectorAll('g.plot text')].map(t => { const b = t.getBoundingClientRect();
      return {text: t.textContent, inside: b.left >= clip.left - 1 && b.right <= clip.right + 1}; });
    const fill = bars.length ? lum(bars[0].fill) : bg;
    const contrast = (Math.max(fill, bg) + 0.05) / (Math.min(fill, bg) + 0.05);
    let table = svg.closest('.panzoom-box') || svg.closest('div.mermaid');
    while (table && table.tagName !== 'TABLE') table = table.nextElementSibling && table.nextElementSibling.querySelector
      ? (table.nextElementSibling.tagName === 'TABLE' ? table.nextElementSibling : table.nextElementSibling.querySelector('table') || table.nextElementSibling) : null;
    const names = table ? [...table.querySelectorAll('tbody tr')].map(tr => tr.children[1].textContent) : [];
    return {title: svg.querySelector('.chart-title text, g.chart-title text')?.textContent || '', bars, values, contrast, names};
  });
  const tables = [...article.querySelectorAll('table')].map(t => [...t.querySelectorAll('th')].map(th => th.textContent.trim()));
  return {heads, charts, tables};
})()"""


@pytest.mark.parametrize("width", (1280, 390))
def test_the_size_page_leads_with_production_and_its_charts_are_honest(browser, site, site_server, width):
    with viewport(browser, width):
        browser.open(site_server + "image/layering/")
        assert browser.wait_for(READY)
        facts = browser.evaluate(PAGE)
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
        ARTIFACTS.mkdir(exist_ok=True)
        browser.screenshot(ARTIFACTS / f"site-size-{width}.png", selector="svg[aria-roledescription=xychart]",
                           hide=".md-sidebar")
