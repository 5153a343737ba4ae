// Material's instant navigation swaps in the next page's content without a new load event, so mermaid
// (started on load by the mermaid2 plugin) never sees that page's diagrams. After each such swap, draw the
// diagrams still waiting as text: with the mermaid already loaded and configured by an earlier page, or,
// when no earlier page had a diagram, by loading the page in full, as a browser without instant navigation
// would have done (the page's own scripts then load and configure mermaid from the site).
(function () {
  var first = true;
  document$.subscribe(function () {
    if (first) { first = false; return; }   // the first page is a full load: mermaid2's script draws it
    var waiting = document.querySelectorAll("div.mermaid:not([data-processed])");
    if (!waiting.length) return;
    if (window.mermaid && typeof window.mermaid.run === "function") {
      window.mermaid.run({ nodes: waiting });
    } else {
      location.reload();
    }
  });
})();
