// Jupyter's trust model, the page's half: HTML, SVG and Markdown that did not come from this session's kernel
// (a file, a ?open= URL, an upload, the IndexedDB autosave) and every Markdown cell pass DOMPurify before they
// touch the DOM. The Content-Security-Policy (py/webtorch_devtools/notebook_app.py) is the second wall.
import { DOMPurify } from "./build/vendor.js";

const CONFIG = {
  USE_PROFILES: { html: true, svg: true, svgFilters: true, mathMl: true },  // MathML: KaTeX's output
  FORBID_TAGS: ["style", "form"],  // a stylesheet would restyle the whole app; a form could post elsewhere
  FORBID_ATTR: ["action", "formaction"],
};

// links from a notebook open in a new tab and cannot reach back into the app (window.opener)
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** `html` with everything that could run script, load a frame or submit a form removed. */
export function sanitizeHTML(html) {
  return DOMPurify.sanitize(html, CONFIG);
}
