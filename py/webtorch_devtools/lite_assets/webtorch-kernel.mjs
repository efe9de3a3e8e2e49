// The pyodideUrl of webtorch's JupyterLite site: Pyodide's own module, with a kernel interrupt that works.
//
// jupyterlite-pyodide-kernel 0.8 gives Pyodide no interrupt buffer, so its stop button cannot stop running
// Python. Here, in the kernel's worker, the booted Pyodide gets one (a SharedArrayBuffer: the site is served
// cross-origin isolated) and the worker hands it to the page, where interrupt.js writes SIGINT into it.
import { loadPyodide as loadPyodideCore } from "./pyodide.mjs";

export * from "./pyodide.mjs";

export async function loadPyodide(options) {
  const pyodide = await loadPyodideCore(options);
  if (globalThis.crossOriginIsolated && typeof WorkerGlobalScope !== "undefined") {
    const buffer = new Int32Array(new SharedArrayBuffer(4));
    pyodide.setInterruptBuffer(buffer);
    self.postMessage({ webtorchInterruptBuffer: buffer });
  }
  return pyodide;
}
