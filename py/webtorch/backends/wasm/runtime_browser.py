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

The memory is shared (kernels.wasm imports a shared memory): where the page is cross-origin isolated, worker threads
run the same module on it (``start_threads``; threads.py splits a GEMM's rows across them), else one thread runs
every kernel.
"""
from pathlib import Path

from .runtime import WASM_PAGE, KernelTrap, Runtime, kernels_path

_HOST_JS = Path(__file__).with_name("wasm_host.js")  # web/wasm_host.js, shipped in the wheel
STAGE = 1 << 16
THREAD_STACK = 1 << 16  # a worker thread's stack (its kernels keep only small locals there: an iterator)
CONTROL_BYTES = 4 * (16 + 1024)  # wasm_host.js's job table (CTL_WORDS)


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
        # loader.js imported it (a CSP may forbid evaluating text); else the packaged copy, evaluated here
        make_host = getattr(js.globalThis, "webtorchWasmHost", None) or \
            js.Function.new(_HOST_JS.read_text() + "\nreturn webtorchWasmHost;")()
        memory_min, self._i64 = module_facts(data)
        self._host = make_host(module, memory_min)
        self._exports = self._host.exports
        self._grow, self._write, self._read = self._host.grow, self._host.write, self._host.read
        self._put, self._get = self._host.put, self._host.get
        self._stage = bytearray(STAGE)
        self._staged = memoryview(self._stage)
        self._host.setStage(create_proxy(self._stage))
        self._size = int(self._host.memory.buffer.byteLength)
        self.heap_base = int(getattr(self._exports, "__heap_base").value)  # (a literal: no name mangling)
        self._fns = {}
        self._js = js
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

    def start_threads(self, heap):
        n = int(self._host.threadsWanted)
        if n:
            # held for the page's life, as the workers: the job table, then per worker its thread-local block, stack
            control = heap.alloc(CONTROL_BYTES)[0]
            block_bytes = -(-(self.fn("thread_block_bytes")() + THREAD_STACK) // 64) * 64
            block = heap.alloc(n * block_bytes)[0]
            # loader.js's URL of wasm_host.js, else its packaged text
            url = getattr(self._js.globalThis, "webtorchWasmHostUrl", None)
            self._host.startThreads(url, None if url else _HOST_JS.read_text(), control, block, block_bytes)

    def threads(self):
        return self._host.threads()

    def parallel(self, name, parts):
        from pyodide.ffi import JsException
        try:
            self._host.parallel(name, len(parts), *(a for args in parts for a in args))
        except JsException as e:
            raise KernelTrap(f"wasm kernel {name} trapped: {e}") from None

    def fn(self, name):
        f = self._fns.get(name)
        if f is None:
            at = self._i64.get(name)
            export = getattr(self._exports, name) if at is None else self._host.withBigInts(name, *at)
            f = self._fns[name] = _kernel(name, export)
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


class _Reader:
    """Sequential reads of a WebAssembly binary: bytes and LEB128 integers."""

    def __init__(self, data, pos=0):
        self.data, self.pos = data, pos

    def byte(self):
        self.pos += 1
        return self.data[self.pos - 1]

    def leb(self):
        result = shift = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return result

    def name(self):
        n = self.leb()
        self.pos += n
        return bytes(self.data[self.pos - n:self.pos]).decode()

    def limits(self):
        """The minimum of a table's or memory's limits."""
        flags = self.leb()
        minimum = self.leb()
        if flags & 1:
            self.leb()
        return minimum


def module_facts(data):
    """(the minimum pages of the memory the binary imports -- 1 if none --, {export: positions of its i64
    parameters} for the exported functions that have any). JS's reflection (WebAssembly.Module.imports/exports)
    gives neither: the memory must be at least the import's minimum, and an i64 parameter takes a BigInt."""
    r = _Reader(data, 8)  # magic and version
    types, functions, memory_min, i64 = [], [], 1, {}
    while r.pos < len(data):
        section, size = r.byte(), r.leb()
        end = r.pos + size
        if section == 1:  # types: 0x60, params, results
            for _ in range(r.leb()):
                r.byte()
                params = [r.byte() for _ in range(r.leb())]
                results = r.leb()
                r.pos += results
                types.append(params)
        elif section == 2:  # imports: imported functions come first in the function index space
            for _ in range(r.leb()):
                r.name()
                r.name()
                kind = r.byte()
                if kind == 0:
                    functions.append(r.leb())
                elif kind == 1:
                    r.byte()
                    r.limits()
                elif kind == 2:
                    memory_min = r.limits()
                else:  # global: value type, mutability
                    r.pos += 2
        elif section == 3:  # the module's own functions' type indices
            functions += [r.leb() for _ in range(r.leb())]
        elif section == 7:  # exports: name, kind, index
            for _ in range(r.leb()):
                name, kind, index = r.name(), r.byte(), r.leb()
                if kind == 0:
                    at = [i for i, t in enumerate(types[functions[index]]) if t == _I64]
                    if at:
                        i64[name] = at
        r.pos = end
    return memory_min, i64


_I64 = 0x7E
