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
        self.allocated = 0
        self._slots = {}  # nbytes -> (size class, the class's free list): the allocation hot path
        self._free_lists = {}  # size class -> addresses of free blocks

    def alloc(self, nbytes):
        """(address, size class, the free list the block returns to) of a block of at least nbytes, 64-byte
        aligned. The block is free again once its address is appended to that list and the class subtracted from
        ``allocated`` (Storage.__del__)."""
        slot = self._slots.get(nbytes)
        if slot is None:
            if len(self._slots) > 4096:
                self._slots.clear()
            cls = size_class(nbytes)
            slot = self._slots[nbytes] = (cls, self._free_lists.setdefault(cls, []))
        cls, free = slot
        addr = free.pop() if free else self._from_top(cls, nbytes)
        self.allocated += cls
        return addr, cls, free

    def _from_top(self, cls, nbytes):
        addr = self.top
        end = addr + cls
        if end > self.rt.size:
            if end > MAX_MEMORY:
                raise WasmOutOfMemory(f"device 'cpu' (wasm) is out of memory: {nbytes} more bytes do not fit in "
                                      f"wasm32's 4 GiB ({self.allocated} bytes in use)")
            self.rt.grow(min(MAX_MEMORY, max(end, self.rt.size * 3 // 2)))
        self.top = end
        return addr


class Storage:
    """One allocation holding ``numel`` elements of ``dtype``; its block goes back to the heap when it is garbage."""
    __slots__ = ("addr", "cls", "free", "heap", "dtype", "numel", "__weakref__")

    def __init__(self, heap, numel, dtype):
        self.addr, self.cls, self.free = heap.alloc((numel or 1) * dtype.itemsize)
        self.heap, self.dtype, self.numel = heap, dtype, numel

    def __del__(self):
        self.heap.allocated -= self.cls
        self.free.append(self.addr)

    @property
    def root(self):
        """The Storage owning these bytes (a StorageAlias's base)."""
        return self

    def retyped(self, dtype):
        """This storage's bytes seen as dtype (Tensor.view(dtype))."""
        return self if dtype is self.dtype else StorageAlias(self, dtype)


class StorageAlias:
    """A Storage's bytes under another dtype (the whole elements of it they hold): it keeps the Storage alive and
    frees nothing."""
    __slots__ = ("base", "addr", "dtype", "numel", "__weakref__")

    def __init__(self, base, dtype):
        self.base, self.addr, self.dtype = base, base.addr, dtype
        self.numel = base.numel * base.dtype.itemsize // dtype.itemsize

    @property
    def root(self):
        return self.base

    def retyped(self, dtype):
        return self.base.retyped(dtype)
