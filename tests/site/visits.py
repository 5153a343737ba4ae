"""Shared page visits: each page of the built site is loaded in Chromium once per way of looking at it, and
every probe the browser tests need is read during that one visit.

Loading a page (and letting mermaid draw its diagrams) is what costs CPU in the browser tests; the probes
themselves are a few milliseconds of JavaScript. So instead of each test loading the pages it looks at, two
tours collect what the tests assert on, and the tests then assert exactly what they asserted before:

- the plain tour: every page in the browser's own window (1280 x 1800, no emulation), as the tests of
  requests, rendered diagrams and paragraphs always loaded them;
- the diagram tour, once per width (1280 and 390 px, through `viewport`): every page with a diagram, plus
  the pages whose tables are checked at phone width.

Within one visit the probes that only read the page run first, then the fullscreen round trip (which puts the
diagram back as it was), then the screenshots (which hide the sidebar and let a diagram overflow). The
screenshots are written into `shots` (artifacts/), as the tests wrote them before.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.site.html_pages import read_site

# every diagram of the page drawn as an SVG
ALL_RENDERED = ("(() => { const d = [...document.querySelectorAll('div.mermaid')];"
                " return d.length > 0 && d.every(e => e.querySelector('svg')); })()")
SVG_FACTS = ("[...document.querySelectorAll('div.mermaid')].map(d => { const s = d.querySelector('svg');"
             " return {role: s.getAttribute('aria-roledescription'), text: s.textContent,"
             " nodes: s.querySelectorAll('g.node, g.actor, rect.actor, text.actor, g.plot rect').length}; })")

# The text of every paragraph of the page's article that does not end like a sentence. Admonition titles
# are headings, and the labels mermaid draws inside its SVGs are <p> elements too: both are left out.
BROKEN_PARAGRAPHS = r"""
[...document.querySelectorAll('article p')]
  .filter(p => !p.classList.contains('admonition-title') && !p.closest('.mermaid, svg'))
  .map(p => p.textContent.replace(/\s+/g, ' ').trim())
  .filter(t => t && !/[.:;!?)\]"'\u201d\u2019\u2026]$/.test(t))
"""
# The article's paragraphs, not counting the labels mermaid draws as <p> inside its SVGs: the plain tour
# counts after the diagrams are drawn, and those labels are not paragraphs a reader meets.
PARAGRAPH_COUNT = "[...document.querySelectorAll('article p')].filter(p => !p.closest('.mermaid, svg')).length"

# Every inline code span of the article (tables, lists, prose) that holds a dotted name or a path with two
# dots or slashes or more: its parts (split after each, where the site puts a <wbr>) and, for each part, the
# number of lines it was laid out on.
FQN_PARTS = r"""
[...document.querySelectorAll('article :not(pre) > code')].filter(c => c.textContent.split(/[.\/]/).length > 2).map(c => ({
  name: c.textContent, wbr: c.querySelectorAll('wbr').length,
  parts: [...c.childNodes].filter(n => n.nodeType === 3).map(n => {
    const r = document.createRange(); r.selectNodeContents(n);
    return [n.textContent, new Set([...r.getClientRects()].map(x => Math.round(x.top))).size];
  })}))
