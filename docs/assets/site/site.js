// Three things the theme and the diagram plugins leave to the site.
//
// 1. Material's instant navigation swaps in the next page's content without a new load event, so mermaid
//    (started on load by the mermaid2 plugin) never sees that page's diagrams. After each such swap, draw the
//    diagrams still waiting as text: with the mermaid already loaded and configured by an earlier page, or,
//    when no earlier page had a diagram, by loading the page in full, as a browser without instant
//    navigation would have done (the page's own scripts then load and configure mermaid from the site).
// 2. A diagram shrinks to the text column (mermaid's useMaxWidth). The panzoom plugin's fullscreen button
//    would show it at the screen's width, still too small on a phone, so in fullscreen the diagram is given
//    its natural width (from its viewBox) and is read by panning; leaving fullscreen gives the column back.
// 3. A fully qualified name in a table cell may break after each dot (a <wbr>), so a narrow column wraps
//    `nemo_rl.models.policy.workers.X` between its parts rather than in the middle of a word.
(function () {
  function breakAfterDots(root) {
    root.querySelectorAll("article td code").forEach(function (code) {
      if (code.dataset.wbr || code.children.length || code.textContent.indexOf(".") < 0) return;
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

  var first = true;
  document$.subscribe(function () {
    breakAfterDots(document);
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
    }
  }, true);
})();
