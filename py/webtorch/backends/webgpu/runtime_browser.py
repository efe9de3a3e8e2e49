"""The runtime inside Pyodide: the Python half of web/bridge.js (the browser's WebGPU).

One FFI crossing per flush: ``run`` packs the Batch (two Python buffers) and holds it; the next bridge
call carries it (``bridge.read/write/wait/free`` take a held batch as trailing arguments and run it first),
or ``submit`` hands it to ``bridge.run``. So a training step that ends in ``loss.item()`` crosses into JS
once and submits once: the step's dispatches and the copy of the loss share one command encoder. Bytes
never go through ``to_js``: the bridge takes a typed-array view of the WASM heap at each Python buffer's
address.

Reading back needs the browser to wait for the GPU. Pyodide can block on a promise
(``pyodide.ffi.run_sync``, JSPI) only when Python was entered asynchronously (runPythonAsync, a Web
Worker's async handler); elsewhere ``read``/``wait`` raise an error naming the async variants, which
``prefetch_async``/``wait_async`` serve: they await the bytes, and the synchronous read that follows
takes them from the prefetch cache without blocking.

The bridge: a page booted by web/loader.js has one (``globalThis.webtorchBridge``). Any other Pyodide
host (JupyterLite's kernel, the Pyodide console, a page that only ran ``micropip.install``) gets one
from the copy of bridge.js inside this package: imported from a ``blob:`` URL, its ``createBridge()``
awaited with ``run_sync`` where Python can block, else by ``await webtorch.webgpu.init_async()``.

Interrupts: while ``run_sync`` waits, the Python that settles the wait (Pyodide's future helpers, run
from the promise's JS callback) is where a KeyboardInterrupt from the interrupt buffer lands; raised
there, it leaves the wait pending forever and the kernel hung. So a wait defers SIGINT and raises the
KeyboardInterrupt once the wait is over.
"""
import json
import signal
from pathlib import Path

from .runtime import (BridgeInitRequired, DeviceLostError, OutOfMemoryError, Runtime, ShaderCompileError,
                      WebGPUError)

_NEEDS_ASYNC = (
    "reading a webgpu tensor has to wait for the GPU, and Pyodide can wait synchronously only when Python "
    "was entered asynchronously (pyodide.runPythonAsync, webtorch's loader, a Web Worker). Here use the "
    "async variants: `await t.numpy_async()`, `await t.tolist_async()`, `await t.item_async()`, "
    "`await webtorch.webgpu.synchronize_async()`")


_INIT_ASYNC = (
    "webtorch's WebGPU device is not set up yet, and Python was entered synchronously here (pyodide.runPython, "
    "a JS callback), so it cannot wait for the browser to grant the device: run `await "
    "webtorch.webgpu.init_async()` once first (top-level await works in runPythonAsync, JupyterLite and "
    "IPython cells)")
_BRIDGE_JS = Path(__file__).with_name("bridge.js")  # web/bridge.js, shipped in the wheel
# in the wheel: the kernels a first training step compiles (webtorch_devtools/warmup.py records them)
_WARMUP = Path(__file__).with_name("warmup.json")


def _bridge_calls():
    """(import promise of the packaged bridge module, URL to revoke) -- the module comes from a blob: URL."""
    import js
    from pyodide.ffi import to_js
    blob = js.Blob.new(to_js([_BRIDGE_JS.read_text()]),
                       to_js({"type": "text/javascript"}, dict_converter=js.Object.fromEntries))
    url = js.URL.createObjectURL(blob)
    return js.Function.new("url", "return import(url)")(url), url


def _installed_bridge():
    """The page's bridge (web/loader.js installs one), or None; raises when the browser has no WebGPU."""
    import js
    bridge = getattr(js.globalThis, "webtorchBridge", None)
    if bridge is not None:
        return bridge
    if not getattr(js.globalThis.navigator, "gpu", None):
        raise WebGPUError("WebGPU is not available here (navigator.gpu is missing): use Chromium 113+ over "
                          "http://127.0.0.1 or https (headless Chromium needs --enable-unsafe-webgpu)")
    return None


def _bridge():
    """The bridge, created here from the packaged bridge.js when Python can block on the device request."""
    from pyodide.ffi import can_run_sync, run_sync
    bridge = _installed_bridge()
    if bridge is not None:
        return bridge
    if not can_run_sync():
        raise BridgeInitRequired(_INIT_ASYNC)
    return _wait_deferring_interrupt(run_sync, create_bridge_async())


