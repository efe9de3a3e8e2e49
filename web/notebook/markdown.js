// Markdown cells and text/markdown outputs: markdown-it with HTML allowed as in Jupyter, $inline$ and
// $$display$$ math typeset by KaTeX, and the result always sanitized (a Markdown cell is never trusted).
import { MarkdownIt, katex } from "./build/vendor.js";
import { sanitizeHTML } from "./sanitize.js";

const md = new MarkdownIt({ html: true, linkify: true, typographer: true });

// An inline rule: `$...$` (no space just inside the dollars, so "$5 and $6" stays text) and `$$...$$`.
function math(state, silent) {
  const src = state.src;
  if (src[state.pos] !== "$") return false;
  const fence = src[state.pos + 1] === "$" ? "$$" : "$";
  const start = state.pos + fence.length;
  let end = src.indexOf(fence, start);
  while (end > 0 && src[end - 1] === "\\") end = src.indexOf(fence, end + 1);
  if (end < 0 || end === start) return false;
  if (fence === "$" && (/\s/.test(src[start]) || /\s/.test(src[end - 1]))) return false;
  if (!silent) {
    const token = state.push("math", "", 0);
    token.content = src.slice(start, end);
    token.markup = fence;
  }
  state.pos = end + fence.length;
  return true;
}

md.inline.ruler.after("escape", "math", math);
md.renderer.rules.math = (tokens, i) => katex.renderToString(tokens[i].content,
  { displayMode: tokens[i].markup === "$$", throwOnError: false });

/** Sanitized HTML of a Markdown source. */
export function renderMarkdown(source) {
  return sanitizeHTML(md.render(source));
}
