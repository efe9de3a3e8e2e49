// Cell outputs, stored as nbformat 4 output objects and rendered into the page. Live outputs (plots,
// progress bars) carry a display id; an update replaces their data and redraws them in place.
import { uPlot } from "./build/vendor.js";
import { renderMarkdown } from "./markdown.js";

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

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

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

function renderBundle(box, data, metadata) {
  if (data[PLOT_MIME]) return drawPlot(box, data[PLOT_MIME]);
  if (data[PROGRESS_MIME]) return drawProgress(box, data[PROGRESS_MIME]);
  box.replaceChildren();
  if (data["text/html"] !== undefined) {
    const div = el("div", "html-output");
    div.innerHTML = [].concat(data["text/html"]).join("");
    box.append(div);
  } else if (data["image/png"] || data["image/jpeg"] || data["image/svg+xml"]) {
    const img = el("img", "image-output");
    const mime = data["image/png"] ? "image/png" : data["image/jpeg"] ? "image/jpeg" : "image/svg+xml";
    const value = [].concat(data[mime]).join("");
    img.src = mime === "image/svg+xml" ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(value)}`
      : `data:${mime};base64,${value.replace(/\n/g, "")}`;
    const md = (metadata || {})[mime] || {};
    if (md.width) img.width = md.width;
    if (md.height) img.height = md.height;
    img.alt = [].concat(data["text/plain"] || "image").join("");
    box.append(img);
  } else if (data["text/markdown"] !== undefined) {
    const div = el("div", "markdown-output");
    div.innerHTML = renderMarkdown([].concat(data["text/markdown"]).join(""));
    box.append(div);
  } else {
    box.append(el("pre", "text-output", [].concat(data["text/plain"] ?? "").join("")));
  }
}

/** An element showing one nbformat output; `element.refresh()` redraws it after its data changed. */
export function renderOutput(out) {
  const box = el("div", `output output-${out.output_type}`);
  box.refresh = () => {
    if (out.output_type === "stream") {
      box.classList.toggle("stderr", out.name === "stderr");
      let pre = box.firstChild;
      if (!pre) box.append(pre = el("pre"));
      pre.textContent = streamText([].concat(out.text).join(""));
    } else if (out.output_type === "error") {
      box.replaceChildren(el("pre", "error-output", [].concat(out.traceback || [`${out.ename}: ${out.evalue}`]).join("\n")));
    } else {
      renderBundle(box, out.data || {}, out.metadata);
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
