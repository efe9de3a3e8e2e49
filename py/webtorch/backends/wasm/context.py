"""KernelContext: what every wasm kernel family works with (the first parameter of their functions).

It holds the runtime (runtime.py) and the heap (memory.py), makes result Views, and lays out a kernel call's
geometry and scalars in a constants arena: a kernel is called as ``ctx.call(name, addresses..., ctx.geom(shape,
strides of each operand))`` where addresses are ``View.addr`` (the first element) and the geometry block is the
int32 layout kernels.h reads, dims coalesced first. Scalars an operand stands for live in the arena too
(``ctx.scalar``), read with stride 0.
"""
import struct

from ... import _dtype as D
from ..._geometry import coalesce, contiguous_strides, numel
from .memory import Heap, Storage
from .views import View

# dtype -> struct format of one element (bfloat16: packed by hand from float32's bits)
FORMAT = {D.bool_: "?", D.uint8: "B", D.int8: "b", D.int16: "h", D.int32: "i", D.int64: "q", D.uint32: "I",
          D.float16: "e", D.float32: "f", D.float64: "d", D.bfloat16: "H"}
FORMAT.update({d: "B" for d in D.FLOAT8})  # (bits: KernelContext.pack rounds a number into them)
_ARENA = 1 << 16


def int_range(dt):
    """(min, max) of the integer (or bool) dtype dt."""
    if dt is D.bool_:
        return 0, 1
    bits = 8 * dt.itemsize
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dt.is_signed else (0, (1 << bits) - 1)


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
        # geometry blocks and scalars, cached by content: a training step's repeated shapes write nothing (a write
        # is a crossing into JS in the page)
        self._arena = self.heap.alloc(_ARENA)[0]  # held for the context's life
        self._arena_used = 0
        self._geoms, self._scalars = {}, {}
        self._contiguous = {}  # shape -> (numel, C strides): result Views' hot path
        # this instance's thread-local block (threads.c: the GEMM's packing workspace), held for the context's life
        self._thread_block = self.heap.alloc(rt.fn("thread_block_bytes")())[0]
        rt.fn("thread_init")(self._thread_block)
        rt.start_threads(self.heap)
        self._fn = rt.fn
        self.chain = None  # the pending elementwise chain (chain.py), made by WasmBackend

    def call(self, name, *args):
        return self._fn(name)(*args)

    def has(self, name):
        return self.rt.has(name)

    def layout(self, shape):
        """(numel, C-contiguous strides) of the tuple shape."""
        known = self._contiguous.get(shape)
        if known is None:
            if len(self._contiguous) > 4096:
                self._contiguous.clear()
            known = self._contiguous[shape] = (numel(shape), contiguous_strides(shape))
        return known

    def new(self, shape, dtype):
        """A fresh contiguous View (uninitialized)."""
        shape = tuple(shape)
        n, strides = self.layout(shape)
        return View(Storage(self.heap, n, dtype), shape, strides, 0)

    def geom(self, shape, *strides):
        """Address of the geometry block of an index space ``shape`` walked by operands with ``strides``."""
        key = (shape, strides)
        addr = self._geoms.get(key)
        if addr is None:
            cs, cst = coalesce(shape, strides)
            if not cs:
                cs, cst = (1,), [(0,) for _ in strides]
            if len(cs) > 16:
                raise RuntimeError(f"a wasm kernel takes at most 16 non-contiguous dims, got {len(cs)}: call "
                                   ".contiguous() first")
            words = [len(cs), *cs]
            for st in cst:
                words.extend(st)
            addr = self._geoms[key] = self.place(struct.pack(f"<{len(words)}i", *words))
        return addr

    def pack(self, value, dtype):
        """The bytes of one element of dtype holding the Python number value (pack_value; a float8 rounds as
        c10 rounds, through float32 and the cast kernel, so the rounding has one implementation here)."""
        if dtype not in D.FLOAT8:
            return pack_value(value, dtype)
        one = self.new((1,), dtype)
        self.call("float8_from_f32", one.addr, self.scalar(value, D.float32), self.geom((1,), (1,), (0,)),
                  D.FLOAT8.index(dtype))  # (the format argument of wasm-kernels/float8.c)
        return self.rt.read(one.addr, 1)

    def scalar(self, value, dtype):
        """Address of an element of dtype holding the Python number value (read by kernels through stride 0)."""
        # by value first (no packing); zero never, as -0.0 == 0.0 and their bits differ (equal nonzero numbers pack
        # alike whatever their type: Python compares int and float exactly), nor NaN (each NaN object its own key)
        key = (value, dtype)
        addr = self._scalars.get(key) if value else None
        if addr is None:
            data = self.pack(value, dtype)
            addr = self._scalars.get(data)
            if addr is None:
                addr = self._scalars[data] = self.place(data)
            if value and value == value:
                if len(self._scalars) > 4096:  # many values of one packing (doubles rounding to one float32)
                    self._scalars.clear()
                self._scalars[key] = addr
        return addr

    def place(self, data):
        """Copy data into the constants arena (8-byte aligned); when it is full, forget every cached block and
        start over (kernels run one at a time; the few blocks of one call that straddle a reset sit at the arena's
        end and at its start, apart)."""
        n = (len(data) + 7) // 8 * 8
        if self._arena_used + n > _ARENA:
            self._geoms.clear()
            self._scalars.clear()
            self._arena_used = 0
        addr = self._arena + self._arena_used
        self._arena_used += n
        self.rt.write(addr, data)
        return addr

    def write_values(self, view, values):
        """Write a flat sequence of Python numbers into the contiguous view (not of a half type: transfer.py
        uploads those as float32 and casts)."""
        self.rt.write(view.addr, struct.pack(f"<{len(values)}{FORMAT[view.dtype]}", *values))
