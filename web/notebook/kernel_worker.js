// The notebook's kernel: a module Web Worker holding Pyodide + webtorch + WebGPU, so the page never freezes.
// Page -> worker: {type: "init", config, interruptBuffer?, torchAlias, cuda}, {type: "run", id, code, count},
//   {type: "fs", rid, op: "list"|"read"|"write"|"delete", name?, bytes?} | {type: "fs", rid, op: "fetch", base, files}
//   | {type: "complete", rid, text} (the editor's Tab: names completing the end of `text`)
// Worker -> page: {type: "ready", info}, {type: "devices", devices} (right after ready: the device panel's),
//   {type: "output", items: [{kind, text, displayId}]} (stdout/stderr
//   chunks, display/update/clear/result/error/stats as JSON text; batched, posted at most every FLUSH_MS while
//   a cell runs), {type: "done", id, status}, {type: "reply", rid, result|error} (to fs and complete),
//   {type: "fatal", error}.
import { loadWebtorch } from "../loader.js";

const FLUSH_MS = 50;
let pyodide = null;
let runCell = null;
let complete = null;
let startWarmUp = null;  // loadWebtorch's warmUp: the webgpu warm-up's compiles, started once the kernel is ready
let queue = [];
let lastFlush = 0;
let timer = null;

function flush() {
  if (timer) clearTimeout(timer);
  timer = null;
  lastFlush = performance.now();
  if (queue.length) {
    self.postMessage({ type: "output", items: queue });
    queue = [];
  }
}

// Called from Python for every write and display (kernel.py). Python running synchronously blocks this
// worker's timers, so a chunk is posted right away once FLUSH_MS have passed since the last post.
function push(kind, text, displayId) {
  const last = queue[queue.length - 1];
  if ((kind === "stdout" || kind === "stderr") && last && last.kind === kind) {
    last.text += text;
  } else if (kind === "update" && displayId) {
    const i = queue.findIndex((m) => m.kind === "update" && m.displayId === displayId);
    if (i >= 0) queue.splice(i, 1);  // only the newest state of a live output matters
    queue.push({ kind, text, displayId });
  } else {
    queue.push({ kind, text, displayId: displayId ?? null });
  }
  if (performance.now() - lastFlush >= FLUSH_MS) flush();
  else if (!timer) timer = setTimeout(flush, FLUSH_MS);
}

async function init({ config, interruptBuffer, torchAlias, cuda }) {
  const { pyodide: py, bridge, webgpuError, warmUp, timings } = await loadWebtorch({
    indexURL: config.indexURL, wheelURL: config.wheelURL, wheelURLs: config.wheelURLs || [],
    packagesURL: config.packagesURL, cuda, warmUpEarly: false,
    stdout: (s) => push("stdout", s), stderr: (s) => push("stderr", s),
  });
  pyodide = py;
  if (interruptBuffer) pyodide.setInterruptBuffer(new Uint8Array(interruptBuffer));
  pyodide.FS.mkdirTree("/home/pyodide");
  pyodide.FS.chdir("/home/pyodide");
  const mark = (name) => { timings.steps[name] = performance.now() - timings.startMs; };
  const kernel = pyodide.pyimport("webtorch.notebook.kernel");
  mark("kernelImported");
  kernel.install(push);
  mark("kernelInstalled");
  // a fresh kernel per setting: off means the alias is never installed
  if (torchAlias) pyodide.runPython("import webtorch.compat; webtorch.compat.alias_torch()");
  mark("torchAliased");
  runCell = pyodide.runPython("from webtorch.notebook.kernel import run_cell; run_cell");
  complete = kernel.complete;
  flush();
  timings.kernelMs = performance.now() - timings.startMs;  // + the kernel's set-up (after loadMs)
  startWarmUp = warmUp;
  return {
    adapter: bridge ? bridge.description : null, cpuAdapter: bridge ? Boolean(bridge.cpu) : null,
    webgpuError, pyodideVersion: pyodide.version, interrupt: Boolean(interruptBuffer), torchAlias: Boolean(torchAlias),
    timings,
  };
}

