// The page's handle on the kernel worker: one cell runs at a time (a queue), interrupt through a
// SharedArrayBuffer when the page is cross-origin isolated (else interrupt restarts the kernel), restart =
// a new worker. Emits "status" (starting | idle | busy | dead), "ready" (info), "devices" (info.devices: which
// device serves the kernel and why, sent right after ready) and "stats" events.

const SIGINT = 2;

export class Kernel extends EventTarget {
  constructor(config, { torchAlias = true, cuda = "auto" } = {}) {
    super();
    this.config = config;
    this.torchAlias = torchAlias;
    this.cuda = cuda;  // what "cuda" names in the kernel: loadWebtorch's cuda option
    this.worker = null;
    this.info = null;
    this.status = "dead";
    this.queue = [];      // {id, code, count, sink, resolve}
    this.current = null;
    this.nextId = 1;
    this.rid = 1;
    this.pending = new Map();  // request id (fs, complete) -> {resolve, reject}
    this.interruptBuffer = globalThis.crossOriginIsolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
  }

  setStatus(status) {
    this.status = status;
    this.dispatchEvent(new CustomEvent("status", { detail: status }));
  }

  /** Boot a fresh worker; resolves with the ready info (adapter, webgpuError, timings, ...). */
  start() {
    this.setStatus("starting");
    const t0 = performance.now();
    this.worker = new Worker(new URL("./kernel_worker.js", import.meta.url), { type: "module" });
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = ({ data }) => this.onMessage(data, resolve, reject, t0);
      this.worker.onerror = (e) => {
        const started = this.status !== "starting";
        this.setStatus("dead");
        this.clearQueue();
        if (this.current) this.current.resolve("error");
        this.current = null;
        const what = started ? "the kernel died" : "the kernel worker failed to start";
        this.dispatchEvent(new CustomEvent("died", { detail: `${what}: ${e.message || "script error"}` }));
        reject(new Error(`${what}: ${e.message || "script error"}`));
      };
    });
    this.worker.postMessage({ type: "init", config: this.config, torchAlias: this.torchAlias, cuda: this.cuda,
      interruptBuffer: this.interruptBuffer ? this.interruptBuffer.buffer : null });
    return this.ready;
  }

  onMessage(data, resolve, reject, t0) {
    if (data.type === "ready") {
      this.info = { ...data.info, startedAt: t0, readyMs: performance.now() - t0 };
      this.setStatus("idle");
      this.dispatchEvent(new CustomEvent("ready", { detail: this.info }));
      resolve(this.info);
      this.pump();
    } else if (data.type === "devices") {
      this.info.devices = data.devices;
      this.dispatchEvent(new CustomEvent("devices", { detail: data.devices }));
    } else if (data.type === "fatal") {
      this.setStatus("dead");
      reject(new Error(data.error));
    } else if (data.type === "output") {
      for (const item of data.items) {
        if (item.kind === "stats") this.dispatchEvent(new CustomEvent("stats", { detail: JSON.parse(item.text) }));
        else if (this.current) this.current.sink(item);
      }
    } else if (data.type === "done") {
      const run = this.current;
      this.current = null;
      if (run) run.resolve(data.status);
      this.pump();
    } else if (data.type === "reply") {
      const p = this.pending.get(data.rid);
      this.pending.delete(data.rid);
      if (p) data.error ? p.reject(new Error(data.error)) : p.resolve(data.result);
    }
  }

  /** Queue a cell: resolves "ok" | "error" | "aborted"; `onStart()` when it begins to run, `sink(item)`
   * receives its output items. */
  execute(code, count, sink, onStart = () => {}) {
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, code, count, sink, onStart, resolve });
      this.pump();
    });
  }

  pump() {
    if (this.current || !this.queue.length || this.status === "starting" || this.status === "dead") {
      if (!this.current && this.status === "busy") this.setStatus("idle");
      return;
    }
    this.current = this.queue.shift();
    if (this.interruptBuffer) this.interruptBuffer[0] = 0;
    this.setStatus("busy");
    this.current.onStart();
    this.worker.postMessage({ type: "run", id: this.current.id, code: this.current.code, count: this.current.count });
  }

  /** Drop queued cells (they resolve "aborted"). */
  clearQueue() {
    for (const q of this.queue.splice(0)) q.resolve("aborted");
  }

  /** Stop the running cell with KeyboardInterrupt; returns false when it had to restart the kernel instead. */
  async interrupt() {
    this.clearQueue();
    if (!this.current) return true;
    if (this.interruptBuffer) {
      this.interruptBuffer[0] = SIGINT;
      return true;
    }
    await this.restart();
    return false;
  }

  async restart() {
    this.clearQueue();
    if (this.current) {
      this.current.resolve("aborted");
      this.current = null;
    }
    for (const p of this.pending.values()) p.reject(new Error("kernel restarted"));
    this.pending.clear();
    if (this.worker) this.worker.terminate();
    this.worker = null;
    return this.start();
  }

  /** A file operation in the kernel's working folder (/home/pyodide): list, read, write, delete. */
  fs(op, name, bytes) {
    return this.request({ type: "fs", op, name, bytes }, bytes ? [bytes] : []);
  }

  /** Copy `files` (paths relative to the URL `base`) into the kernel's working folder. */
  fetchFiles(base, files) {
    return this.request({ type: "fs", op: "fetch", base, files });
  }

  /** Completions of the name ending `textBeforeCursor`: {matches, length}; null while a cell runs (the
   * kernel answers between cells, as Jupyter's). */
  complete(textBeforeCursor) {
    if (this.status !== "idle") return Promise.resolve(null);
    return this.request({ type: "complete", text: textBeforeCursor });
  }

  request(message, transfer = []) {
    if (!this.worker) return Promise.reject(new Error("the kernel is not running"));
    return new Promise((resolve, reject) => {
      const rid = this.rid++;
      this.pending.set(rid, { resolve, reject });
      this.worker.postMessage({ ...message, rid }, transfer);
    });
  }
}
