// loadWebtorch: boot Pyodide from local files, install the webtorch wheel, acquire WebGPU, compile device "cpu"'s
// WebAssembly kernels. Works in a page and in a module Web Worker. Never touches a CDN: every URL is one the caller
// serves.
//
//   const { pyodide } = await loadWebtorch({ indexURL: "/pyodide/", wheelURL: "/wheel/webtorch-0.1.0-py3-none-any.whl" });
//   await pyodide.runPythonAsync("import webtorch as torch; print(torch.ones(3, device='webgpu') * 2)");
//
// Pyodide, the wheels and the WebGPU device are fetched/requested concurrently, and the wheel's kernels.wasm
// compiles meanwhile (py/webtorch/backends/wasm/runtime_browser.py takes the module from
// globalThis.webtorchWasmModule). Without WebGPU a message says so; device "cpu" (WebAssembly) runs everything.
import { createBridge } from "./bridge.js";
import { writeFiles, zipEntries, zipFiles } from "./zip_files.js";
import "./wasm_host.js";  // globalThis.webtorchWasmHost, device "cpu"'s JS half (no eval needed under a CSP)
// ... and the script of its worker threads (a same-origin URL: a CSP's worker-src 'self' refuses blob: workers)
globalThis.webtorchWasmHostUrl = new URL("./wasm_host.js", import.meta.url).href;

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`could not fetch ${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

// The webgpu warm-up manifest (webtorch_devtools/warmup.py; the wheel's build writes it; bridge.warm picks the
// adapter class's kernels) from a zipEntries map, as soon as it is inflated; null when the wheel lacks one.
const MANIFEST = "webtorch/backends/webgpu/warmup.json";
const KERNELS = "webtorch/backends/wasm/kernels.wasm";
async function manifestOf(entries) {
  const bytes = entries.get(MANIFEST);
  return bytes ? JSON.parse(new TextDecoder().decode(await bytes)) : null;
}

// loadPackage logs a failure and resolves: each package is verified by importing it
async function loadPackages(pyodide, names, warn) {
  const errors = [];
  await pyodide.loadPackage(names, { messageCallback: () => {}, errorCallback: (m) => errors.push(m) });
  for (const name of names) {
    const ok = pyodide.runPython(`import importlib.util as u; u.find_spec(${JSON.stringify(name)}) is not None`);
    if (!ok) warn(`webtorch: Pyodide package '${name}' could not be loaded (${errors.join("; ") || "not found"})\n`);
  }
}

function writer(sink) {
  const decoder = new TextDecoder();
  return { write: (bytes) => { sink(decoder.decode(bytes, { stream: true })); return bytes.length; } };
}

/**
 * @param {object} o
 * @param {string} o.indexURL    folder with pyodide.mjs (Pyodide's npm package)
 * @param {string} o.wheelURL    the webtorch wheel
 * @param {string[]} [o.wheelURLs]  more pure-Python wheels to install (e.g. pytest and its dependencies)
 * @param {(text: string) => void} [o.stdout]  receives Python's stdout as it is written
 * @param {(text: string) => void} [o.stderr]
 * @param {boolean} [o.requireWebGPU]  reject instead of falling back to "cpu"
 * @param {string} [o.packagesURL]  where Pyodide packages not in indexURL's folder are fetched from (Pyodide's package
 *   host for this version, https://cdn.jsdelivr.net/pyodide/v<version>/full/, or a mirror); off by default.
 *   Code run through webtorch.browser.packages.load_imports (the notebook kernel, run --browser) gets its
 *   imports loaded from indexURL first, then from here
 * @param {"auto" | "webgpu" | "none"} [o.cuda]  what "cuda" names (webtorch.cuda.use_webgpu): "auto" (default) the
 *   webgpu device when the adapter is a GPU, not on a CPU fallback (where "cpu" is faster) or without WebGPU;
 *   "webgpu": always when WebGPU is available; "none": no CUDA, as a CPU-only PyTorch. The default device is "cpu"
 *   either way (as PyTorch's); torch.accelerator reports webgpu when the browser grants an adapter
 * @param {string[]} [o.packages]  Pyodide packages to load first, e.g. ["numpy"] for device "cpu" (fetched from
 *   indexURL, or Pyodide's CDN when pyodideOptions allow it); one that cannot be loaded is reported on stderr
 *   and webtorch still loads (device "cpu" then tries again on first use and, failing, says why)
 * @param {boolean} [o.warmUpEarly]  build the webgpu kernels of a first training step (the warm-up: bridge.warm) from
 *   the moment the device exists, beside Pyodide's boot (default); false: only when the caller calls warmUp(), as
 *   the notebook's kernel does once it is ready (on few cores the warm-up's compiles would slow the boot)
 * @returns {Promise<{pyodide, bridge, webgpuError, warmUp, timings: {startMs, timeOrigin, pyodideBootMs, importMs,
 *   loadMs, steps, crossOriginIsolated}}>}  (startMs: when loadWebtorch began, on performance.now()'s clock -- since
 *   page load in a page, worker start in a worker (timeOrigin: that clock's zero); the others from startMs; steps:
 *   when each step ended, concurrent ones included. warmUp(): starts the warm-up if it has not started and resolves
 *   when its kernels are built; they build in the background, and a kernel the code needs first is built at once)
 */
export async function loadWebtorch({ indexURL, wheelURL, wheelURLs = [], stdout, stderr, requireWebGPU = false,
  packages = [], packagesURL = null, cuda = "auto", warmUpEarly = true, pyodideOptions = {} } = {}) {
  if (!indexURL || !wheelURL) throw new Error("loadWebtorch needs indexURL (Pyodide's folder) and wheelURL (the webtorch wheel)");
  if (!["auto", "webgpu", "none"].includes(cuda)) throw new Error(`loadWebtorch: cuda must be "auto", "webgpu" or "none", not ${JSON.stringify(cuda)}`);
  const t0 = performance.now();
  // when each concurrent step ended, ms after t0 (timings.steps: where the start's time goes)
  const steps = {};
  const mark = (name) => (value) => { steps[name] = performance.now() - t0; return value; };
  const index = new URL(indexURL, globalThis.location?.href).href;
  const gpu = createBridge().then((bridge) => ({ bridge }), (error) => ({ error })).then(mark("webgpuDevice"));
  // fetched and inflated while Pyodide boots; written into its file system after (no Python unzip)
  const wheels = Promise.all([wheelURL, ...wheelURLs].map((u) => fetchBytes(new URL(u, index).href)
    .then((bytes) => zipEntries(bytes, [MANIFEST, KERNELS])))).then(mark("wheelsFetched"));
  // device "cpu"'s kernels compile off the main thread while Pyodide boots (null: a wheel without them)
  const kernels = wheels.then(async ([entries]) => (entries.has(KERNELS) ? WebAssembly.compile(await entries.get(KERNELS))
    : null)).catch((error) => ({ error })).then(mark("wasmCompiled"));
  // the first step's kernels compile in the GPU process while code runs: from now (while Pyodide boots and webtorch
  // imports) unless the caller starts them later (warmUpEarly false: the notebook's kernel, once it is ready)
  let warmed = null;
  const warmUp = () => (warmed ??= Promise.all([gpu, wheels]).then(async ([{ bridge }, [entries]]) => bridge
    && bridge.warm(await manifestOf(entries)))
    .catch(() => {})); // only a head start: a failed fetch or device is reported below, a bad kernel by compile()
  if (warmUpEarly) warmUp();
  const { loadPyodide } = await import(index + "pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL: index, ...pyodideOptions });
  const pyodideBootMs = performance.now() - t0;
  if (stdout) pyodide.setStdout(writer(stdout));
  if (stderr) pyodide.setStderr(writer(stderr));
  // into site-packages (not the working folder, which a script's chdir leaves); found on sys.path, as
  // importing sysconfig for it costs 30-260 ms here
  const sitePackages = pyodide.runPython("import sys; [p for p in sys.path if p.endswith('/site-packages')][0]");
  for (const entries of await wheels) writeFiles(pyodide, sitePackages, await zipFiles(entries));
  mark("wheelsWritten")();
  if (packages.length) await loadPackages(pyodide, packages, stderr || console.warn);
  const { bridge, error } = await gpu;
  mark("webgpuAwaited")();
  let webgpuError = null;
  if (bridge) {
    globalThis.webtorchBridge = bridge;
  } else {
    if (requireWebGPU) throw error;
    webgpuError = error.message;
    (stderr || console.warn)(`webtorch: ${webgpuError}; no accelerator: device "cpu" (WebAssembly) runs everything\n`);
  }
  const compiled = await kernels;
  if (compiled?.error) (stderr || console.warn)(`webtorch: kernels.wasm did not compile here (${compiled.error}); `
    + "device \"cpu\" will try again on first use\n");
  else if (compiled) globalThis.webtorchWasmModule = compiled;
  mark("wasmAwaited")();
  // the site-packages finder forgets its listing (the wheels were written after it was made); only that finder:
  // importlib.invalidate_caches() also imports importlib.metadata, 0.1 s in Pyodide
  // webtorch's docstrings are beside the wheel, fetched the first time help() asks (webtorch/browser/docstrings.py)
  const docstringsURL = new URL(wheelURL, index).href.replace(/\.whl$/, ".docstrings.json.gz");
  // ... and its on-demand modules with its bytecode's line tables (webtorch/browser/on_demand.py: fetched now in the
  // background, then the lines restored; synchronously by an import or a traceback that needs them first)
  const onDemandURL = new URL(wheelURL, index).href.replace(/\.whl$/, ".on_demand.zst");
  pyodide.runPython(`import os, sys
os.environ["WEBTORCH_DOCSTRINGS_URL"] = ${JSON.stringify(docstringsURL)}
finder = sys.path_importer_cache.get(${JSON.stringify(sitePackages)})
if finder is not None:
    finder.invalidate_caches()
del finder
import webtorch`);
  pyodide.pyimport("webtorch.browser.on_demand").start(onDemandURL);
  mark("webtorchImported")();
  if (cuda !== "auto") pyodide.pyimport("webtorch.cuda").use_webgpu(cuda === "webgpu");  // auto: the Python default
  pyodide.pyimport("webtorch.browser.packages").configure(index,
    packagesURL ? new URL(packagesURL, globalThis.location?.href).href.replace(/\/?$/, "/") : null);
  const importMs = performance.now() - t0;
  return { pyodide, bridge, webgpuError, warmUp,
    timings: { startMs: t0, timeOrigin: performance.timeOrigin, pyodideBootMs, importMs,
      loadMs: performance.now() - t0, steps, crossOriginIsolated: Boolean(globalThis.crossOriginIsolated) } };
}
