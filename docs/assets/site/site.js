// Three things the theme and the diagram plugins leave to the site.
//
// 1. Material's instant navigation swaps in the next page's content without a new load event, so mermaid
//    (started on load by the mermaid2 plugin) never sees that page's diagrams. After each such swap, draw the
//    diagrams still waiting as text: with the mermaid already loaded and configured by an earlier page, or,
//    when no earlier page had a diagram, by loading the page in full, as a browser without instant
//    navigation would have done (the page's own scripts then load and configure mermaid from the site).
// 2. A diagram shrinks to the text column (mermaid's useMaxWidth), but never so far that its text drops under
//    12 px (READABLE_PX). The diagrams are made narrow enough to fit the column of a 1280 px screen that way
//    (docgen's short labels, mkdocs.yml's sequence settings); one that still does not fit, on a screen
//    between a phone's and a desktop's, is drawn at the smallest scale that keeps its text at 12 px and
//    scrolls sideways in its own box (the page itself never does). On a narrow screen (under FOLD_BELOW px)
//    such a diagram gives way instead to its phone form: the box shows one line with a button that opens it
//    full screen, above the table docgen renders under every diagram, which names all that it draws (the
//    image graph's stages, the build's and each job's participants, each chart's figures). The panzoom plugin's fullscreen button would show the diagram at the screen's
//    width, still too small on a phone, so in fullscreen it is given its natural width (from its viewBox)
//    and is read by panning; leaving fullscreen gives the column back.
// 3. A dotted name or a path in inline code, anywhere in a page (tables, lists, prose), may break after each
//    dot and slash (a <wbr>), so a narrow column wraps `nemo_rl.models.policy.workers.X` or
//    `/opt/ray_venvs/...` between its parts rather than in the middle of a word (diagrams.css keeps it from
//    breaking anywhere else, unless one part alone is wider than the line).
// 4. The diagrams' colours, as Material's own mermaid integration draws them: mermaid is given this
//    stylesheet as its themeCSS (mkdocs.yml: `themeCSS: ^window.siteDiagramCSS`, read when mermaid2's
//    script initialises mermaid, after this file), and every colour in it is one of Material's
//    --md-mermaid-* variables, which docs/assets/css/diagrams.css sets for the light and the dark scheme.
//    The SVG sits in the page, so the variables resolve there and the toggle recolours a drawn diagram.
window.siteDiagramCSS = [
  // flowcharts: nodes, edges, arrowheads, edge labels, subgraphs
  ".node rect, .node circle, .node ellipse, .node polygon, .node path"
  + " { fill: var(--md-mermaid-node-bg-color); stroke: var(--md-mermaid-node-fg-color); }",
  ".nodeLabel, .nodeLabel p, .label, .cluster span { color: var(--md-mermaid-label-fg-color); }",
  ".edgePath .path, .flowchart-link { stroke: var(--md-mermaid-edge-color); }",
  "marker path, marker circle, marker polygon, .arrowheadPath { fill: var(--md-mermaid-edge-color) !important;"
  + " stroke: var(--md-mermaid-edge-color) !important; }",
  ".edgeLabel, .edgeLabel p, .edgeLabel span { color: var(--md-mermaid-label-fg-color);"
  + " background-color: var(--md-mermaid-label-bg-color); }",
  ".edgeLabel rect, .labelBkg { fill: var(--md-mermaid-label-bg-color); background-color: transparent; }",
  ".cluster rect { fill: var(--md-mermaid-node-bg-color); stroke: var(--md-mermaid-node-fg-color); }",
  // sequence diagrams: participants, lifelines, messages, notes, loop and alt frames
  "rect.actor { fill: var(--md-mermaid-sequence-actor-bg-color);"
  + " stroke: var(--md-mermaid-sequence-actor-border-color); }",
  "text.actor, text.actor > tspan { fill: var(--md-mermaid-sequence-actor-fg-color); stroke: none; }",
  ".actor-line { stroke: var(--md-mermaid-sequence-actor-line-color); }",
  ".messageLine0, .messageLine1 { stroke: var(--md-mermaid-sequence-message-line-color); }",
  ".messageText { fill: var(--md-mermaid-sequence-message-fg-color); stroke: none; }",
  "#arrowhead path, #crosshead path, #filled-head path { fill: var(--md-mermaid-sequence-message-line-color);"
  + " stroke: var(--md-mermaid-sequence-message-line-color); }",
  ".note { fill: var(--md-mermaid-sequence-note-bg-color); stroke: var(--md-mermaid-sequence-note-border-color); }",
  ".noteText, .noteText > tspan { fill: var(--md-mermaid-sequence-note-fg-color); stroke: none; }",
  ".loopLine { fill: var(--md-mermaid-sequence-loop-bg-color); stroke: var(--md-mermaid-sequence-loop-border-color); }",
  ".loopText, .loopText > tspan, .sectionTitle { fill: var(--md-mermaid-sequence-loop-fg-color); stroke: none; }",
  ".labelBox { fill: var(--md-mermaid-sequence-label-bg-color); stroke: var(--md-mermaid-sequence-loop-border-color); }",
  ".labelText, .labelText > tspan { fill: var(--md-mermaid-sequence-label-fg-color); stroke: none; }",
  // bar charts (the size page): no white card in the dark scheme, its words in the page's text colour
  // (the bars keep themeVariables' colour, which reads on both schemes)
  ".background { fill: transparent; }",
  ".chart-title text, .left-axis text, .bottom-axis text, .top-axis text, .right-axis text, .plot text"
  + " { fill: var(--md-mermaid-label-fg-color); }",
  ".left-axis path, .bottom-axis path, .top-axis path, .right-axis path { stroke: var(--md-mermaid-edge-color); }",
].join("\n");