"""
# the pages whose dotted names and paths are checked at a phone's width: tables, and the lists of the actors
# page and a venv page
FQN_PAGES = ("concepts/workers/", "concepts/workflows/", "image/venvs/", "reference/actors/",
             "reference/venvs/DTensorPolicyWorkerV2/")

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

# READING: every diagram of the page as a reader sees it in the scheme now applied. For each piece of text
# (an SVG text or tspan, or HTML in a foreignObject, holding text of its own): its font size as rendered (the
# computed size times the SVG's scale on screen) and its contrast against what is painted behind it (the
# shapes and boxes under its centre, composited over the page). For each line, arrowhead in use, outline and
# chart bar: its contrast against what is behind it. Contrast is WCAG 2's relative-luminance ratio.
READING = r"""
// READING: every diagram of the page, as a reader sees it in the scheme now applied: for each piece of text,
// its rendered font size and its contrast against what is drawn behind it; for each line, arrow, outline and
// bar, its contrast against what is behind it. Contrast is WCAG 2's, colours composited over the page.
(() => {
  const parse = (c) => { const m = (c || '').match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const v = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const over = (top, under) => { const a = top[3]; return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat(1); };
  const lum = (c) => { const [r, g, b] = c.slice(0, 3).map(v => v / 255)
    .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const SHAPES = new Set(['rect', 'circle', 'ellipse', 'polygon', 'path']);
  const page = () => { let c = parse(getComputedStyle(document.body).backgroundColor);
    return c && c[3] > 0 ? over(c, [255, 255, 255, 1]) : [255, 255, 255, 1]; };
  // one element's own paint as a background: an SVG shape's fill, an HTML box's (or the svg's) background
  const paint = (e) => { const s = getComputedStyle(e);
    if (e instanceof SVGElement && e.tagName !== 'svg') {
      if (!SHAPES.has(e.tagName) || e.closest('marker')) return null;
      const c = parse(s.fill); if (!c) return null;
      return [c[0], c[1], c[2], c[3] * Number(s.fillOpacity) * Number(s.opacity)];
    }
    const c = parse(s.backgroundColor); return c && c[3] > 0 ? c : null; };
  // what is painted under a point of the screen, below `self` (left out, with everything above it)
  const behind = (x, y, self) => { const stack = document.elementsFromPoint(x, y);
    let i = stack.indexOf(self); const layers = [];
    for (const e of stack.slice(i < 0 ? 0 : i + (self instanceof SVGElement ? 1 : 0))) {
      if (e === self && self instanceof SVGElement) continue;
      if (e.closest && e.closest('.md-header, .md-sidebar, .md-tabs')) continue;
      const p = paint(e); if (!p || p[3] === 0) continue;
      layers.push(p); if (p[3] >= 1) break; }
    return layers.reverse().reduce((under, top) => over(top, under), page()); };
  // drawn at all: a box with some area, or a horizontal or vertical line (no area, one length)
  const visible = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return (r.width > 0 || r.height > 0) && s.visibility !== 'hidden' && s.display !== 'none'; };
  const centre = (e) => { e.scrollIntoView({block: 'center', inline: 'center'}); const r = e.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2]; };
  const scaleOf = (e) => { const g = e instanceof SVGGraphicsElement ? e : e.closest('foreignObject');
    const m = g && g.getScreenCTM(); return m ? Math.hypot(m.a, m.b) : 1; };
  return [...document.querySelectorAll('div.mermaid')].map(div => {
    const svg = div.querySelector('svg'); const texts = [], lines = [];
    if (!svg) return {role: null, texts, lines};
    // text: every element that holds text of its own (an SVG text or tspan, or HTML inside a foreignObject)
    const holders = new Set(); const walk = document.createTreeWalker(svg, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode())
      if (n.textContent.trim() && !n.parentElement.closest('style, title, desc, defs')) holders.add(n.parentElement);
    for (const e of holders) { if (!visible(e)) continue;
      const s = getComputedStyle(e);
      let fg = parse(e instanceof SVGElement ? s.fill : s.color); if (!fg) continue;
      const [x, y] = centre(e); const bg = behind(x, y, e);
      if (e instanceof SVGElement) fg = [fg[0], fg[1], fg[2], fg[3] * Number(s.fillOpacity)];
      texts.push({what: e.textContent.trim().slice(0, 40), px: +(parseFloat(s.fontSize) * scaleOf(e)).toFixed(2),
                  contrast: +ratio(over(fg, bg), bg).toFixed(2), fg: s[e instanceof SVGElement ? 'fill' : 'color']}); }
    // lines: every stroked shape or line (edges, messages, lifelines, outlines), arrowheads, and chart bars
    // arrowheads: the markers an edge or a message line ends or starts with (a diagram defines more)
    const used = new Set();
    for (const e of svg.querySelectorAll('[marker-end], [marker-start]'))
      for (const a of ['marker-end', 'marker-start']) { const m = (e.getAttribute(a) || '').match(/#([^)"']+)/);
        if (m) used.add(m[1]); }
    for (const e of svg.querySelectorAll('line, path, rect, polygon, circle, ellipse, polyline')) {
      const s = getComputedStyle(e); const marker = e.closest('marker'), inMarker = !!marker;
      if (inMarker && !used.has(marker.id)) continue;
      if (!inMarker && !visible(e)) continue;
      const bar = !!e.closest('g.plot');
      const paintName = bar ? 'fill' : (parse(s.stroke) && parseFloat(s.strokeWidth) > 0 && s.strokeOpacity !== '0' ? 'stroke' : (inMarker ? 'fill' : null));
      if (!paintName) continue;
      let c = parse(s[paintName]); if (!c || c[3] === 0) continue;
      c = [c[0], c[1], c[2], c[3] * Number(paintName === 'fill' ? s.fillOpacity : s.strokeOpacity) * Number(s.opacity)];
      let bg;
      if (inMarker) { const r = div.getBoundingClientRect(); div.scrollIntoView({block: 'center'});
        const q = div.getBoundingClientRect(); bg = behind(q.left + 3, q.top + 3, null); }
      else if (e.getTotalLength && paintName === 'stroke') {
        e.scrollIntoView({block: 'center', inline: 'center'});
        const p = e.getPointAtLength(e.getTotalLength() / 2), m = e.getScreenCTM();
        bg = behind(p.x * m.a + p.y * m.c + m.e, p.x * m.b + p.y * m.d + m.f, e); }
      else { const [x, y] = centre(e); bg = behind(x, y, e); }
      const cls = (e.getAttribute('class') || '').split(/\s+/)[0];
      lines.push({what: e.tagName + (cls ? '.' + cls : '') + (inMarker ? ' (marker)' : ''), paint: paintName,
                  contrast: +ratio(over(c, bg), bg).toFixed(2), color: s[paintName]}); }
    return {role: svg.getAttribute('aria-roledescription'), texts, lines,
            scheme: document.body.getAttribute('data-md-color-scheme')};
  });
})()
"""
# the two colour schemes a reader's system asks for; Material's palette (mkdocs.yml) follows it by default
SCHEMES = {"light": "default", "dark": "slate"}


def read_in_schemes(browser) -> dict[str, list[dict]]:
    """READING once per scheme: the system's preference emulated, and Material's palette (set to follow it)
    given the time to switch; the page is left in the light scheme."""
    out = {}
    try:
        for name, scheme in SCHEMES.items():
            browser.page("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": name}])
            switched = browser.wait_for(f"document.body.getAttribute('data-md-color-scheme') === '{scheme}'")
            out[name] = browser.evaluate(READING) if switched else []
    finally:
        browser.page("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": "light"}])
    return out


@contextmanager
def unfolded(browser):
    """The diagrams folded on a phone (docs/assets/site/site.js) shown in the column for a measure that
    does not depend on their size (colours, a chart's bars and values), then folded again."""
    browser.evaluate("document.querySelectorAll('.diagram-folded').forEach(b => {"
                     " b.classList.remove('diagram-folded'); b.dataset.refold = '1'; }); true")
    try:
        yield
    finally:
        browser.evaluate("document.querySelectorAll('[data-refold]').forEach(b => {"
                         " b.classList.add('diagram-folded'); delete b.dataset.refold; }); true")


# How each diagram is offered (docs/assets/site/site.js): drawn in the column, drawn at a readable scale and
# scrolled in its box ("wide"), or folded to a notice with a button that opens it full screen ("folded").
# Its phone form: the table that follows it in its section (up to the next heading or diagram), its text, the
# font size of its cells and of the code spans in them (Material draws code at 0.85 em) as laid out (0 when
# not shown), and the diagram's own words it must hold: each line of a
# participant's or a node's label, each edge label's line, a chart's category and axis labels.
FOLDS = r"""[...document.querySelectorAll('div.mermaid')].map(d => {
  const box = d.closest('.panzoom-box'), note = box && box.querySelector('.diagram-fold');
  const button = note && note.querySelector('button.diagram-open');
  const svg = d.querySelector('svg'), role = svg && svg.getAttribute('aria-roledescription');
  const lines = (e) => e.innerHTML.split(/<br\s*\/?>/i).map(h => { const t = document.createElement('div');
    t.innerHTML = h; return t.textContent.replace(/\s+/g, ' ').trim(); });
  const words = !svg ? [] : role === 'sequence' ? [...svg.querySelectorAll('text.actor')].map(t => t.textContent.trim())
    : role === 'xychart' ? [...svg.querySelectorAll('.left-axis text, .bottom-axis text')].map(t => t.textContent.trim())
    : [...svg.querySelectorAll('.nodeLabel, span.edgeLabel')].flatMap(lines);
  let table = null;
  for (let next = (box || d).nextElementSibling; next && !table && !/^H\d$/.test(next.tagName)
       && !next.classList.contains('panzoom-box') && !next.querySelector('div.mermaid'); next = next.nextElementSibling)
    table = next.tagName === 'TABLE' ? next : next.querySelector('table');
  const shown = !!table && table.getBoundingClientRect().height > 0;
  const cells = table ? [...table.querySelectorAll('th, td')] : [];
  return {folded: !!box && box.classList.contains('diagram-folded'), wide: !!box && box.classList.contains('diagram-wide'),
          diagramShown: d.getBoundingClientRect().height > 0,
          note: note && note.getBoundingClientRect().height > 0 ? note.textContent.trim() : null,
          button: !!button && button.getBoundingClientRect().height > 0,
          words: [...new Set(words.filter(Boolean))],
          table: table ? {shown, text: table.textContent.replace(/\s+/g, ' '),
                          px: shown ? Math.min(...cells.map(c => parseFloat(getComputedStyle(c).fontSize))) : 0,
                          codePx: shown ? Math.min(...[...table.querySelectorAll('code')].map(c =>
                            parseFloat(getComputedStyle(c).fontSize)), Infinity) : 0} : null};
})"""


# the page's diagrams, those drawn as an SVG, and those the panzoom plugin's script has taken over in their box
# (it looks once a second), with where the page is: what READY judges, and what a page not ready reports
STATE = ("(() => { const d = [...document.querySelectorAll('div.mermaid')];"
         " return {diagrams: d.length, drawn: d.filter(e => e.querySelector('svg')).length,"
         " boxed: document.querySelectorAll('.panzoom-box div.mermaid[data-zoom]').length,"
         " readyState: document.readyState, path: location.pathname}; })()")
# every diagram drawn, and each box taken over
READY = f"(s => s.diagrams > 0 && s.drawn === s.diagrams && s.boxed === s.diagrams)({STATE})"


def script_errors(events: list[dict]) -> list[str]:
    """The exceptions a page's scripts threw, and the errors they logged, among the browser's `events`."""
    out = []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            out.append(f"script error: {details.get('exception', {}).get('description') or details.get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            out.append("console error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                    for a in params.get("args", [])))
    return out

# One tap on a diagram's fullscreen button: the box covers the screen and the diagram is drawn at its natural
# size (its viewBox width), its labels as large as mermaid sets them (px: the smallest font as drawn); panzoom
# then pans it. One tap on its exit button gives the diagram back its size before.
FULLSCREEN = r"""
(async (n) => {
  const box = document.querySelectorAll('.panzoom-box')[n];
  box.scrollIntoView();
  const before = box.querySelector('div.mermaid svg').getBoundingClientRect().width;
  box.querySelector('.panzoom-max').click();
  await new Promise(r => setTimeout(r, 100));
  const svg = box.querySelector('div.mermaid svg'), r = svg.getBoundingClientRect(), b = box.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text, .nodeLabel, .edgeLabel span')].map(t => t.getBoundingClientRect().height).filter(h => h > 0);
  // the font size as drawn: each text's computed size times the scale it is drawn at
  const px = [...svg.querySelectorAll('text, tspan, foreignObject *')].filter(t => t.textContent.trim()).map(t => {
    const g = t instanceof SVGGraphicsElement ? t : t.closest('foreignObject'), m = g.getScreenCTM();
    return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); });
  const out = {natural: svg.viewBox.baseVal.width, drawn: r.width, box: [b.left, b.top, b.width, b.height],
               screen: [document.documentElement.clientWidth, document.documentElement.clientHeight], position: getComputedStyle(box).position,
               text: texts.length ? Math.min(...texts) : 0, px: px.length ? Math.min(...px) : 0, zoomable: !!box.querySelector('div.mermaid[data-zoom]')};
  box.querySelector('.panzoom-min').click();
  await new Promise(r => setTimeout(r, 100));
  // back as it was: in the column, or at the readable width it scrolls at (0 when folded, on a phone)
  out.back = Math.abs(svg.getBoundingClientRect().width - before) <= 1;
  return out;
})
"""

# The size page as a reader meets it: its headings, each bar chart's bars, printed values, contrast and the
# names in the table under it, and the headers of every table.
SIZE_PAGE = r"""(() => {
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
SIZE_PAGE_URL = "image/layering/"

# The panzoom plugin saves each box's zoom in localStorage 200 ms after it changes, and the fullscreen round
# trip's exit resets it (to no zoom, which is saved too, unless the page is left first). At the end of a tour,
# once the last page's save is done, the saved zooms are removed: the other width's tour then starts as a
# first visit does, as the layout was measured when each test loaded the pages itself and no tap came before.
FORGET_ZOOM = ("new Promise(r => setTimeout(r, 400)).then(() => {"
               " Object.keys(localStorage).filter(k => k.startsWith('panzoom-')).forEach(k => localStorage.removeItem(k));"
               " return true; })")


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


def measure(browser) -> list[dict]:
    browser.evaluate(LAYOUT)
    return browser.evaluate("[...document.querySelectorAll('div.mermaid')].map(d => window.__layout(d))")


def diagram_pages(site) -> list[str]:
    return [url for url, page in read_site(site).items() if page.mermaid_sources]


@dataclass
class PlainVisit:
    """One page in the browser's own window."""
    events: list[dict]               # every event from the navigation until the next page's (requests among them)
    rendered: object = None          # ALL_RENDERED's answer, for a page with diagrams (None: none expected)
    svgs: list[dict] | None = None   # SVG_FACTS, once every diagram was drawn
    paragraphs: int = 0              # PARAGRAPH_COUNT
    broken: list[str] = field(default_factory=list)   # BROKEN_PARAGRAPHS
    shot: bytes | None = None        # the workflows page: a PNG of its first diagram, as captured now


# the plain tour's one screenshot: the workflows page's first diagram (the DPO sequence)
WORKFLOWS = "concepts/workflows/"


def plain_tour(browser, site: Path, base: str, shots: Path) -> dict[str, PlainVisit]:
    out, visit = {}, None
    for url, page in read_site(site).items():
        if visit is not None:   # what the last page did after its probes ran is still that page's doing
            visit.events += browser.drain_events()
        visit = PlainVisit(events=browser.open(base + url))
        if page.mermaid_sources:  # let mermaid finish: it is what would fetch anything late
            visit.rendered = browser.wait_for(ALL_RENDERED)
            if visit.rendered:
                visit.svgs = browser.evaluate(SVG_FACTS)
        visit.events += browser.drain_events()
        visit.paragraphs = browser.evaluate(PARAGRAPH_COUNT)
        visit.broken = browser.evaluate(BROKEN_PARAGRAPHS)
        if url == WORKFLOWS and visit.rendered:
            visit.shot = browser.screenshot(shots / "site-workflows-dpo.png", selector="div.mermaid svg",
                                            hide=".md-sidebar")
        out[url] = visit
    if visit is not None:
        visit.events += browser.drain_events()
    browser.open("about:blank")   # an idle site page still runs its timers
    return out


@dataclass
class DiagramVisit:
    """One page at one width (the `viewport`)."""
    ready: object = None                  # READY's answer (None: the page has no diagram)
    unready: dict | None = None           # not ready: STATE's answer and the page's script errors
    page_width: list[int] | None = None   # [documentElement.scrollWidth, innerWidth]
    layouts: list[dict] = field(default_factory=list)      # measure(): one per diagram
    fullscreen: list[dict] = field(default_factory=list)   # FULLSCREEN: one per pan-and-zoom box
    size_page: dict | None = None         # SIZE_PAGE, on the size page
    fqn: list[dict] | None = None         # FQN_PARTS, on FQN_PAGES at a phone's width
    reading: dict[str, list[dict]] = field(default_factory=dict)   # READING per scheme (read_in_schemes)
    folds: list[dict] = field(default_factory=list)   # FOLDS: one per diagram


def diagram_tour(browser, site: Path, base: str, width: int, shots: Path) -> dict[str, DiagramVisit]:
    pages = diagram_pages(site)
    urls = pages + [u for u in FQN_PAGES if u not in pages] if width < 500 else pages
    out = {}
    with viewport(browser, width):
        for url in urls:
            events = browser.open(base + url)
            visit = out[url] = DiagramVisit()
            drawn = url in pages and bool(browser.wait_for(READY))
            if url in pages:
                visit.ready = drawn   # the tests fail on it; a page not drawn is not measured further
            if url in pages and not drawn:
                visit.unready = {**browser.evaluate(STATE),
                                 "errors": script_errors(events + browser.drain_events())}
            if drawn:
                visit.page_width = browser.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
                visit.folds = browser.evaluate(FOLDS)
                visit.layouts = measure(browser)
                with unfolded(browser):
                    visit.reading = read_in_schemes(browser)
                    if url == SIZE_PAGE_URL:
                        visit.size_page = browser.evaluate(SIZE_PAGE)
            if width < 500 and url in FQN_PAGES:
                visit.fqn = browser.wait_for(FQN_PARTS) or []
            if drawn:
                for n in range(browser.evaluate("document.querySelectorAll('.panzoom-box').length")):
                    visit.fullscreen.append(browser.evaluate(f"({FULLSCREEN})({n})"))
                if url == WORKFLOWS:
                    browser.screenshot(shots / f"site-workflows-{width}.png", selector=".panzoom-box",
                                       hide=".md-sidebar")
                if url == SIZE_PAGE_URL:
                    browser.screenshot(shots / f"site-size-{width}.png",
                                       selector=".panzoom-box:has(svg[aria-roledescription=xychart])",
                                       hide=".md-sidebar")
        browser.evaluate(FORGET_ZOOM)   # the pages share one localStorage: this clears every page's
        browser.open("about:blank")
    return out

