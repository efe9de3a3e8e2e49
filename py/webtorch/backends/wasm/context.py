"""KernelContext: what every wasm kernel family works with (the first parameter of their functions).

It holds the runtime (runtime.py) and the heap (memory.py), makes result Views, and lays out a kernel call's
geometry and scalars in a scratch block: a kernel is called as ``ctx.call(name, addresses..., ctx.geom(shape,
strides of each operand))`` where addresses are ``View.addr`` (the first element) and the geometry block is the
int32 layout kernels.h reads, dims coalesced first. Scalars an operand stands for are written to the scratch
block (``ctx.scalar``) and read through stride 0.
"""
import struct

from ... import _dtype as D
from ..._geometry import coalesce, contiguous_strides, numel
from .memory import Heap, Storage
from .views import View

# dtype -> struct format of one element (bfloat16: packed by hand from float32's bits)
FORMAT = {D.bool_: "?", D.uint8: "B", D.int8: "b", D.int16: "h", D.int32: "i", D.int64: "q", D.uint32: "I",
          D.float16: "e", D.float32: "f", D.float64: "d", D.bfloat16: "H"}
_SCRATCH = 4096
_GEOM_BYTES = 2048  # nd <= 16 dims x 4 operands fit with room to spare
_SCALAR_SLOTS = 8  # 16 bytes each, after the geometry


def float_to_bf16_bits(x):
    """float32's bits of x rounded to nearest even to bfloat16 (NaN stays a quiet NaN)."""
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def bf16_bits_to_float(b):
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def pack_value(value, dtype):
    """The bytes of one element of dtype holding the Python number value (integers wrap, floats truncate to
    integers, as PyTorch's casts)."""
    if dtype is D.bfloat16:
        return struct.pack("<H", float_to_bf16_bits(float(value)))
    if dtype.is_floating_point:
        try:
            return struct.pack("<" + FORMAT[dtype], value)
        except OverflowError:  # past float16's range: inf
            return struct.pack("<" + FORMAT[dtype], float("inf") if value > 0 else float("-inf"))
    if dtype is D.bool_:
        return b"\x01" if value else b"\x00"
    v = int(value) & ((1 << (8 * dtype.itemsize)) - 1)
    return v.to_bytes(dtype.itemsize, "little")


class KernelContext:
    def __init__(self, rt):
        self.rt = rt
        self.heap = Heap(rt)
        self.scratch, _ = self.heap.alloc(_SCRATCH)  # held for the context's life
        self._fn = rt.fn

    def call(self, name, *args):
        return self._fn(name)(*args)

    def has(self, name):
        return self.rt.has(name)

    def new(self, shape, dtype):
        """A fresh contiguous View (uninitialized)."""
        shape = tuple(shape)
        return View(Storage(self.heap, numel(shape), dtype), shape, contiguous_strides(shape), 0)

    def geom(self, shape, *strides):
        """Address of the geometry block of an index space ``shape`` walked by operands with ``strides``."""
        shape, strides = coalesce(shape, strides)
        if not shape:
            shape, strides = (1,), [(0,) for _ in strides]
        nd = len(shape)
        if nd > 16:
            raise RuntimeError(f"a wasm kernel takes at most 16 non-contiguous dims, got {nd}: call .contiguous()")
        words = [nd, *shape]
        for st in strides:
            words.extend(st)
        self.rt.write(self.scratch, struct.pack(f"<{len(words)}i", *words))
        return self.scratch

    def scalar(self, value, dtype, slot=0):
        """Address of a scratch element of dtype holding value (slot < 8: one per operand of a call)."""
        addr = self.scratch + _GEOM_BYTES + 16 * slot
        self.rt.write(addr, pack_value(value, dtype))
        return addr

    def write_values(self, view, values):
        """Write a flat sequence of Python numbers into the contiguous view."""
        dt = view.dtype
        if dt is D.bfloat16:
            data = struct.pack(f"<{len(values)}H", *[float_to_bf16_bits(float(v)) for v in values])
        else:
            data = struct.pack(f"<{len(values)}{FORMAT[dt]}", *values)
        self.rt.write(view.addr, data)
