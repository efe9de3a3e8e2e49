"""Device "cpu" on WebAssembly: WasmBackend, the primitives of the contract (backends/contract.py) over kernels.wasm.

The class names the family module of each contract family (``families``); every primitive is the plain function of
that name there, called with the backend's KernelContext (context.py: runtime, heap, constants arena) first
(``context = "ctx"``; base.py binds them). The handle metadata and ``as_strided`` are written here. Eager: each
primitive runs its kernels before it returns.
"""
from ..base import Backend
from . import (convolution, creation, elementwise, embedding, indexing, linalg, matmul, nn, optim, padding, pooling,
               reduction, rng, sorting, transfer)
from .context import KernelContext
from .views import View


class WasmBackend(Backend):
    device_type = "cpu"
    families = {"creation": creation, "transfer": transfer, "elementwise": elementwise, "reduce": reduction,
                "checks": reduction, "matmul": matmul, "random": rng, "randperm": rng, "indexing": indexing,
                "conv": convolution, "unfold": convolution, "pool": pooling, "pad": padding, "embedding": embedding,
                "optim": optim, "norm": nn, "scan_sort": sorting, "linalg": linalg}
    context = "ctx"

    def __init__(self, runtime):
        ctx = self._ctx = KernelContext(runtime)
        self.rt, self.heap = runtime, ctx.heap
        self.bind(ctx)

    # ---- the handle family: metadata and the view primitive ----------------------------------------------------
    def shape(self, h):
        return h.shape

    def geometry(self, h):
        return h.shape, h.strides, h.offset

    def dtype(self, h):
        return h.st.dtype

    def data_ptr(self, h):
        return h.addr

    def storage_ptr(self, h):
        return h.st.addr

    def storage_nbytes(self, h):
        return h.st.numel * h.st.dtype.itemsize

    def as_strided(self, h, shape, stride, offset):
        return View(h.st, tuple(shape), tuple(stride), int(offset))
