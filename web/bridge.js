// The JS half of webtorch's browser runtime (the Python half: py/webtorch/backends/webgpu/runtime_browser.py).
//
// Small and generic, no math: a WebGPU device with the adapter's higher limits, a kernel compile cache,
// a buffer table named by small integers, `run(words, params)` that executes a whole packed schedule
// (runtime.py's Batch.pack layout) in one command encoder, one compute pass and one submit, and
// readback. Python hands bytes over as PyProxies of its own buffers; `getBuffer()` gives a typed-array
// view of the WASM heap at the buffer's address, so uploads and readbacks copy once, straight between
// the heap and the GPU. Every PyBuffer is released before the call that took it returns (or settles).
//
// Python may hold a packed batch back and hand it to the next call (`words`, `params` trailing arguments
// of read/write/wait/free): one FFI crossing then runs the batch and does the call, ordered after it. A
// read that carries a batch records the copy into the batch's command encoder: one submit for both.
// Promises of read/wait resolve to the oldest unreported device error (a string) or null.

// Limits webtorch relies on; WebGPU's defaults are lower than most adapters offer, so ask for the adapter's.
const LIMITS = [
  "maxStorageBuffersPerShaderStage", "maxStorageBufferBindingSize", "maxBufferSize",
  "maxComputeWorkgroupsPerDimension", "maxComputeInvocationsPerWorkgroup", "maxComputeWorkgroupStorageSize",
  "maxComputeWorkgroupSizeX", "maxComputeWorkgroupSizeY", "maxComputeWorkgroupSizeZ",
  "maxUniformBufferBindingSize", "maxBindGroups", "minStorageBufferOffsetAlignment",
];
const FEATURES = ["shader-f16", "subgroups"]; // subgroups: py/webtorch/backends/webgpu/subgroup_reduce.py
const BIND_CACHE_MAX = 8192;

export class WebGPUUnavailableError extends Error {}

/** Request an adapter and a device with the adapter's limits; resolves to a Bridge. */
export async function createBridge({ gpu = globalThis.navigator?.gpu, powerPreference = "high-performance" } = {}) {
  if (!gpu) {
    throw new WebGPUUnavailableError(
      "WebGPU is not available here (navigator.gpu is missing): use Chromium 113+ over http://127.0.0.1 or https "
      + "(headless Chromium needs --enable-unsafe-webgpu)");
  }
  const adapter = await gpu.requestAdapter({ powerPreference });
  if (!adapter) {
    throw new WebGPUUnavailableError("WebGPU is present but no adapter was found (GPU blocklisted or disabled)");
  }
  const requiredLimits = {};
  for (const name of LIMITS) if (adapter.limits[name] !== undefined) requiredLimits[name] = adapter.limits[name];
  const requiredFeatures = FEATURES.filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({ requiredLimits, requiredFeatures });
  const info = adapter.info || {};
  const description = `${info.description || info.device || info.architecture || "?"} (${info.vendor || "?"}, browser WebGPU)`;
  // SwiftShader (Chromium's fallback adapter) and lavapipe run shaders on the CPU
  const cpu = Boolean(info.isFallbackAdapter) || /swiftshader|llvmpipe|lavapipe/i.test(
    `${info.architecture} ${info.device} ${info.description}`);
  return new Bridge(device, description, [...adapter.features], cpu);
}

export class Bridge {
  constructor(device, description = "", adapterFeatures = [], cpu = false) {
    this.device = device;
    this.description = description;
    this.cpu = cpu;
    this.adapterFeatures = adapterFeatures;
    this.buffers = new Map(); // id -> GPUBuffer
    this.windows = new Map(); // window id -> {buffer: id, offset, size}: a part of a buffer bound at an offset
    this.nextId = 1;
    this.pipelines = []; // pipeline id -> GPUComputePipeline
    this.warmed = new Map(); // kernel id + "\n" + WGSL -> GPUComputePipeline built ahead by warm()
    this.warmDoneAt = null;
    this.compileErrors = []; // pipeline id -> Promise<string|null>
    this.unchecked = []; // pipeline ids whose compile errors no read/wait has reported yet
    this.bindCache = new Map();
    this.arena = null; // uniform buffer holding one run's parameter bytes
    this.staging = []; // idle MAP_READ buffers, reused across readbacks
    this.errors = []; // uncaptured device errors, reported to Python at the next read/wait
    this.badAllocs = []; // "oom <id> <nbytes>: message" of allocations that failed, reported first
    this.scopes = []; // promises of the error scopes still open on the device (see scoped())
    this.lostMessage = null;
    this.counters = { runs: 0, submits: 0, dispatches: 0, writes: 0, reads: 0, compiles: 0 };
    this.usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    device.lost.then((info) => { this.lostMessage = info.message || String(info.reason); });
    device.addEventListener("uncapturederror", (ev) => { this.errors.push(ev.error.message); });
    // Python calls these through proxies of the bound methods.
    for (const m of ["info", "alloc", "free", "window", "write", "read", "wait", "compile", "compileError", "run",
      "takeError", "tableSize", "stats"]) this[m] = this[m].bind(this);
  }

