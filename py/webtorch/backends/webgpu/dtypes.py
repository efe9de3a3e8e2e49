"""How each webtorch dtype lives on the webgpu device: WGSL storage type, compute type, host packing.

bool is stored as one u32 per element (WGSL cannot write single bytes without atomics); int64 as two 32-bit
words per element (``vec2<u32>``, low word first: the host's little-endian int64 bytes as they are), computing
with the 64-bit helpers of wgsl_int64.py; float16 needs the adapter's ``shader-f16`` feature and computes in
f32; float64 is not supported.

uint8, int8 and int16 are stored as one i32 per element and compute in i32; every value of one of them that
a kernel produces is wrapped to its width at once (``wrap_expr``: uint8 keeps the low 8 bits, int8/int16
sign-extend the low 8/16 bits), so a fused chain sees the same wrapped intermediates as PyTorch's CPU.
float -> small int truncates toward zero and keeps the low bits, as PyTorch's CPU does (through int32:
values outside the int32 range, inf and NaN give 0).
"""
from ... import _dtype as D
from .wgsl_int64 import TYPE as I64

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

# dtype -> (WGSL storage element type, WGSL compute type, bytes per element on the device, array code)
_TYPES = {
    D.float32: ("f32", "f32", 4, "f"),
    D.float16: ("f16", "f32", 2, "e"),
    D.int32: ("i32", "i32", 4, "i"),
    D.int64: (I64, I64, 8, "q"),
    D.uint32: ("u32", "u32", 4, "I"),
    D.bool_: ("u32", "bool", 4, "I"),
    D.uint8: ("i32", "i32", 4, "i"),
    D.int8: ("i32", "i32", 4, "i"),
    D.int16: ("i32", "i32", 4, "i"),
}
# the dtypes whose device bytes are their host bytes (little-endian, unwidened): Tensor.view(dtype) among them
HOST_BYTES = (D.float32, D.int32, D.uint32, D.int64, D.float16)
SMALL_INTS = {D.uint8: 8, D.int8: 8, D.int16: 16}  # dtype -> bits kept (stored widened to i32)
# host array codes of the real element types (bytes in and out: frombuffer, to_bytes)
HOST_CODES = {D.uint8: "B", D.int8: "b", D.int16: "h"}


class Features:
    """The adapter features a device's code generation follows (one per Recorder, from its runtime's features)."""

    def __init__(self, names):
        self.f16 = "shader-f16" in names
        self.subgroups = "subgroups" in names  # row reductions use subgroup operations (subgroup_reduce.py)

    def key(self):
        return self.f16, self.subgroups


def check(dt, features):
    """Raise a clear TypeError when dtype ``dt`` cannot live on the webgpu device whose ``features`` are given."""
    if dt in _TYPES and (dt is not D.float16 or features.f16):
        return
    if dt is D.float64:
        raise TypeError("Cannot convert a webgpu Tensor to float64 dtype as WebGPU doesn't support float64. "
                        "Please use float32 instead (.float(), dtype=torch.float32), or keep float64 tensors on "
                        "device 'cpu' (device='cpu', .cpu()).")
    if dt is D.float16:
        raise TypeError("float16 is not supported on device 'webgpu' by this adapter (it lacks the "
                        "'shader-f16' feature); use torch.float32")
    raise TypeError(f"dtype {dt} is not supported on device 'webgpu'; supported: float32, float16 (with "
                    "'shader-f16'), int64, int32, int16, int8, uint8, uint32 and bool")


def storage_type(dt):
    return _TYPES[dt][0]


def compute_type(dt):
    return _TYPES[dt][1]


DEVICE_ITEMSIZE = {dt: t[2] for dt, t in _TYPES.items()}  # read per allocated storage


def device_itemsize(dt):
    return DEVICE_ITEMSIZE[dt]


def array_code(dt):
    """The ``array`` module type code of the device representation."""
    return _TYPES[dt][3]


def check_int_range(values, dt):
    """Python ints given for an int64 (or int32) tensor or scalar must fit it: PyTorch's overflow error otherwise."""
    if not values or dt not in (D.int64, D.int32):
        return
    lo, hi = (I64_MIN, I64_MAX) if dt is D.int64 else (I32_MIN, I32_MAX)
    if min(values) < lo or max(values) > hi:
        raise RuntimeError(f"value cannot be converted to type {'int64_t' if dt is D.int64 else 'int32_t'} "
                           "without overflow")


def wrap_int(v, dt):
    """Python int v wrapped to small-int dtype dt (two's complement, as PyTorch's casts)."""
    bits = SMALL_INTS[dt]
    v &= (1 << bits) - 1
    return v - (1 << bits) if dt is not D.uint8 and v >= 1 << (bits - 1) else v


def wrap_expr(e, dt):
    """WGSL (i32) expression e wrapped to small-int dtype dt."""
    if dt is D.uint8:
        return f"({e} & 255)"
    sh = 32 - SMALL_INTS[dt]
    return f"(({e} << {sh}u) >> {sh}u)"


def float_to_small_int(e):
    """WGSL i32 of f32 expression ``e`` (a name: it is read twice) as PyTorch's CPU casts a float to a small int
    before keeping the low bits: truncation toward zero, 0 outside the int32 range and for NaN (x86's
    cvttss2si gives INT_MIN there, whose low 16 bits are 0)."""
    return f"select(0, i32({e}), abs({e}) < 2147483648.0)"


def check_small_range(values, dt):
    """Values given for a small-int dtype at creation: PyTorch's range check (c10 ``overflows``: unsigned
    types accept negatives down to -max, which wrap), then wrapped. Floats truncate toward zero."""
    lo, hi = (-255, 255) if dt is D.uint8 else (-(1 << (SMALL_INTS[dt] - 1)), (1 << (SMALL_INTS[dt] - 1)) - 1)
    out = []
    for v in values:
        if (v < (0 if isinstance(v, float) and dt is D.uint8 else lo)) or v > hi:
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
        out.append(wrap_int(int(v), dt))
    return out
