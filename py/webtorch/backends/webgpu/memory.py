"""BufferPool: device buffers recycled by size class, and the memory statistics built on it.

Size classes: four per power of two (like PyTorch's roundup_power2_divisions=4), at least 256 bytes,
so a training step that frees and reallocates the same shapes reuses the same buffers.
"""
from .runtime import OutOfMemoryError


def size_class(nbytes):
    if nbytes <= 256:
        return 256
    p = 1 << (nbytes - 1).bit_length()  # next power of two
    step = p // 8  # four classes between p/2 and p
    return (nbytes + step - 1) // step * step


class BufferPool:
    def __init__(self, runtime, limits):
        self.rt = runtime
        self.limits = limits  # the device's (limits.py): how large one buffer and one binding may be
        self.free_lists = {}  # size class -> [buffer ids]
        self.allocated = 0  # bytes held by live buffers (by size class)
        self.peak = 0
        self.reserved = 0  # allocated + cached in free lists
        self.n_alloc = 0  # device allocations made (cache misses)

    def acquire(self, nbytes):
        """(buffer id, size class) for at least nbytes."""
        cls = self._fit(nbytes, size_class(nbytes))
        lst = self.free_lists.get(cls)
        if lst:
            bid = lst.pop()
        else:
            try:
                bid = self.rt.alloc(cls)
            except OutOfMemoryError:
                self.empty_cache()
                bid = self.rt.alloc(cls)
            self.reserved += cls
            self.n_alloc += 1
        self.allocated += cls
        if self.allocated > self.peak:
            self.peak = self.allocated
        return bid, cls

    def _fit(self, nbytes, cls):
        """The bytes to allocate for a tensor of ``nbytes`` whose size class is ``cls``: the class, cut down to the
        binding limit (when the tensor fits one binding) or to maxBufferSize (the largest storage; past it the
        tensor cannot exist: OutOfMemoryError naming the sizes and what to try)."""
        binding, most = self.limits.binding_size(), self.limits.buffer_size()
        if nbytes > most:
            raise OutOfMemoryError(
                f"a webgpu tensor of {nbytes:,} bytes ({nbytes / 2 ** 20:.1f} MiB) exceeds this adapter's "
                f"maxBufferSize ({most:,} bytes), the largest storage it can hold (its maxStorageBufferBindingSize is "
                f"{binding:,}): use a smaller batch or model dimension, or torch.float16 where the adapter supports "
                "it (half the bytes), or keep this tensor on the cpu device")
        for cap in (binding, most):
            if nbytes <= cap < cls:
                return cap - cap % 16
        return cls

    def release(self, bid, cls):
        self.allocated -= cls
        if bid in self.rt.bad_buffers:  # its allocation failed: destroy it, never hand it out again
            self.rt.bad_buffers.discard(bid)
            self.rt.free(bid)
            self.reserved -= cls
            return
        self.free_lists.setdefault(cls, []).append(bid)

    def empty_cache(self):
        for cls, lst in self.free_lists.items():
            for bid in lst:
                self.rt.free(bid)
                self.reserved -= cls
        self.free_lists.clear()
