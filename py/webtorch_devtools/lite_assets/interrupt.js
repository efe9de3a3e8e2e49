// Page half of the kernel interrupt of webtorch's JupyterLite site (the worker half: webtorch-kernel.mjs).
//
// Each kernel worker posts its interrupt buffer once Pyodide is up; the page's first message to a worker
// (the kernel's initialize call) names its kernel id, which ties the buffer to a kernel.
// KernelConnection.interrupt (the stop button, the Kernel menu, the commands) then also writes SIGINT (2)
// into that buffer, and Python raises KeyboardInterrupt -- only while the kernel is busy, so an idle kernel
// never gets a stray interrupt in its next cell.
//
// The kernel extension picks its worker by the page's crossOriginIsolated: true selects a worker that makes a
// synchronous Atomics round trip to the page for every output message, and that one left the kernel "busy"
// after a finished cell in about half of the runs here (jupyterlite-pyodide-kernel 0.8.6, headless Chromium
// 156); the other worker (postMessage) never did. So the page reports false to it: the page stays isolated
// (SharedArrayBuffer works), files sync through JupyterLite's service worker instead.
(() => {
  if (!globalThis.crossOriginIsolated) return;
  Object.defineProperty(window, "crossOriginIsolated", { value: false, configurable: true });
  const buffers = new Map(); // kernel id -> Int32Array on a SharedArrayBuffer
  const KERNEL_ID = /"kernelId":"([^"]+)"/;
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", ({ data }) => {
        if (data && data.webtorchInterruptBuffer) this.webtorchBuffer = data.webtorchInterruptBuffer;
        if (this.webtorchBuffer && this.webtorchKernelId) buffers.set(this.webtorchKernelId, this.webtorchBuffer);
      });
    }

    postMessage(message, ...rest) {
      if (!this.webtorchKernelId) {
        let text = "";
        try { text = JSON.stringify(message) || ""; } catch { /* not JSON: not the initialize call */ }
        const m = KERNEL_ID.exec(text);
        if (m) this.webtorchKernelId = m[1];
      }
      return super.postMessage(message, ...rest);
    }
  };
  const patch = setInterval(() => {
    const kernel = window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel;
    if (!kernel) return;
    clearInterval(patch);
    const proto = Object.getPrototypeOf(kernel);
    const interrupt = proto.interrupt;
    proto.interrupt = function (...args) {
      const buffer = buffers.get(this.id);
      if (buffer && this.status === "busy") buffer[0] = 2;
      return interrupt.apply(this, args);
    };
  }, 250);
})();