(function () {
  function breakAfterDots(root) {
    root.querySelectorAll("article :not(pre) > code").forEach(function (code) {
      if (code.dataset.wbr || code.children.length || !/[.\/]/.test(code.textContent)) return;
      var parts = code.textContent.split(/(?<=[.\/])/);
      if (parts.length < 3) return;
      code.textContent = "";
      parts.forEach(function (part, i) {
        if (i) code.appendChild(document.createElement("wbr"));
        code.appendChild(document.createTextNode(part));
      });
      code.dataset.wbr = "1";
    });
  }

  var READABLE_PX = 12, FOLD_BELOW = 600;

  // the smallest font of the diagram's text, in the SVG's own units (its size at the natural width)
  function naturalFontPx(svg) {
    var sizes = [].map.call(svg.querySelectorAll("text, tspan, foreignObject *"), function (e) {
      return e.textContent.trim() ? parseFloat(getComputedStyle(e).fontSize) : Infinity;
    });
    return Math.min.apply(null, sizes.concat([Infinity]));
  }

  function fit(div) {
    var svg = div.querySelector("svg"), box = div.closest(".panzoom-box") || div;
    if (!svg || !svg.viewBox.baseVal || !svg.viewBox.baseVal.width || box.classList.contains("panzoom-fullscreen")) return;
    box.classList.remove("diagram-wide", "diagram-folded");
    if (div.dataset.maxWidth === undefined) div.dataset.maxWidth = svg.style.maxWidth;   // mermaid's own
    svg.style.width = "";
    svg.style.maxWidth = div.dataset.maxWidth;
    var natural = svg.viewBox.baseVal.width, font = naturalFontPx(svg);
    if (!isFinite(font)) return;
    var style = getComputedStyle(div);
    var column = div.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    var least = Math.min(1, READABLE_PX / font);           // the smallest scale that keeps 12 px text
    if (natural * least <= column + 0.5) return;            // fits the column at a readable size
    if (window.innerWidth < FOLD_BELOW) {
      box.classList.add("diagram-folded");
    } else {
      box.classList.add("diagram-wide");
      svg.style.maxWidth = "none";
      svg.style.width = Math.ceil(natural * least) + "px";
    }
  }

  function foldNotice(div) {
    var box = div.closest(".panzoom-box");
    if (!box || box.querySelector(".diagram-fold")) return;
    var note = document.createElement("div");   // a control, not a paragraph of the page
    note.className = "diagram-fold";
    // the table that follows the diagram in its section (legend lines and what the table counts may stand
    // between), as Material wraps it: up to the next heading or the next diagram
    var table = null;
    for (var next = box.nextElementSibling; next && !table && !/^H\d$/.test(next.tagName) &&
         !next.classList.contains("panzoom-box"); next = next.nextElementSibling)
      table = next.tagName === "TABLE" ? next : next.querySelector("table");
    // the diagram's phone form: on a phone its code spans are drawn at 12 px too (diagrams.css)
    if (table) table.setAttribute("data-diagram-form", "");
    note.appendChild(document.createTextNode("This diagram is too wide to read on this screen"
      + (table ? "; the table below lists what it shows. " : ". ")));
    var open = document.createElement("button");
    open.type = "button";
    open.className = "md-button diagram-open";
    open.textContent = "Open the diagram full screen";
    open.addEventListener("click", function () { box.querySelector(".panzoom-max").click(); });
    note.appendChild(open);
    box.insertBefore(note, box.firstChild);
  }

  function watch(root) {
    root.querySelectorAll("div.mermaid").forEach(function (div) {
      if (div.dataset.fitWatch) return;
      div.dataset.fitWatch = "1";
      var settle = function () {
        if (!div.querySelector("svg")) return;
        fit(div);
        foldNotice(div);
      };
      new MutationObserver(settle).observe(div, { childList: true });
      // the panzoom plugin wraps the diagram in its box after mermaid draws it
      new MutationObserver(settle).observe(div.parentElement, { childList: true });
      settle();
    });
  }
  var resizing;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () { document.querySelectorAll("div.mermaid").forEach(fit); }, 100);
  });

  var first = true;
  document$.subscribe(function () {
    breakAfterDots(document);
    watch(document);
    if (first) { first = false; return; }   // the first page is a full load: mermaid2's script draws it
    var waiting = document.querySelectorAll("div.mermaid:not([data-processed])");
    if (!waiting.length) return;
    if (window.mermaid && typeof window.mermaid.run === "function") {
      window.mermaid.run({ nodes: waiting });
    } else {
      location.reload();
    }
  });

  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element && event.target.closest(".panzoom-max, .panzoom-min");
    if (!button) return;
    var svg = button.closest(".panzoom-box").querySelector("div.mermaid svg");
    if (!svg) return;
    if (button.classList.contains("panzoom-max") && svg.viewBox.baseVal && svg.viewBox.baseVal.width) {
      svg.classList.add("diagram-natural");
      svg.style.width = svg.viewBox.baseVal.width + "px";
    } else {
      svg.classList.remove("diagram-natural");
      svg.style.width = "";
      // after the plugin has left fullscreen: the column's size (or the readable one) again
      setTimeout(function () { fit(svg.closest("div.mermaid")); }, 0);
    }
  }, true);
})();
