// The JS half of device "cpu" in the page (the Python half: py/webtorch/backends/wasm/runtime_browser.py):
// instantiates kernels.wasm on a WebAssembly.Memory this side owns and copies bytes between that memory and
// Python's buffers. No math here: the kernels are the module's exports, called from Python directly.
//
// One function, also set on globalThis: web/loader.js imports this file (a page under a Content-Security-Policy
// without 'unsafe-eval', as the notebook app's, may not evaluate code from text); where nothing imported it,
// Python evaluates the packaged copy synchronously (`new Function(text + "return webtorchWasmHost;")`), so device
// "cpu" works in any Pyodide host -- JupyterLite's kernel, a Web Worker, code entered with plain runPython --
// without awaiting an import.
//
// Bytes move with one copy, heap to heap: `getBuffer()` of a PyProxy is a typed-array view of Pyodide's heap at the
// Python buffer's address. Small transfers (a kernel's geometry, an item()) go through Python's staging buffer,
// whose view this side keeps: Python fills it and calls put(addr, n) (numbers only: no proxy made per call, which
// costs tens of microseconds), or calls get(addr, n) and reads it. Larger ones hand their own buffer over (write,
// read), released before the call returns.

/**
 * @param {WebAssembly.Module} module  kernels.wasm, compiled (it imports env.memory)
 * @param {number} initialPages  the module's declared minimum (64 KiB pages)
 * @returns {{exports, memory, grow(pages: number): number, write(addr, data), read(addr, nbytes, dst)}}
 */
function webtorchWasmHost(module, initialPages) {
  const memory = new WebAssembly.Memory({ initial: initialPages, maximum: 65536 });
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  let bytes = new Uint8Array(memory.buffer);
  // growing detaches the old buffer (its length drops to 0): view the new one
  const heap = () => (bytes.byteLength === memory.buffer.byteLength ? bytes : (bytes = new Uint8Array(memory.buffer)));
  let staged = null, stageBuffer = null;
  const stage = () => { // Pyodide's heap grew: its old views are detached
    if (stageBuffer.data.byteLength === 0) {
      stageBuffer.release();
      stageBuffer = staged.getBuffer("u8");
    }
    return stageBuffer.data;
  };
  return {
    exports: instance.exports,
    memory,
    /** Grow by `pages`; returns the size before, in pages (RangeError past the maximum or the browser's limit). */
    grow: (pages) => memory.grow(pages),
    /** Keep `buffer` (a persistent PyProxy of a Python bytearray) as the staging buffer of put/get. */
    setStage(buffer) {
      staged = buffer;
      stageBuffer = buffer.getBuffer("u8");
    },
    /** Copy the staging buffer's first `n` bytes to `addr`. */
    put: (addr, n) => heap().set(stage().subarray(0, n), addr),
    /** Copy `n` bytes at `addr` into the staging buffer. */
    get: (addr, n) => stage().set(heap().subarray(addr, addr + n)),
    /** The export `name` with its arguments at `positions` (its i64 parameters) made BigInts: Python passes
     * Numbers (or BigInts past 2**53), and an i64 parameter takes only a BigInt. */
    withBigInts(name, ...positions) {
      const f = instance.exports[name];
      return (...args) => {
        for (const i of positions) args[i] = BigInt(args[i]);
        return f(...args);
      };
    },
    /** Copy the Python buffer `data` (a PyProxy) to `addr`. */
    write(addr, data) {
      const pb = data.getBuffer("u8");
      try {
        heap().set(pb.data, addr);
      } finally {
        pb.release();
      }
    },
    /** Copy `nbytes` at `addr` into the Python buffer `dst` (a PyProxy of a writable buffer of that length). */
    read(addr, nbytes, dst) {
      const pb = dst.getBuffer("u8");
      try {
        pb.data.set(heap().subarray(addr, addr + nbytes));
      } finally {
        pb.release();
      }
    },
  };
}

globalThis.webtorchWasmHost = webtorchWasmHost;
