// The sidebar: notebooks (tutorials and the ones autosaved in this browser), the kernel's files, the device.
import { $, el } from "./dom.js";
import { deleteNotebook, listNotebooks } from "./store.js";


function item(label, onOpen, extra = []) {
  const li = el("li");
  const a = el("a", "", label);
  a.title = label;
  a.addEventListener("click", onOpen);
  li.append(a, ...extra);
  return li;
}

function orEmpty(items, text) {
  if (items.length) return items;
  return [el("li", "empty", text)];
}

function smallButton(label, title, onClick) {
  const b = el("button", "", label);
  b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

export async function showNotebookList(app) {
  $("tutorial-list").replaceChildren(...orEmpty((app.config.tutorials || []).map((t) =>
    item(t.name, () => app.openURL(new URL(t.url, app.configURL).href))), "none in this build"));
  const local = await listNotebooks();
  $("local-list").replaceChildren(...orEmpty(local.map((n) => {
    const li = item(n.name || n.id, () => app.openLocal(n.id), [smallButton("✕", "Delete from this browser", async () => {
      if (n.id === app.id) return;  // the open notebook stays
      await deleteNotebook(n.id);
      showNotebookList(app);
    })]);
    li.title = `saved ${new Date(n.updated).toLocaleString()}`;
    if (n.id === app.id) li.classList.add("current");
    return li;
  }), "none yet"));
}

const size = (n) => (n < 1024 ? `${n} B` : n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`);

export function downloadBlob(blob, name) {
  const a = el("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

export async function showFiles(app) {
  let files;
  try {
    files = await app.kernel.fs("list");
  } catch {
    return;  // kernel restarting: the list refreshes when it is ready
  }
  $("file-list").replaceChildren(...orEmpty(files.filter((f) => !f.dir).map((f) => item(`${f.name}  (${size(f.size)})`,
    () => downloadFile(app, f.name), [
      smallButton("⤓", "Download", () => downloadFile(app, f.name)),
      smallButton("✕", "Delete", async () => { await app.kernel.fs("delete", f.name); showFiles(app); }),
    ])), "no files yet"));
}

async function downloadFile(app, name) {
  const bytes = await app.kernel.fs("read", name);
  downloadBlob(new Blob([bytes]), name);
}

async function upload(app, fileList) {
  for (const f of fileList) await app.kernel.fs("write", f.name, await f.arrayBuffer());
  showFiles(app);
}

export function setUpFiles(app) {
  const input = $("upload-input");
  $("upload-button").addEventListener("click", () => input.click());
  input.addEventListener("change", () => { upload(app, input.files); input.value = ""; });
  const zone = $("drop-zone");
  for (const target of [zone, document.body]) {
    target.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
    target.addEventListener("dragleave", () => zone.classList.remove("over"));
    target.addEventListener("drop", (e) => {
      e.preventDefault();
      e.stopPropagation();
      zone.classList.remove("over");
      if (e.dataTransfer.files.length) upload(app, e.dataTransfer.files);
    });
  }
}

const fmtBytes = (n) => (n == null ? "–" : size(n));

/** The device panel; `info` from the kernel's ready message, `stats` from the last cell (may be null). */
export function showDevice(app, info, stats) {
  const render = (rows) => {
    $("device-info").innerHTML = rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("");
  };
  if (!info) return render([["kernel", "starting…"]]);
  const d = info.devices;  // sent right after ready
  const rows = d ? [["default device", `<b>${escape(d.default)}</b>`], ["because", escape(d.why)],
    ["accelerator", d.accelerator ? `<b>${escape(d.accelerator)}</b> (torch.accelerator)` : "none"],
    ["\"cuda\"", d.cuda ? `→ <b>${escape(d.cuda)}</b> (torch.cuda.is_available() is True)`
      : "unavailable (torch.cuda.is_available() is False)"], ["because", escape(d.cuda_why)],
    ["cpu", escape(d.cpu)]] : [["default device", "asking the kernel…"]];
  if (info.webgpuError) {
    rows.push(["WebGPU", `<span class="warn">not available</span>`], ["why", escape(info.webgpuError)]);
  } else {
    rows.push(["adapter", escape(info.adapter || "?")],
      ["kind", info.cpuAdapter ? `<span class="warn">CPU fallback</span> (shaders run on the CPU)` : "GPU"]);
  }
  const w = stats && stats.webgpu;
  if (w) {
    rows.push(["memory in use", fmtBytes(w.memory_allocated)], ["kernels compiled", String(w.kernels_compiled)],
      ["dispatches, last cell", String(w.dispatches_last_cell)]);
  }
  rows.push(["import torch", info.torchAlias ? "→ webtorch (alias on)" : "off"],
    ["interrupt", info.interrupt ? "yes (cross-origin isolated)" : `<span class="warn">restarts the kernel</span> (page not cross-origin isolated)`],
    ["Pyodide", escape(info.pyodideVersion || "?")],
    ["kernel ready in", `${(info.readyMs / 1000).toFixed(1)} s`]);
  render(rows);
}

function escape(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}
