// MathJax 3 for pymdownx.arithmatex (generic mode): \( ... \) inline, \[ ... \] display.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    tags: "none",
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
};

// Typeset again after Material's instant navigation swaps the page content.
if (typeof document$ !== "undefined") {
  document$.subscribe(() => {
    if (window.MathJax.typesetPromise) {
      window.MathJax.startup.output.clearCache();
      window.MathJax.typesetClear();
      window.MathJax.texReset();
      window.MathJax.typesetPromise();
    }
  });
}
