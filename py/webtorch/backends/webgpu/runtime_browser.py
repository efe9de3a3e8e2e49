"""The runtime inside Pyodide: the Python half of web/bridge.js (the browser's WebGPU).

One FFI crossing per flush: ``run`` hands the packed Batch (two Python buffers) to ``bridge.run``,
which encodes every dispatch into one command encoder and submits once. Bytes never go through
``to_js``: the bridge takes a typed-array view of the WASM heap at each Python buffer's address.

Reading back needs the browser to wait for the GPU. Pyodide can block on a promise
(``pyodide.ffi.run_sync``, JSPI) only when Python was entered asynchronously (runPythonAsync, a Web
Worker's async handler); elsewhere ``read``/``wait`` raise an error naming the async variants, which
``prefetch_async``/``wait_async`` serve: they await the bytes, and the synchronous read that follows
takes them from the prefetch cache without blocking.
"""
import json

from .runtime import DeviceLostError, OutOfMemoryError, Runtime, ShaderCompileError, WebGPUError

_NEEDS_ASYNC = (
    "reading a webgpu tensor has to wait for the GPU, and Pyodide can wait synchronously only when Python "
    "was entered asynchronously (pyodide.runPythonAsync, webtorch's loader, a Web Worker). Here use the "
    "async variants: `await t.numpy_async()`, `await t.tolist_async()`, `await t.item_async()`, "
    "`await webtorch.webgpu.synchronize_async()`")


def _bridge():
    import js
    bridge = getattr(js, "webtorchBridge", None)
    if bridge is None:
        raise WebGPUError("webtorch's WebGPU bridge is not loaded: boot Pyodide with web/loader.js "
                          "(loadWebtorch), which requests the WebGPU device and installs the bridge")
    return bridge


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
        # bound JS methods, proxied once (attribute lookups on a JsProxy cost a crossing each)
        self._alloc, self._free, self._write = b.alloc, b.free, b.write
        self._read, self._wait, self._compile, self._run = b.read, b.wait, b.compile, b.run
        self._compile_error, self._take_error = b.compileError, b.takeError
        self._epoch = 0  # bumped by every device write: prefetched bytes are valid within one epoch
        self._prefetched = {}  # buffer id -> (epoch, bytearray of the buffer's first bytes)

    # ---- memory ---------------------------------------------------------------------------------
    def alloc(self, nbytes):
        try:
            return self._alloc(nbytes)
        except Exception as e:  # noqa: BLE001 -- a JS RangeError from the bridge
            raise OutOfMemoryError(f"webgpu out of memory: could not allocate {nbytes} bytes ({e})") from None

    def free(self, buf):
        self._prefetched.pop(buf, None)
        self._free(buf)

    def write(self, buf, offset, data):
        self._epoch += 1
        self._write(buf, offset, data if isinstance(data, (bytes, bytearray, memoryview)) else memoryview(data))

    def read(self, buf, offset, nbytes):
        hit = self._prefetched.get(buf)
        if hit is not None and hit[0] == self._epoch and offset + nbytes <= len(hit[1]):
            return hit[1][offset:offset + nbytes]
        if not self._can_run_sync():
            raise WebGPUError(_NEEDS_ASYNC)
        out = bytearray(nbytes)
        self._await(self._read(buf, offset, nbytes, out))
        return out

    def wait(self):
        if not self._can_run_sync():
            raise WebGPUError(_NEEDS_ASYNC)
        self._await(self._wait())

    # ---- kernels --------------------------------------------------------------------------------
    def compile(self, kernel_id, wgsl):
        pid = self._compile(kernel_id, wgsl)
        if self._can_run_sync():  # otherwise a compile error surfaces as a device error at the next read
            err = self._run_sync(self._compile_error(pid))
            if err:
                from .runtime_native import _compile_message
                raise ShaderCompileError(_compile_message(kernel_id, wgsl, err))
        return pid

    def run(self, batch):
        if not batch.dispatches:
            return
        self._epoch += 1
        words, params = batch.pack()
        self._run(words, params or None)

    # ---- async variants (usable everywhere in Pyodide) ---------------------------------------------
    async def prefetch_async(self, buf, nbytes):
        """Await the first ``nbytes`` of ``buf``; the next synchronous ``read`` inside them needs no wait."""
        out = bytearray(nbytes)
        epoch = self._epoch
        await self._read(buf, 0, nbytes, out)
        self._check_errors()
        self._prefetched[buf] = (epoch, out)

    async def wait_async(self):
        await self._wait()
        self._check_errors()

    # ---- internals ------------------------------------------------------------------------------
    def _await(self, promise):
        from pyodide.ffi import JsException
        try:
            self._run_sync(promise)
        except JsException as e:
            raise self._error(str(e)) from None
        self._check_errors()

    def _check_errors(self):
        err = self._take_error()
        if err:
            raise self._error(err)

    def _error(self, msg):
        if msg.startswith("lost: ") or "device was lost" in msg:
            return DeviceLostError(f"the WebGPU device was lost: {msg.removeprefix('lost: ')}")
        if "out of memory" in msg.lower():
            return OutOfMemoryError(f"webgpu out of memory: {msg}")
        return WebGPUError(f"WebGPU error: {msg}")