  /** JSON: {limits, features, description, cpu} of the device (cpu: the adapter runs shaders on the CPU). */
  info() {
    const limits = {};
    for (const name of LIMITS) if (this.device.limits[name] !== undefined) limits[name] = this.device.limits[name];
    return JSON.stringify({ limits, features: [...this.device.features], description: this.description,
      cpu: this.cpu });
  }

  alloc(nbytes) {
    const max = this.device.limits.maxBufferSize;
    if (nbytes > max) throw new RangeError(`webgpu out of memory: ${nbytes} bytes exceeds maxBufferSize (${max})`);
    const id = this.nextId++;
    this.buffers.set(id, this.scoped((e) => this.badAllocs.push(`oom ${id} ${nbytes}: ${e.message}`),
      () => this.device.createBuffer({ size: nbytes, usage: this.usage })));
    return id;
  }

  free(id, words, params) {
    if (words) this.run(words, params);
    const b = this.buffers.get(id);
    if (!b) return;
    this.buffers.delete(id);
    for (const [wid, w] of this.windows) if (w.buffer === id) this.windows.delete(wid);
    this.bindCache.clear(); // bind groups keep their buffers alive: drop them with the buffer
    b.destroy();
  }

  /** A new id naming bytes [offset, offset + size) of buffer `id`: a binding of it shows that part (tensors
   * larger than maxStorageBufferBindingSize, py/webtorch/backends/webgpu/binding_windows.py). */
  window(id, offset, size) {
    const wid = this.nextId++;
    this.windows.set(wid, { buffer: id, offset, size });
    return wid;
  }

  /** Copy the Python buffer `data` (a PyProxy) into buffer `id` at `offset`, straight from the WASM heap. */
  write(id, offset, data, words, params) {
    if (words) this.run(words, params);
    const pb = data.getBuffer("u8");
    try {
      this.device.queue.writeBuffer(this.buffers.get(id), offset, pb.data);
    } finally {
      pb.release();
    }
    this.counters.writes++;
  }

  /** Copy `nbytes` of buffer `id` at `offset` into the Python buffer `dst` (after running the batch `words`,
   * `params` when given, in the same submit); resolves to a pending device error or null when done. With
   * `check` (a buffer id), its first 16 bytes (webtorch's error word) follow the data in `dst`, copied by the
   * same submit. */
  read(id, offset, nbytes, dst, words, params, check) {
    return this.scoped((e) => this.errors.push(e.message), () => this.readScoped(id, offset, nbytes, dst, words,
      params, check));
  }

  readScoped(id, offset, nbytes, dst, words, params, check) {
    const enc = this.device.createCommandEncoder();
    if (words) this.encode(enc, words, params);
    // the argument proxy dies when this call returns: a copy of it lives until the data lands. Its buffer view is
    // taken then, not now: Python may run meanwhile (a background task while run_sync waits) and grow its memory,
    // which detaches a view taken before
    const out = dst.copy();
    const total = check ? nbytes + 16 : nbytes;
    const size = Math.max(16, Math.ceil(total / 16) * 16);
    let st = null;
    for (let i = 0; i < this.staging.length; i++) {
      if (this.staging[i].size >= size && this.staging[i].size <= 4 * size) { st = this.staging.splice(i, 1)[0]; break; }
    }
    st = st || this.device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    enc.copyBufferToBuffer(this.buffers.get(id), offset, st, 0, nbytes);
    if (check) enc.copyBufferToBuffer(this.buffers.get(check), 0, st, nbytes, 16);
    this.device.queue.submit([enc.finish()]);
    this.counters.submits++;
    this.counters.reads++;
    return st.mapAsync(GPUMapMode.READ, 0, size).then(() => {
      const pb = out.getBuffer("u8");
      try {
        pb.data.set(new Uint8Array(st.getMappedRange(0, size), 0, total));
      } finally {
        pb.release();
      }
      st.unmap();
      if (this.staging.length < 8) this.staging.push(st); else st.destroy();
      return this.pendingError();
    }, (e) => {
      st.destroy();
      throw new Error(this.lostMessage ? `the WebGPU device was lost: ${this.lostMessage}` : `readback failed: ${e.message}`);
    }).finally(() => out.destroy());
  }

