// Markdown cells and text/markdown outputs: markdown-it (raw HTML off, so a notebook cannot inject script).
import { MarkdownIt } from "./build/vendor.js";

const md = new MarkdownIt({ html: false, linkify: true, typographer: true });

export function renderMarkdown(source) {
  return md.render(source);
}
