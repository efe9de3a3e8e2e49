"""The wasm backend's runtime in CPython: kernels.wasm instantiated by PyPI's wasmtime.

Kernel calls go through wasmtime's unchecked raw-value entry point (wasmtime_func_call_unchecked) with one
preallocated argument array per kernel, filled by one ``Struct.pack_into``, and the entry point's own arguments
converted to ctypes objects once: wasmtime-py's checked ``Func.__call__`` costs ~50 us a call, this ~0.5 us.
The memory is read and written through a memoryview of its host mapping (zero copy).
"""
import atexit
import ctypes
import functools
import struct

import wasmtime
from wasmtime import _bindings as ffi, _ffi

from .runtime import WASM_PAGE, KernelTrap, Runtime, kernels_path


class RuntimeWasmtime(Runtime):
    def __init__(self, path=None):
        config = wasmtime.Config()
        config.wasm_threads = True  # the module imports a shared memory (the page's worker threads share it)
        config.shared_memory = True
        engine = wasmtime.Engine(config)
        self._store = wasmtime.Store(engine)
        module = wasmtime.Module.from_file(engine, path or kernels_path())
        need = next(i.type.limits.min for i in module.imports if i.name == "memory")
        self._memory = _SharedMemory(engine, wasmtime.MemoryType(wasmtime.Limits(need, 65536), shared=True))
        inst = wasmtime.Instance(self._store, module, [self._memory])
        self._exports = inst.exports(self._store)
        self._names = frozenset(e.name for e in module.exports)
        self.heap_base = self._exports["__heap_base"].value(self._store)
        self._ctx = self._store._context()
        self._fns = {}
        self._map()
        # free the memory, store and engine while wasmtime's module globals still exist (its finalizers need them)
        atexit.register(engine.close)  # (atexit runs last-registered first: the store goes before its engine)
        atexit.register(self._store.close)
        atexit.register(self._memory.close)

    def _map(self):
        n = self._memory.data_len()
        base = ctypes.addressof(self._memory.data_ptr().contents)
        self._base = base
        self._mv = memoryview((ctypes.c_ubyte * n).from_address(base)).cast("B")
        self._size = n

    @property
    def size(self):
        return self._size

    def grow(self, nbytes):
        if nbytes > self._size:
            self._memory.grow(-(-(nbytes - self._size) // WASM_PAGE))
            self._map()

    def write(self, addr, data):
        mv = memoryview(data)
        n = mv.nbytes
        self._mv[addr:addr + n] = mv.cast("B") if mv.format != "B" or mv.ndim != 1 else mv

    def read(self, addr, n):
        return bytes(self._mv[addr:addr + n])

    def view(self, addr, n, owner=None):
        # wasmtime reserves a 32-bit memory's whole address range up front, so the mapping never moves on grow
        buf = (ctypes.c_ubyte * n).from_address(self._base + addr)
        buf.owner = owner
        return buf

    def has(self, name):
        return name in self._names

    def fn(self, name):
        f = self._fns.get(name)
        if f is None:
            f = self._fns[name] = self._make(name)
        return f

    def _make(self, name):
        func = self._exports[name]
        ty = func.type(self._store)
        kinds = [str(p) for p in ty.params]
        n_res = len(ty.results)
        nraw = max(len(kinds), n_res, 1)
        raw = (ffi.wasmtime_val_raw_t * nraw)()
        # all arguments written into their 16-byte raw slots by one Struct.pack_into (i32 arguments are signed:
        # callers wrap unsigned words); the result is read back from slot 0
        pack = struct.Struct("<" + "".join(_SLOT[k] for k in kinds)).pack_into
        result = memoryview(raw).cast("B").cast("i")
        trap = ctypes.c_void_p()
        # the entry point's arguments converted to ctypes objects once: no conversion per call
        call = functools.partial(_entry(), ctypes.c_void_p(ctypes.cast(self._ctx, ctypes.c_void_p).value),
                                 ctypes.c_void_p(ctypes.addressof(func._func)), raw, ctypes.c_size_t(nraw),
                                 ctypes.byref(trap))

        def kernel(*args):
            pack(raw, 0, *args)
            if call() or trap.value:
                _raise(name, trap)
            return result[0] if n_res else None

        kernel.__name__ = name
        return kernel


# one raw slot (wasmtime_val_raw_t, 16 bytes) per parameter type
_SLOT = {"i32": "i12x", "i64": "q8x", "f32": "f12x", "f64": "d8x"}


@functools.cache
def _entry():
    """wasmtime_func_call_unchecked from a CDLL handle of our own (its argtypes are ours to set; wasmtime-py's
    handle keeps its own): ctypes passes the preconverted arguments as they are."""
    fn = ctypes.CDLL(_ffi.dll._name).wasmtime_func_call_unchecked
    fn.restype = ctypes.c_void_p
    return fn


class _SharedMemory(wasmtime.SharedMemory):
    """wasmtime-py 50's SharedMemory as an import: its own _as_extern passes a pointer to the pointer (TypeError)."""

    def _as_extern(self):
        return _ffi.wasmtime_extern_t(_ffi.WASMTIME_EXTERN_SHAREDMEMORY,
                                      _ffi.wasmtime_extern_union(sharedmemory=self.ptr()))


def _raise(name, trap):
    if trap.value:
        message = wasmtime.Trap._from_ptr(ctypes.cast(trap.value, ctypes.POINTER(ffi.wasm_trap_t))).message  # takes it over
        trap.value = None  # the next call starts with no trap
        raise KernelTrap(f"wasm kernel {name} trapped: {message}")
    raise KernelTrap(f"wasm kernel {name} failed (wasmtime returned an error)")
