"""Device "cpu" on WebAssembly: WasmBackend, the primitives of backends/base.py over kernels.wasm.

The class body lists each primitive: the handle metadata here, every other one a one-line delegation to the plain
function of the same name in its family module, called with the backend's KernelContext (context.py: runtime,
heap, constants arena) and base.py's parameters. Eager: each primitive runs its kernels before it returns.
"""
from ..base import Backend
from . import copies, creation, elementwise, matmul, reduction, rng, transfer
from .context import KernelContext
from .views import View


class WasmBackend(Backend):
    device_type = "cpu"
    host_fallbacks = frozenset()

    def __init__(self, runtime):
        self._ctx = KernelContext(runtime)
        self.rt, self.heap = runtime, self._ctx.heap

    # ---- handle metadata -----------------------------------------------------------------------------------
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

    # ---- creation ------------------------------------------------------------------------------------------
    def empty(self, shape, dtype):
        return creation.empty(self._ctx, shape, dtype)

    def full(self, shape, value, dtype):
        return creation.full(self._ctx, shape, value, dtype)

    def arange(self, start, end, step, dtype):
        return creation.arange(self._ctx, start, end, step, dtype)

    def linspace(self, start, end, steps, dtype):
        return creation.linspace(self._ctx, start, end, steps, dtype)

    def eye(self, n, m, dtype):
        return creation.eye(self._ctx, n, m, dtype)

    # ---- host transfer -------------------------------------------------------------------------------------
    def from_flat(self, values, shape, dtype):
        return transfer.from_flat(self._ctx, values, shape, dtype)

    def from_buffer(self, buf, shape, dtype):
        return transfer.from_buffer(self._ctx, buf, shape, dtype)

    def from_numpy(self, array, copy):
        return transfer.from_numpy(self._ctx, array, copy)

    def to_numpy(self, h):
        return transfer.to_numpy(self._ctx, h)

    def to_bytes(self, h):
        return transfer.to_bytes(self._ctx, h)

    def tolist(self, h):
        return transfer.tolist(self._ctx, h)

    def item(self, h):
        return transfer.item(self._ctx, h)

    def known_range(self, h):
        return transfer.known_range(self._ctx, h)

    def to_other(self, h, target):
        return transfer.to_other(self._ctx, h, target)

    # ---- views ---------------------------------------------------------------------------------------------
    def as_strided(self, h, shape, stride, offset):
        return View(h.st, tuple(shape), tuple(stride), int(offset))

    # ---- copies, casts and elementwise ---------------------------------------------------------------------
    def copy_(self, dst, src):
        return copies.copy_(self._ctx, dst, src)

    def contiguous(self, h):
        return copies.contiguous(self._ctx, h)

    def cast(self, h, dtype):
        return copies.cast(self._ctx, h, dtype)

    def elementwise(self, op, args, dtype, out=None):
        return elementwise.elementwise(self._ctx, op, args, dtype, out)

    # ---- reductions ----------------------------------------------------------------------------------------
    def reduce(self, op, h, dims, keepdim, dtype):
        return reduction.reduce(self._ctx, op, h, dims, keepdim, dtype)

    def arg_reduce(self, op, h, dim, keepdim):
        return reduction.arg_reduce(self._ctx, op, h, dim, keepdim)

    # ---- matrix products -----------------------------------------------------------------------------------
    def matmul(self, a, b):
        return matmul.matmul(self._ctx, a, b)

    # ---- random: Philox4x32-10 streams, webgpu's (backends/philox.py) ---------------------------------------
    def rng_new(self, seed):
        return rng.rng_new(self._ctx, seed)

    def rng_get_state(self, rng_):
        return rng.rng_get_state(self._ctx, rng_)

    def rng_set_state(self, rng_, state):
        return rng.rng_set_state(self._ctx, rng_, state)

    def uniform(self, shape, low, high, dtype, rng_):
        return rng.uniform(self._ctx, shape, low, high, dtype, rng_)

    def normal(self, shape, mean, std, dtype, rng_):
        return rng.normal(self._ctx, shape, mean, std, dtype, rng_)

    def randint(self, shape, low, high, dtype, rng_):
        return rng.randint(self._ctx, shape, low, high, dtype, rng_)

    def randperm(self, n, dtype, rng_):
        return rng.randperm(self._ctx, n, dtype, rng_)

    def bernoulli(self, p, shape, dtype, rng_):
        return rng.bernoulli(self._ctx, p, shape, dtype, rng_)
