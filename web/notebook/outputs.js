// Cell outputs, stored as nbformat 4 output objects and rendered into the page. Live outputs (plots,
// progress bars) carry a display id; an update replaces their data and redraws them in place.
import { uPlot } from "./build/vendor.js";
import { el } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { sanitizeHTML } from "./sanitize.js";

export const PLOT_MIME = "application/vnd.webtorch.plot+json";
export const PROGRESS_MIME = "application/vnd.webtorch.progress+json";
const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
const plots = new WeakMap();  // output element -> uPlot instance (for PNG snapshots when saving)

/** Stream text after `chunk`: a carriage return rewrites its line in place, as in a terminal (tqdm's
 * bars); finished lines are compacted so a long-running bar does not grow the text. */
export function appendStream(text, chunk) {
  const lines = (text + chunk).replace(/\r\n/g, "\n").split("\n");
  return lines.map((l, i) => {
    const j = l.lastIndexOf("\r");
    return j < 0 ? l : i === lines.length - 1 ? l.slice(j) : l.slice(j + 1);
  }).join("\n");
}

const streamText = (s) => s.replace(/\r/g, "");

function drawPlot(box, spec) {
  const names = Object.keys(spec.series || {});
  const data = [spec.x || [], ...names.map((n) => spec.series[n])];
  const old = plots.get(box);
  if (old && old._names === names.join("\u0001")) {
    old.setData(data);
    return;
  }
  if (old) old.destroy();
  box.replaceChildren();
  const width = Math.max(320, Math.min(760, (box.parentElement?.clientWidth || 700) - 16));
  const u = new uPlot({
    title: spec.title || undefined, width, height: 260,
    scales: { x: { time: false } },
    axes: [{ label: spec.xlabel || undefined }, { label: spec.ylabel || undefined }],
    series: [{ label: spec.xlabel || "x" }, ...names.map((n, i) => ({ label: n, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: true }))],
    cursor: { drag: { x: true, y: false } },
  }, data, box);
  u._names = names.join("\u0001");
  plots.set(box, u);
}

function fmtClock(s) {
  if (s == null || !isFinite(s)) return "?";
  s = Math.round(s);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : String(m).padStart(2, "0")) + ":" + String(sec).padStart(2, "0");
}

function drawProgress(box, p) {
  box.replaceChildren();
  const bar = el("progress");
  if (p.total) { bar.max = p.total; bar.value = Math.min(p.n, p.total); }
  const rate = p.rate ? `${p.rate < 10 ? p.rate.toFixed(2) : p.rate.toFixed(1)} ${p.unit}/s` : `? ${p.unit}/s`;
  const count = p.total ? `${p.n}/${p.total}` : `${p.n} ${p.unit}`;
  const text = `${p.desc ? p.desc + ": " : ""}${count} [${fmtClock(p.elapsed)}<${fmtClock(p.eta)}, ${rate}${p.postfix ? ", " + p.postfix : ""}]`;
  box.append(bar, el("span", "progress-text", text));
  box.classList.toggle("closed", Boolean(p.closed));
}

const text = (v) => [].concat(v ?? "").join("");

function htmlBlock(cls, html) {
  const div = el("div", cls);
  div.innerHTML = html;
  return div;
}

function image(mime, src, data, metadata) {
  const img = el("img", "image-output");
  img.src = src;
  const md = (metadata || {})[mime] || {};
  if (md.width) img.width = md.width;
  if (md.height) img.height = md.height;
  img.alt = text(data["text/plain"] || "image");
  return img;
}

const base64 = (v) => text(v).replace(/\n/g, "");

/** The MIME renderers, richest first (JupyterLab's rendermime ranking): an output shows through the first one
 * whose type its bundle holds. `render(box, value, {data, metadata, trusted})` fills `box` (the live ones, plot
 * and progress, redraw into what they drew before). HTML and SVG are sanitized unless this session's kernel
 * made them; Markdown always is (markdown.js). */
const RENDERERS = [
  { mime: PLOT_MIME, render: (box, spec) => drawPlot(box, spec) },
  { mime: PROGRESS_MIME, render: (box, p) => drawProgress(box, p) },
  { mime: "text/html", render: (box, v, { trusted }) =>
    box.replaceChildren(htmlBlock("html-output", trusted ? text(v) : sanitizeHTML(text(v)))) },
  { mime: "text/markdown", render: (box, v) => box.replaceChildren(htmlBlock("markdown-output", renderMarkdown(text(v)))) },
  // LaTeX outputs (IPython's Math and Latex, sympy) are text with $math$: the Markdown renderer typesets it
  { mime: "text/latex", render: (box, v) => box.replaceChildren(htmlBlock("latex-output", renderMarkdown(text(v)))) },
  { mime: "image/svg+xml", render: (box, v, { trusted }) =>
    box.replaceChildren(htmlBlock("svg-output", trusted ? text(v) : sanitizeHTML(text(v)))) },
  ...["image/png", "image/jpeg", "image/gif", "image/webp"].map((mime) => ({ mime, render: (box, v, { data, metadata }) =>
    box.replaceChildren(image(mime, `data:${mime};base64,${base64(v)}`, data, metadata)) })),
  { mime: "text/plain", render: (box, v) => box.replaceChildren(el("pre", "text-output", text(v))) },
];

function renderBundle(box, data, metadata, trusted) {
  const r = RENDERERS.find((c) => data[c.mime] !== undefined);
  if (box.dataset.mime !== r?.mime) {  // a display updated into another type: the old drawing goes
    plots.get(box)?.destroy();
    plots.delete(box);
    box.replaceChildren();
    box.dataset.mime = r?.mime ?? "";
  }
  if (r) r.render(box, data[r.mime], { data, metadata, trusted });
}

/** An element showing one nbformat output; `element.refresh()` redraws it after its data changed. `trusted`:
 * this session's kernel made it (HTML and SVG from anywhere else are sanitized). */
export function renderOutput(out, trusted) {
  const box = el("div", `output output-${out.output_type}`);
  box.dataset.trusted = String(Boolean(trusted));
  box.refresh = () => {
    if (out.output_type === "stream") {
      box.classList.toggle("stderr", out.name === "stderr");
      let pre = box.firstChild;
      if (!pre) box.append(pre = el("pre"));
      pre.textContent = streamText([].concat(out.text).join(""));
    } else if (out.output_type === "error") {
      box.replaceChildren(el("pre", "error-output", [].concat(out.traceback || [`${out.ename}: ${out.evalue}`]).join("\n")));
    } else {
      renderBundle(box, out.data || {}, out.metadata, trusted);
    }
  };
  box.refresh();
  return box;
}

/** PNG snapshot (base64) of a drawn plot, so a saved notebook shows it in Jupyter too; null if none. */
export function plotSnapshot(box) {
  const u = plots.get(box);
  if (!u) return null;
  return u.ctx.canvas.toDataURL("image/png").split(",")[1];
}

export { streamText };