async function run({ id, code, count }) {
  let status;
  try {
    // entered through runPythonAsync so synchronous readbacks (.item(), run_sync) work inside cells (JSPI)
    const ns = pyodide.toPy({ run_cell: runCell, code, count });
    try {
      status = await pyodide.runPythonAsync("await run_cell(code, count)", { globals: ns });
    } finally {
      ns.destroy();
    }
  } catch (e) {
    push("error", JSON.stringify({ ename: "KernelError", evalue: String(e.message || e), traceback: [String(e.stack || e)] }));
    status = "error";
  }
  flush();
  self.postMessage({ type: "done", id, status });
}

// Copy files (a tutorial's folder: data, helpers) into the working directory, subfolders kept.
async function fetchInto(base, files) {
  for (const f of files) {
    if (f.split("/").some((p) => !p || p === "." || p === "..")) throw new Error(`bad file path ${JSON.stringify(f)}`);
    const r = await fetch(new URL(f, base));
    if (!r.ok) throw new Error(`could not fetch ${f}: HTTP ${r.status}`);
    const dir = f.split("/").slice(0, -1).join("/");
    if (dir) pyodide.FS.mkdirTree(dir);
    pyodide.FS.writeFile(f, new Uint8Array(await r.arrayBuffer()));
  }
  pyodide.runPython("import importlib; importlib.invalidate_caches()");  // new modules (a tutorial's helpers)
  return files.length;
}

function fs({ op, name, bytes }) {
  const FS = pyodide.FS;
  const path = (n) => {
    if (!n || n.includes("/") || n === "." || n === "..") throw new Error(`bad file name ${JSON.stringify(n)}`);
    return n;
  };
  if (op === "list") {
    return FS.readdir(".").filter((n) => n !== "." && n !== "..").map((n) => {
      const st = FS.stat(n);
      return { name: n, size: st.size, dir: FS.isDir(st.mode), mtime: Number(st.mtime) };
    }).sort((a, b) => a.name.localeCompare(b.name));
  }
  if (op === "write") { FS.writeFile(path(name), new Uint8Array(bytes)); return true; }
  if (op === "read") return FS.readFile(path(name));
  if (op === "delete") { FS.unlink(path(name)); return true; }
  throw new Error(`unknown file operation ${op}`);
}

// One message at a time: a cell waits for a file copy sent before it (and a file request for a running cell).
let chain = Promise.resolve();
self.onmessage = ({ data }) => { chain = chain.then(() => handle(data)); };

async function handle(data) {
  if (data.type === "init") {
    try {
      self.postMessage({ type: "ready", info: await init(data) });
      // the first training step's webgpu kernels build in the GPU process from now on (while the first cells run;
      // one a cell needs sooner is built at once): begun earlier, they took the CPU from Pyodide's boot
      startWarmUp();
      // then which device serves the kernel and why (the device panel): it sets both devices up (the WebAssembly
      // module's instance, the webgpu backend), which a first cell needs, a ready kernel not; async: without an
      // installed bridge, asking for WebGPU waits for the browser's answer. A cell sent meanwhile waits for it.
      const devices = JSON.parse(await pyodide.runPythonAsync(
        "import json; from webtorch.notebook.devices import page_devices; json.dumps(page_devices())"));
      self.postMessage({ type: "devices", devices });
    } catch (e) {
      self.postMessage({ type: "fatal", error: String(e && e.stack ? e.stack : e) });
    }
  } else if (data.type === "run") {
    await run(data);
  } else if (data.type === "fs" || data.type === "complete") {
    try {
      const result = data.type === "complete" ? JSON.parse(complete(data.text))
        : data.op === "fetch" ? await fetchInto(data.base, data.files) : fs(data);
      self.postMessage({ type: "reply", rid: data.rid, result }, result instanceof Uint8Array ? [result.buffer] : []);
    } catch (e) {
      self.postMessage({ type: "reply", rid: data.rid, error: String(e.message || e) });
    }
  }
}
