// The pyodideUrl of webtorch's JupyterLite site: Pyodide's own module, with a kernel interrupt that works.
//
// jupyterlite-pyodide-kernel 0.8 gives Pyodide no interrupt buffer, so its stop button cannot stop running
// Python. Here, in the kernel's worker, the booted Pyodide gets one (a SharedArrayBuffer: the site is served
// cross-origin isolated) and the worker hands it to the page, where interrupt.js writes SIGINT into it.
//
// It also does for webtorch what web/loader.js does in its pages: the WebGPU device is requested and the
// kernels of a first training step (the wheel's warm-up manifest) start compiling while Pyodide boots, so
// `import webtorch` finds its bridge ready and the first training step does not wait for ~100 pipeline builds.
// And `import tqdm` (loaded at boot, jupyter-lite.json) draws webtorch's notebook progress bars instead of
// looking for Jupyter's widgets (webtorch.notebook.tqdm_hook); a cell's import of a Pyodide package the kernel
// lacks loads it from this folder, then from loadPyodideOptions.webtorchPackagesURL when the site set one, or
// says why it cannot (webtorch.browser.packages), IPython showing that error without the import hook's frame
// (webtorch.notebook.tracebacks). `obj?`, tooltips and help() fetch webtorch's docstrings (the wheel has none:
// their table is beside it in this folder) the first time they run (webtorch.notebook.ipython_help).
// The wheel's on-demand modules and its bytecode's line tables (webtorch/browser/on_demand.py, webtorch/_line_tables.py)
// are fetched from this folder's webtorch-on-demand.zst, in the background after the start, or at once by an import
// or a traceback that needs them first.
import { loadPyodide as loadPyodideCore } from "./pyodide.mjs";
import { createBridge } from "./webtorch-bridge.js";

export * from "./pyodide.mjs";

async function webtorchBridge() {
  const warmup = fetch(new URL("./webtorch-warmup.json", import.meta.url)).then((r) => (r.ok ? r.json() : null));
  const bridge = await createBridge();
  warmup.then((manifest) => bridge.warm(manifest), () => {}); // only a head start: compile() reports any error
  globalThis.webtorchBridge = bridge;
}

export async function loadPyodide(options) {
  const { webtorchPackagesURL = null, ...pyodideOptions } = options || {};
  // no WebGPU here: webtorch says so on first use of "webgpu"
  const bridge = webtorchBridge().catch(() => {});
  const pyodide = await loadPyodideCore(pyodideOptions);
  await bridge;
  if (pyodide.loadedPackages.webtorch) {
    const index = JSON.stringify(new URL("./", import.meta.url).href);
    const url = webtorchPackagesURL ? JSON.stringify(new URL(webtorchPackagesURL, location.href).href.replace(/\/?$/, "/")) : "None";
    const wheel = pyodide.lockfile.packages.webtorch.file_name;
    const docstrings = JSON.stringify(new URL(wheel.replace(/\.whl$/, ".docstrings.json.gz"), import.meta.url).href);
    const onDemand = JSON.stringify(new URL("./webtorch-on-demand.zst", import.meta.url).href);
    pyodide.runPython(`import os as _os
from webtorch.browser import docstrings as _d, on_demand as _o, packages as _p
from webtorch.notebook import ipython_startup as _s, progress as _pr, tqdm_hook as _h
_o.start(${onDemand})
_h.install()
_p.configure(${index}, ${url}, on_import=_pr.LoadingLine())
_os.environ[_d.URL_VARIABLE] = ${docstrings}
_s.install_startup()
del _os, _d, _o, _p, _s, _pr, _h`);
  }
  if (globalThis.crossOriginIsolated && typeof WorkerGlobalScope !== "undefined") {
    const buffer = new Int32Array(new SharedArrayBuffer(4));
    pyodide.setInterruptBuffer(buffer);
    self.postMessage({ webtorchInterruptBuffer: buffer });
  }
  return pyodide;
}
