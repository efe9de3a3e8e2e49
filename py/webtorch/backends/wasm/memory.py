"""The wasm backend's heap: the linear memory above the kernels' own data, handed out by size class.

Size classes as the webgpu BufferPool's (four per power of two, at least 256 bytes), so a training step that frees
and reallocates the same shapes reuses the same blocks; a block returns to its class's free list when its Storage is
garbage (refcounting: users never free). The memory grows (never shrinks: WebAssembly memories cannot) by at least
half its size when the top of the heap passes its end.
"""
from ..webgpu.memory import size_class

MAX_MEMORY = 1 << 32  # wasm32's address space


class WasmOutOfMemory(RuntimeError):
    """The 4 GiB of wasm32's linear memory are exhausted."""


class Heap:
    def __init__(self, rt):
        self.rt = rt
        self.top = (rt.heap_base + 63) // 64 * 64
        self.free_lists = {}
        self.allocated = 0
        self.peak = 0
        self._classes = {}  # nbytes -> size class (the allocation hot path)

    def alloc(self, nbytes):
        """(address, size class) of a block of at least nbytes, 64-byte aligned."""
        cls = self._classes.get(nbytes)
        if cls is None:
            if len(self._classes) > 4096:
                self._classes.clear()
            cls = self._classes[nbytes] = size_class(nbytes)
        lst = self.free_lists.get(cls)
        if lst:
            addr = lst.pop()
        else:
            addr = self.top
            end = addr + cls
            if end > self.rt.size:
                if end > MAX_MEMORY:
                    raise WasmOutOfMemory(f"device 'cpu' (wasm) is out of memory: {nbytes} more bytes do not fit in "
                                          f"wasm32's 4 GiB ({self.allocated} bytes in use)")
                self.rt.grow(min(MAX_MEMORY, max(end, self.rt.size * 3 // 2)))
            self.top = end
        self.allocated += cls
        if self.allocated > self.peak:
            self.peak = self.allocated
        return addr, cls

    def release(self, addr, cls):
        self.allocated -= cls
        self.free_lists.setdefault(cls, []).append(addr)


class Storage:
    """One allocation holding ``numel`` elements of ``dtype``; its block goes back to the heap when it is garbage."""
    __slots__ = ("addr", "cls", "heap", "dtype", "numel", "__weakref__")

    def __init__(self, heap, numel, dtype):
        self.addr, self.cls = heap.alloc(max(numel, 1) * dtype.itemsize)
        self.heap, self.dtype, self.numel = heap, dtype, numel

    def __del__(self):
        self.heap.release(self.addr, self.cls)