async def create_bridge_async():
    """The bridge (the page's, or one created from the packaged bridge.js), awaiting the device request."""
    from pyodide.ffi import JsException
    bridge = _installed_bridge()
    if bridge is not None:
        return bridge
    import js
    imported, url = _bridge_calls()
    try:
        bridge = await (await imported).createBridge()
    except JsException as e:
        raise WebGPUError(f"could not set up WebGPU: {e}") from None
    finally:
        js.URL.revokeObjectURL(url)
    if _WARMUP.is_file():  # they compile in the GPU process while the user's code goes on (as web/loader.js does)
        bridge.warm(js.JSON.parse(_WARMUP.read_text()))
    js.globalThis.webtorchBridge = bridge
    return bridge


def _wait_deferring_interrupt(run_sync, awaitable):
    """``run_sync(awaitable)``, with a SIGINT that arrives meanwhile raised after the wait (see the module doc)."""
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        return run_sync(awaitable)
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            if callable(previous):
                previous(signal.SIGINT, None)  # Python's default handler raises KeyboardInterrupt
            elif previous != signal.SIG_IGN:
                raise KeyboardInterrupt


class RuntimeBrowser(Runtime):
    def __init__(self, bridge=None):
        from pyodide.ffi import can_run_sync, run_sync
        self._can_run_sync = can_run_sync
        self._run_sync = run_sync
        b = bridge if bridge is not None else _bridge()
        self._b = b
        info = json.loads(b.info())
        self.limits = {k: int(v) for k, v in info["limits"].items()}
        self.features = frozenset(info["features"])
        self.description = info["description"]
        self.cpu_adapter = bool(info.get("cpu"))
        # bound JS methods, proxied once (attribute lookups on a JsProxy cost a crossing each)
        self._alloc, self._free, self._write, self._window = b.alloc, b.free, b.write, b.window
        self._windows = {}  # buffer id -> {(offset, size): window id} (the bridge forgets them with the buffer)
        self._read, self._wait, self._compile, self._run = b.read, b.wait, b.compile, b.run
        self._epoch = 0  # bumped by every device write: prefetched bytes are valid within one epoch
        self._prefetched = {}  # buffer id -> (epoch, bytearray of the buffer's first bytes)
        self.bad_buffers = set()
        self._held = ()  # (words, params) of the batch the next bridge call runs first
        self._sources = {}  # pipeline id -> (kernel id, WGSL), to word a compile error reported later
        # calls into bridge.js (FFI crossings that do work) and waits for the GPU (run_sync), for benchmarks
        self.counters = {"bridge_calls": 0, "gpu_waits": 0}

    # ---- memory ---------------------------------------------------------------------------------
    def alloc(self, nbytes):
        try:
            return self._alloc(nbytes)
        except Exception as e:  # noqa: BLE001 -- a JS RangeError from the bridge
            raise OutOfMemoryError(f"webgpu out of memory: could not allocate {nbytes} bytes ({e})") from None

    def free(self, buf):
        self._prefetched.pop(buf, None)
        self._windows.pop(buf, None)
        self.counters["bridge_calls"] += 1
        self._free(buf, *self._take_held())

    def window(self, buf, offset, nbytes):
        ws = self._windows.setdefault(buf, {})
        wid = ws.get((offset, nbytes))
        if wid is None:
            self.counters["bridge_calls"] += 1
            wid = ws[(offset, nbytes)] = int(self._window(buf, offset, nbytes))
        return wid

    def write(self, buf, offset, data):
        self._epoch += 1
        self.counters["bridge_calls"] += 1
        self._write(buf, offset, data if isinstance(data, (bytes, bytearray, memoryview)) else memoryview(data),
                    *self._take_held())

    def read(self, buf, offset, nbytes, check=None):
        hit = self._prefetched.get(buf)
        if hit is not None and hit[0] == self._epoch and offset + nbytes <= len(hit[1]):
            data = hit[1][offset:offset + nbytes]
            if check is None:
                return data
            word = self._prefetched.get(check)  # prefetched with it (backend.prefetch_async), or None: not read
            return data, (word[1][:16] if word is not None and word[0] == self._epoch else None)
        if not self._can_run_sync():
            raise WebGPUError(_NEEDS_ASYNC)
        out = bytearray(nbytes + (16 if check is not None else 0))
        self.counters["bridge_calls"] += 1
        held = self._take_held()
        if check is None:
            self._await(self._read(buf, offset, nbytes, out, *held))
            return out
        self._await(self._read(buf, offset, nbytes, out, *(held or (None, None)), check))
        return out[:nbytes], out[nbytes:]

    def wait(self):
        if not self._can_run_sync():
            raise WebGPUError(_NEEDS_ASYNC)
        self.counters["bridge_calls"] += 1
        self._await(self._wait(*self._take_held()))

    # ---- kernels --------------------------------------------------------------------------------
    def compile(self, kernel_id, wgsl):
        # No wait here: a first training step compiles a few dozen kernels, and waiting for each would
        # serialize them with the Python that records the step. The next read or wait reports an error.
        self.counters["bridge_calls"] += 1
        pid = self._compile(kernel_id, wgsl)
        self._sources[pid] = (kernel_id, wgsl)
        return pid

    def run(self, batch):
        if not batch.dispatches:
            return
        self._epoch += 1
        self.submit()
        words, params = batch.pack()
        self._held = (words, params or None)

    def submit(self):
        if self._held:
            self.counters["bridge_calls"] += 1
            self._run(*self._take_held())

    def program(self, batch):
        words, params = batch.pack()  # packed once: a replay hands bridge.run the same two buffers
        return words, params or None

    def replay(self, program):
        self._epoch += 1
        self.submit()
        self._held = program

    # ---- async variants (usable everywhere in Pyodide) ---------------------------------------------
    async def prefetch_async(self, buf, nbytes):
        """Await the first ``nbytes`` of ``buf``; the next synchronous ``read`` inside them needs no wait."""
        out = bytearray(nbytes)
        epoch = self._epoch
        self.counters["bridge_calls"] += 1
        err = await self._read(buf, 0, nbytes, out, *self._take_held())
        self._raise_if(err)
        self._prefetched[buf] = (epoch, out)

    async def wait_async(self):
        self.counters["bridge_calls"] += 1
        self._raise_if(await self._wait(*self._take_held()))

    # ---- internals ------------------------------------------------------------------------------
    def _take_held(self):
        """The held batch as trailing arguments of a bridge call (which runs it first), or none."""
        held, self._held = self._held, ()
        return held

    def _await(self, promise):
        """Wait for a bridge promise that resolves to a device error message or null."""
        from pyodide.ffi import JsException
        self.counters["gpu_waits"] += 1
        try:
            err = _wait_deferring_interrupt(self._run_sync, promise)
        except JsException as e:
            raise self._error(str(e)) from None
        self._raise_if(err)

    def _raise_if(self, err):
        if err:
            raise self._error(err)

    def _error(self, msg):
        if msg.startswith("oom "):  # an allocation failed (bridge.js's error scopes): the flush that needed it too
            bad = [line[4:].split(":", 1)[0].split() for line in msg.splitlines() if line.startswith("oom ")]
            self.bad_buffers.update(int(b) for b, _ in bad)
            nbytes = int(bad[0][1])
            return OutOfMemoryError(
                f"webgpu out of memory: could not allocate {nbytes} bytes (maxBufferSize "
                f"{self.limits.get('maxBufferSize', '?')}, maxStorageBufferBindingSize "
                f"{self.limits.get('maxStorageBufferBindingSize', '?')}); the work that needed it did not run, "
                f"later work is unaffected. {msg.splitlines()[0].split(': ', 1)[-1]}")
        if msg.startswith("compile "):
            pid, _, err = msg[len("compile "):].partition(": ")
            kernel_id, wgsl = self._sources.get(int(pid), ("?", ""))
            from .runtime_native import _compile_message
            return ShaderCompileError(_compile_message(kernel_id, wgsl, err))
        if msg.startswith("lost: ") or "device was lost" in msg:
            return DeviceLostError(f"the WebGPU device was lost: {msg.removeprefix('lost: ')}")
        if "out of memory" in msg.lower():
            return OutOfMemoryError(f"webgpu out of memory: {msg}")
        return WebGPUError(f"WebGPU error: {msg}")
