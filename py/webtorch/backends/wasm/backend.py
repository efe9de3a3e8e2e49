"""Device "cpu" on WebAssembly: WasmBackend, the primitives of the contract (backends/contract.py) over kernels.wasm.

The class names the family module of each contract family (``families``); every primitive is the plain function of
that name there, called with the backend's KernelContext (context.py: runtime, heap, constants arena) first
(``context = "ctx"``; base.py binds them). The handle metadata and ``as_strided`` are written here. Eager as
PyTorch's CPU, but for elementwise chains: ``elementwise`` records into the pending chain where fusing pays, and
every other primitive runs that chain first (chain.py): a wrapper does, but for the primitives in ``RUN_CHAIN_FIRST``,
whose functions do it themselves as their first statement (the hot ones of small-tensor programs, where the wrapper's
Python frame was 4% of a call). The guard cannot be bound only while a chain is pending: a call site looks the
primitive up before its arguments record (``be.reduce("sum", be.elementwise("exp", ...))``).
"""
import functools

from ... import _dtype as D
from ..base import Backend
from ..contract import FLOAT8_REFUSED, PRIMITIVES
from . import chain, convolution, creation, elementwise, indexing, matmul, nn, optim, pooling, reduction, rng, transfer
from .context import KernelContext
from .views import View

RUN_CHAIN_FIRST = frozenset({"reduce", "matmul"})


class WasmBackend(Backend):
    device_type = "cpu"
    families = {"creation": creation, "transfer": transfer, "elementwise": elementwise, "reduce": reduction,
                "checks": reduction, "matmul": matmul, "random": rng, "randperm": rng, "indexing": indexing,
                "conv": convolution, "unfold": convolution, "pool": pooling, "pad": ".padding",
                "embedding": ".embedding", "optim": optim, "norm": nn, "scan_sort": ".sorting", "linalg": ".linalg"}
    context = "ctx"

    def __init__(self, runtime):
        ctx = self._ctx = KernelContext(runtime)
        ctx.chain = chain.Chain(ctx)
        self.rt, self.heap = runtime, ctx.heap
        self.bind(ctx)

    def bind(self, ctx):
        super().bind(ctx)
        pending = ctx.chain
        for name in self.wiring:
            if name != "elementwise":
                fn = getattr(self, name)
                if PRIMITIVES[name].family in FLOAT8_REFUSED:
                    fn = _refusing_float8(fn)
                setattr(self, name, fn if name in RUN_CHAIN_FIRST else _after_chain(pending, fn))
        self.elementwise = functools.partial(chain.elementwise, ctx)

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
        st = h.st.root  # (a view(dtype)'s alias counts whole elements of its own dtype)
        return st.numel * st.dtype.itemsize

    def as_strided(self, h, shape, stride, offset):
        return View(h.st, tuple(shape), tuple(stride), int(offset))

    def view_dtype(self, h, dtype, shape, stride, offset):
        return View(h.st.retyped(dtype), tuple(shape), tuple(stride), int(offset))


def _refusing_float8(primitive):
    """primitive, raising PyTorch's NotImplementedError (naming the dtype and the fix) for a float8 operand: its
    kernels would read the bytes as another type."""
    def run(*args, **kwargs):
        for a in args:
            if type(a) is View and a.st.dtype in D.FLOAT8:
                raise D.float8_compute_error(a.st.dtype)
        return primitive(*args, **kwargs)
    return run


def _after_chain(pending, primitive):
    """primitive, running the pending elementwise chain first (the bytes it reads or writes are then there)."""
    def run(*args, **kwargs):
        if pending.ops:
            pending.flush()
        return primitive(*args, **kwargs)
    return run
