"""The wasm backend's runtime inside Pyodide: kernels.wasm in the browser's own WebAssembly engine.

The JS half is web/wasm_host.js (shipped in this package): it owns the module's WebAssembly.Memory and copies
bytes between it and Python's buffers, one copy each way (a typed-array view of Pyodide's heap at the Python
buffer's address, never ``to_js``). Transfers up to ``STAGE`` bytes go through a staging bytearray whose view the
JS side keeps, so they cross with numbers only (handing a buffer over makes a PyProxy: tens of microseconds).
Kernels are the instance's exports, called straight from Python: one FFI crossing per kernel (about 1 us plus
~0.2 us per argument in Chromium), no JS in between.

The module: the one web/loader.js compiled while Pyodide booted (``globalThis.webtorchWasmModule``, from the same
wheel), else compiled here, synchronously, from the packaged file -- so device "cpu" needs no await and works in any
Pyodide host (JupyterLite's kernel, a Web Worker, plain ``runPython``).

The memory is not shared: kernels.wasm declares an unshared memory import, and one thread runs the kernels.
"""
from pathlib import Path

from .runtime import WASM_PAGE, KernelTrap, Runtime, kernels_path

_HOST_JS = Path(__file__).with_name("wasm_host.js")  # web/wasm_host.js, shipped in the wheel
STAGE = 1 << 16


class RuntimeBrowser(Runtime):
    def __init__(self):
        import time

        import js
        from pyodide.ffi import create_proxy
        t0 = time.perf_counter()
        data = Path(kernels_path()).read_bytes()
        module = getattr(js.globalThis, "webtorchWasmModule", None)
        compiled_here = module is None
        if compiled_here:
            module = js.WebAssembly.Module.new(_js_bytes(js, data))
        make_host = js.Function.new(_HOST_JS.read_text() + "\nreturn webtorchWasmHost;")()
        self._host = make_host(module, memory_minimum(data))
        self._exports = self._host.exports
        self._grow, self._write, self._read = self._host.grow, self._host.write, self._host.read
        self._put, self._get = self._host.put, self._host.get
        self._stage = bytearray(STAGE)
        self._staged = memoryview(self._stage)
        self._host.setStage(create_proxy(self._stage))
        self._size = int(self._host.memory.buffer.byteLength)
        self.heap_base = int(getattr(self._exports, "__heap_base").value)  # (a literal: no name mangling)
        self._fns = {}
        # for the benchmarks' cold-start figures
        self.stats = {"module_bytes": len(data), "compiled_in_python": compiled_here,
                      "instantiate_ms": (time.perf_counter() - t0) * 1000}

    @property
    def size(self):
        return self._size

    def grow(self, nbytes):
        if nbytes > self._size:
            pages = -(-(nbytes - self._size) // WASM_PAGE)
            try:
                self._grow(pages)
            except Exception as e:  # noqa: BLE001 -- the browser's RangeError: past its limit for one memory
                raise MemoryError(f"device 'cpu' (wasm) could not grow its memory to {nbytes} bytes: {e}") from None
            self._size += pages * WASM_PAGE

    def write(self, addr, data):
        mv = memoryview(data)
        if mv.format != "B" or mv.ndim != 1:
            mv = mv.cast("B")
        n = mv.nbytes
        if n <= STAGE:
            self._staged[:n] = mv
            self._put(addr, n)
        else:
            self._write(addr, mv)

    def read(self, addr, n):
        if n <= STAGE:
            self._get(addr, n)
            return self._stage[:n]
        out = bytearray(n)
        self._read(addr, n, out)
        return out

    def view(self, addr, n, owner=None):
        return None  # the memory lives on the JS side: Python can only copy out of it

    def has(self, name):
        return hasattr(self._exports, name)

    def fn(self, name):
        f = self._fns.get(name)
        if f is None:
            f = self._fns[name] = _kernel(name, getattr(self._exports, name))
        return f


def _kernel(name, export):
    """A Python callable for the export: traps (a JS RuntimeError) raise KernelTrap."""
    from pyodide.ffi import JsException

    def kernel(*args):
        try:
            return export(*args)
        except JsException as e:
            raise KernelTrap(f"wasm kernel {name} trapped: {e}") from None

    kernel.__name__ = name
    return kernel


def _js_bytes(js, data):
    u8 = js.Uint8Array.new(len(data))
    u8.assign(data)
    return u8


def memory_minimum(data):
    """The minimum pages of the memory a WebAssembly binary imports (its import section), 1 if it imports none.
    JS's reflection (WebAssembly.Module.imports) does not give memory limits, and the import is only satisfied by a
    memory at least that large."""
    pos = 8  # magic and version

    def leb():
        nonlocal pos
        result = shift = 0
        while True:
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return result

    def name():
        nonlocal pos
        n = leb()
        pos += n

    while pos < len(data):
        section = data[pos]
        pos += 1
        size = leb()
        if section != 2:
            pos += size
            continue
        for _ in range(leb()):
            name()
            name()
            kind = data[pos]
            pos += 1
            if kind == 0:  # function: type index
                leb()
            elif kind == 1:  # table: element type, limits
                pos += 1
                flags = leb()
                leb()
                if flags & 1:
                    leb()
            elif kind == 2:  # memory: limits (flags, then the minimum)
                leb()
                return leb()
            elif kind == 3:  # global: value type, mutability
                pos += 2
        break
    return 1