  /** Resolves (to a pending device error or null) when every submitted batch has finished on the device. */
  wait(words, params) {
    if (words) this.run(words, params);
    return this.device.queue.onSubmittedWorkDone().then(() => this.pendingError());
  }

  /** Start building, in the background, the pipelines webtorch's warm-up manifest ({kernels: [[kernel id, WGSL],
   * ...], cpu: [indices], gpu: [indices]}; webtorch_devtools/warmup.py) lists for this adapter's class (cpu: runs
   * shaders on the CPU); compile() of the same kernel id and source takes a finished one instead of compiling.
   * All are requested at once, so the GPU process builds them while the first cells run (and while Pyodide boots
   * when loadWebtorch starts the warm-up early), whether or not this thread is busy with Python. Resolves when every one is built or failed (warmStartAt,
   * warmDoneAt: when it began and ended, on the epoch's clock); a compile() before that builds its kernel itself
   * (a second time). */
  warm(manifest) {
    if (!manifest) return Promise.resolve();
    this.warmStartAt = performance.timeOrigin + performance.now();
    return Promise.all((manifest[this.cpu ? "cpu" : "gpu"] || []).map((i) => {
      const [kernelId, wgsl] = manifest.kernels[i];
      const module = this.device.createShaderModule({ label: kernelId, code: wgsl });
      return this.device.createComputePipelineAsync({ label: kernelId, layout: "auto", compute: { module, entryPoint: "main" } })
        .then((pipe) => { this.warmed.set(`${kernelId}\n${wgsl}`, pipe); }, () => {}); // a failure: compile() reports it
    })).then(() => { this.warmDoneAt = performance.timeOrigin + performance.now(); });
  }

  /** Compile a WGSL module (entry point `main`); returns a pipeline id at once. Its compile error is reported
   * by compileError(id), and by the next read or wait (as "compile <id>: message"), so nobody waits per compile. */
  compile(kernelId, wgsl) {
    const ready = this.warmed.get(`${kernelId}\n${wgsl}`);
    if (ready) {
      this.warmed.delete(`${kernelId}\n${wgsl}`);
      this.pipelines.push(ready);
      this.compileErrors.push(Promise.resolve(null));
      this.counters.warmHits = (this.counters.warmHits || 0) + 1;
      return this.pipelines.length - 1;
    }
    const dev = this.device;
    dev.pushErrorScope("validation");
    const module = dev.createShaderModule({ label: kernelId, code: wgsl });
    const pipe = dev.createComputePipeline({ label: kernelId, layout: "auto", compute: { module, entryPoint: "main" } });
    const scope = dev.popErrorScope();
    const id = this.pipelines.length;
    this.pipelines.push(pipe);
    this.compileErrors.push(Promise.all([scope, module.getCompilationInfo()]).then(([err, info]) => {
      const msgs = info.messages.filter((m) => m.type === "error").map((m) => `line ${m.lineNum}:${m.linePos}: ${m.message}`);
      if (msgs.length) return msgs.join("\n");
      return err ? err.message : null;
    }));
    this.unchecked.push(id);
    this.counters.compiles++;
    return id;
  }

  /** Resolves to the compiler's error text for pipeline `id`, or null when it compiled. */
  compileError(id) {
    return this.compileErrors[id];
  }

  /** Resolves to the first error of the compiles not reported yet ("compile <id>: ..."), else the oldest
   * device error, else null. */
  pendingError() {
    const scopes = this.scopes;
    this.scopes = [];
    return Promise.all(scopes).then(() => this.pendingCompileError());
  }

  /** Run `fn` inside a validation and an out-of-memory error scope: an error it causes goes to `report` (and
   * so to the next read or wait) instead of leaving an invalid object that poisons later, unrelated work. */
  scoped(report, fn) {
    this.device.pushErrorScope("validation");
    this.device.pushErrorScope("out-of-memory");
    try {
      return fn();
    } finally {
      const oom = this.device.popErrorScope();
      const invalid = this.device.popErrorScope();
      this.scopes.push(Promise.all([oom, invalid]).then(([o, v]) => { if (o || v) report(o || v); }));
    }
  }

