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
// calls Python splits (row ranges of a GEMM, samples of a convolution: backends/wasm/threads.py). A job is a table
// of calls (the export's index, each call's i32 arguments) in a control block of the heap; every thread -- the
// caller and the workers, woken by Atomics.notify -- takes the next call through one compare-and-swap on a ticket
// word (generation, count, next) until none is left, so a worker the OS has not scheduled yet leaves its share to
// the others instead of stalling them. The caller then waits until every taken call finished (Atomics.wait in a
// Worker, as the notebook's kernel; a page's main thread may not wait, so it spins on Atomics.load).

const THREAD_NAME = "webtorch-wasm-thread";
const [TICKET, FINISHED, WAKE, FN, NARGS, ERROR, STATES, TABLE] = [0, 1, 2, 3, 4, 5, 8, 16]; // control block words
const TABLE_WORDS = 1024, CTL_WORDS = TABLE + TABLE_WORDS, MAX_WORKERS = TABLE - STATES;
const [READY, FAILED] = [1, 2]; // a worker's state word (0: starting)
const canWait = typeof WorkerGlobalScope !== "undefined"; // Atomics.wait: a worker may block, a page may not

/** Run calls of the current job until none is left (the caller and every worker). The ticket word packs the job's
 * generation (8 bits), its call count (12) and the next call (12): a thread holding a stale word takes nothing. */
function takeCalls(ctl, fns) {
  for (;;) {
    const t = Atomics.load(ctl, TICKET);
    if ((t & 0xfff) >= ((t >>> 12) & 0xfff)) return;
    if (Atomics.compareExchange(ctl, TICKET, t, t + 1) !== t) continue;
    const k = ctl[NARGS], at = TABLE + (t & 0xfff) * k;
    try {
      fns[ctl[FN]](...ctl.subarray(at, at + k));
    } catch (e) {
      Atomics.store(ctl, ERROR, 1);
      throw e;
    } finally {
      Atomics.add(ctl, FINISHED, 1);
      Atomics.notify(ctl, FINISHED);
    }
  }
}

/**
 * @param {WebAssembly.Module} module  kernels.wasm, compiled (it imports env.memory, shared)
 * @param {number} initialPages  the module's declared minimum (64 KiB pages)
 * @returns {{exports, memory, threadsWanted, grow(pages: number): number, write(addr, data), read(addr, nbytes, dst),
 *   startThreads(url, text, control, block, blockBytes), threads(): number, parallel(name, n, ...args)}}
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
  const names = Object.keys(instance.exports), fns = Object.values(instance.exports); // every instance's order
  let ctl = null, workers = 0, generation = 0;
  return {
    exports: instance.exports,
    memory,
    /** How many worker threads this page can run beside its own (0: not cross-origin isolated, or one core). */
    threadsWanted: globalThis.crossOriginIsolated
      ? Math.max(0, Math.min(MAX_WORKERS, (navigator.hardwareConcurrency || 1) - 1)) : 0,
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
     * `text` (its source, as a blob: URL). `control`: a heap block of controlBytes for the job table; worker i gets
     * the heap block at block + i * blockBytes: its thread-local block (thread_block_bytes()), then its stack up to
     * the block's end. They start in the background: threads() counts those ready. */
    startThreads(url, text, control, block, blockBytes) {
      const script = url || URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
      ctl = new Int32Array(memory.buffer, control, CTL_WORDS);
      ctl.fill(0);
      for (let i = 0; i < this.threadsWanted; i++, workers++) {
        const worker = new Worker(script, { name: THREAD_NAME });
        worker.onerror = (e) => { // a script the page may not run (a CSP), or a trap (logged here)
          Atomics.store(ctl, STATES + i, FAILED);
          console.warn(`webtorch: wasm worker thread ${i + 1} stopped: ${e.message}`);
        };
        const at = block + i * blockBytes;
        worker.postMessage({ module, memory, control, index: i, tls: at, stackTop: at + blockBytes });
      }
    },
    /** 1 + the workers ready to take calls now. */
    threads() {
      let n = 1;
      for (let i = 0; i < workers; i++) n += Atomics.load(ctl, STATES + i) === READY;
      return n;
    },
    /** Run the export `name` n times at once: args holds n argument lists (i32s) of equal length; returns when all
     * are done (a trap in any throws). */
    parallel(name, n, ...args) {
      const k = args.length / n;
      if (n > 0xfff || args.length > TABLE_WORDS) throw new RangeError(`${n} calls of ${k} arguments: too many`);
      ctl[FN] = names.indexOf(name);
      ctl[NARGS] = k;
      ctl.set(args, TABLE);
      Atomics.store(ctl, ERROR, 0);
      Atomics.store(ctl, FINISHED, 0);
      generation = (generation + 1) & 0xff;
      Atomics.store(ctl, TICKET, (generation << 24) | (n << 12)); // publishes the table (sequentially consistent)
      Atomics.add(ctl, WAKE, 1);
      Atomics.notify(ctl, WAKE);
      let error = null;
      try {
        takeCalls(ctl, fns);
      } catch (e) {
        error = e;
      }
      // calls taken by workers still running: a Worker (the notebook's kernel) sleeps, a page's main thread spins
      for (let f; (f = Atomics.load(ctl, FINISHED)) < n;) if (canWait) Atomics.wait(ctl, FINISHED, f);
      if (error) throw error;
      if (ctl[ERROR]) throw new Error(`${name} trapped in a wasm worker thread`);
    },
  };
}

/** A worker thread's life: instantiate the module on the shared memory, take its stack and thread-local block,
 * then take calls whenever a job is published (it blocks in Atomics.wait between jobs). A trap ends the thread. */
function webtorchWasmThread({ module, memory, control, index, tls, stackTop }) {
  const ctl = new Int32Array(memory.buffer, control, CTL_WORDS);
  try {
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    const fns = Object.values(instance.exports);
    instance.exports.__stack_pointer.value = stackTop;
    instance.exports.thread_init(tls);
    let wake = Atomics.load(ctl, WAKE);
    Atomics.store(ctl, STATES + index, READY);
    for (;;) {
      takeCalls(ctl, fns);
      Atomics.wait(ctl, WAKE, wake);
      wake = Atomics.load(ctl, WAKE);
    }
  } catch (e) {
    Atomics.store(ctl, STATES + index, FAILED);
    throw e; // the main side's onerror logs it
  }
}

if (typeof WorkerGlobalScope !== "undefined" && globalThis.name === THREAD_NAME) {
  globalThis.onmessage = (e) => webtorchWasmThread(e.data);
} else {
  globalThis.webtorchWasmHost = webtorchWasmHost;
}
