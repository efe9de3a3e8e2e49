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
//
// Threads: the module imports a SHARED memory (one module for every page: a page that is not cross-origin
// isolated may still create one; it only cannot hand it to a worker). Where the page is cross-origin isolated, this
// file is also the script of hardwareConcurrency - 1 Web Workers (named "webtorch-wasm-thread") that instantiate the
// module on the same memory, each with its own stack and thread-local block (wasm-kernels/threads.c), and run export
// calls Python splits (row ranges of a GEMM: backends/wasm/threads.py). A job crosses through words in the worker's
// heap block: the main side writes the export's index and its i32 arguments, bumps the job word and notifies; the
// worker (Atomics.wait) runs it and stores the job's number in the done word; the main side runs its own share, then
// spins on the done words (Atomics.load: a page's main thread may not wait).

const THREAD_NAME = "webtorch-wasm-thread";
const CTL_WORDS = 32; // per worker: job, done, state, export index, argument count, arguments (at most 27)
const [JOB, DONE, STATE, FN, NARGS, ARGS] = [0, 1, 2, 3, 4, 5];
const [STARTING, READY, FAILED] = [0, 1, 2];

/**
 * @param {WebAssembly.Module} module  kernels.wasm, compiled (it imports env.memory, shared)
 * @param {number} initialPages  the module's declared minimum (64 KiB pages)
 * @returns {{exports, memory, threadsWanted, grow(pages: number): number, write(addr, data), read(addr, nbytes, dst),
 *   startThreads(url, text, block, blockBytes), threads(): number, parallel(name, n, ...args)}}
 */
function webtorchWasmHost(module, initialPages) {
  const memory = new WebAssembly.Memory({ initial: initialPages, maximum: 65536, shared: true });
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  let bytes = new Uint8Array(memory.buffer);
  // growing makes a new (longer) SharedArrayBuffer: view it
  const heap = () => (bytes.byteLength === memory.buffer.byteLength ? bytes : (bytes = new Uint8Array(memory.buffer)));
  let staged = null, stageBuffer = null;
  const stage = () => { // Pyodide's heap grew: its old views are detached
    if (stageBuffer.data.byteLength === 0) {
      stageBuffer.release();
      stageBuffer = staged.getBuffer("u8");
    }
    return stageBuffer.data;
  };
  const names = Object.keys(instance.exports); // the same order in every instance of the module
  const workers = []; // {ctl: Int32Array of the worker's control words, job: the last job's number}
  return {
    exports: instance.exports,
    memory,
    /** How many worker threads this page can run beside its own (0: not cross-origin isolated, or one core). */
    threadsWanted: globalThis.crossOriginIsolated ? Math.max(0, Math.min(7, (navigator.hardwareConcurrency || 1) - 1))
      : 0,
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
    /** Start threadsWanted workers running this file: from `url` (where loader.js imported it from), else from
     * `text` (its source, as a blob: URL). Worker i gets the heap block at block + i * blockBytes: its control
     * words, then its thread-local block (thread_block_bytes()), then its stack up to the block's end. They start
     * in the background: threads() counts those ready. */
    startThreads(url, text, block, blockBytes) {
      const script = url || URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
      for (let i = 0; i < this.threadsWanted; i++) {
        const at = block + i * blockBytes;
        const ctl = new Int32Array(memory.buffer, at, CTL_WORDS);
        ctl.fill(0);
        const worker = new Worker(script, { name: THREAD_NAME });
        worker.onerror = (e) => { // a script the page may not run (a CSP), or a trap (logged here)
          Atomics.store(ctl, STATE, FAILED);
          console.warn(`webtorch: wasm worker thread ${i + 1} stopped: ${e.message}`);
        };
        worker.postMessage({ module, memory, at, tls: at + CTL_WORDS * 4, stackTop: at + blockBytes });
        workers.push({ ctl, job: 0 });
      }
    },
    /** 1 + the workers ready to take a job now. */
    threads() {
      let n = 1;
      while (n - 1 < workers.length && Atomics.load(workers[n - 1].ctl, STATE) === READY) n++;
      return n;
    },
    /** Run the export `name` n times at once: args holds n argument lists (i32s) of equal length, the first run
     * here, the others by the first n - 1 workers; returns when all are done (a trap in any throws). */
    parallel(name, n, ...args) {
      const k = args.length / n, fn = names.indexOf(name);
      for (let t = 1; t < n; t++) {
        const w = workers[t - 1], ctl = w.ctl;
        ctl[FN] = fn;
        ctl[NARGS] = k;
        for (let j = 0; j < k; j++) ctl[ARGS + j] = args[t * k + j];
        Atomics.store(ctl, JOB, ++w.job);
        Atomics.notify(ctl, JOB);
      }
      let error = null;
      try {
        instance.exports[name](...args.slice(0, k));
      } catch (e) {
        error = e;
      }
      for (let t = 1; t < n; t++) {
        const w = workers[t - 1];
        while (Atomics.load(w.ctl, DONE) !== w.job) {
          if (Atomics.load(w.ctl, STATE) === FAILED) throw new Error(`${name} trapped in wasm worker thread ${t}`);
        }
      }
      if (error) throw error;
    },
  };
}

/** A worker thread's life: instantiate the module on the shared memory, take its stack and thread-local block,
 * then run jobs forever (it blocks in Atomics.wait between them). A trap is reported and ends the thread. */
function webtorchWasmThread({ module, memory, at, tls, stackTop }) {
  const ctl = new Int32Array(memory.buffer, at, CTL_WORDS);
  let seen = 0;
  try {
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    const fns = Object.values(instance.exports);
    instance.exports.__stack_pointer.value = stackTop;
    instance.exports.thread_init(tls);
    Atomics.store(ctl, STATE, READY);
    for (;;) {
      Atomics.wait(ctl, JOB, seen);
      const job = Atomics.load(ctl, JOB);
      if (job === seen) continue;
      seen = job;
      fns[ctl[FN]](...ctl.subarray(ARGS, ARGS + ctl[NARGS]));
      Atomics.store(ctl, DONE, job);
    }
  } catch (e) {
    Atomics.store(ctl, STATE, FAILED);
    throw e; // the main side's onerror keeps the message
  }
}

if (typeof WorkerGlobalScope !== "undefined" && globalThis.name === THREAD_NAME) {
  globalThis.onmessage = (e) => webtorchWasmThread(e.data);
} else {
  globalThis.webtorchWasmHost = webtorchWasmHost;
}