  pendingCompileError() {
    const ids = this.unchecked;
    this.unchecked = [];
    if (!ids.length) return Promise.resolve(this.takeError());
    return Promise.all(ids.map((id) => this.compileErrors[id])).then((errs) => {
      const i = errs.findIndex((e) => e);
      if (i < 0) return this.takeError();
      this.errors = []; // what the invalid pipeline caused in the batches that used it
      return `compile ${ids[i]}: ${errs[i]}`;
    });
  }

  /** Execute a packed Batch: `words` and `params` are PyProxies of runtime.py's Batch.pack() output. */
  run(words, params) {
    this.scoped((e) => this.errors.push(e.message), () => {
      const enc = this.device.createCommandEncoder();
      this.encode(enc, words, params);
      this.device.queue.submit([enc.finish()]);
    });
    this.counters.submits++;
  }

  /** Record a packed Batch as one compute pass of the command encoder `enc`. */
  encode(enc, words, params) {
    const wb = words.getBuffer("u8");
    let w;
    try {
      w = new Uint32Array(wb.data.slice().buffer); // a few hundred words; the copy also aligns them
    } finally {
      wb.release();
    }
    const dev = this.device;
    if (params) {
      const pb = params.getBuffer("u8");
      try {
        if (pb.data.byteLength) {
          this.ensureArena(pb.data.byteLength);
          dev.queue.writeBuffer(this.arena, 0, pb.data, 0, pb.data.byteLength & ~3);
        }
      } finally {
        pb.release();
      }
    }
    const n = w[0];
    const pass = enc.beginComputePass();
    let p = 1;
    for (let d = 0; d < n; d++) {
      const pipe = w[p];
      const nbuf = w[p + 1];
      const bufs = w.subarray(p + 2, p + 2 + nbuf);
      p += 2 + nbuf;
      const poff = w[p], psize = w[p + 1];
      pass.setPipeline(this.pipelines[pipe]);
      pass.setBindGroup(0, this.bindGroup(pipe, bufs, poff, psize));
      pass.dispatchWorkgroups(w[p + 2], w[p + 3], w[p + 4]);
      p += 5;
    }
    pass.end();
    this.counters.runs++;
    this.counters.dispatches += n;
  }

  ensureArena(nbytes) {
    if (this.arena && this.arena.size >= nbytes) return;
    let size = 65536;
    while (size < nbytes) size *= 2;
    if (this.arena) this.arena.destroy();
    this.arena = this.device.createBuffer({ size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.bindCache.clear();
  }

  bindGroup(pipe, bufs, poff, psize) {
    const key = `${pipe}|${bufs.join(",")}|${psize ? poff : -1}|${psize}`;
    let bg = this.bindCache.get(key);
    if (bg) return bg;
    const entries = [];
    for (let i = 0; i < bufs.length; i++) {
      const w = this.windows.get(bufs[i]);
      entries.push({ binding: i, resource: w ? { buffer: this.buffers.get(w.buffer), offset: w.offset, size: w.size }
        : { buffer: this.buffers.get(bufs[i]) } });
    }
    if (psize) {
      entries.push({ binding: bufs.length, resource: { buffer: this.arena, offset: poff, size: Math.ceil(psize / 16) * 16 } });
    }
    bg = this.device.createBindGroup({ layout: this.pipelines[pipe].getBindGroupLayout(0), entries });
    if (this.bindCache.size >= BIND_CACHE_MAX) this.bindCache.clear();
    this.bindCache.set(key, bg);
    return bg;
  }

  /** Every unreported device error (or the loss message), or null: all at once, so that the errors one bad
   * batch causes are reported by one read, not one by one by the reads that follow. */
  takeError() {
    if (this.lostMessage) return `lost: ${this.lostMessage}`;
    if (!this.errors.length && !this.badAllocs.length) return null;
    const msg = [...this.badAllocs, ...this.errors].join("\n"); // a failed allocation first: it names the cause
    this.errors = [];
    this.badAllocs = [];
    return msg;
  }

  /** Live entries of the JS-side tables (leak checks). */
  tableSize() {
    return JSON.stringify({ buffers: this.buffers.size, bindGroups: this.bindCache.size, staging: this.staging.length,
      pipelines: this.pipelines.length });
  }

  stats() {
    return JSON.stringify(this.counters);
  }
}
