"""How each webtorch dtype lives on the webgpu device: WGSL storage type, compute type, host packing.

bool is stored as one u32 per element (WGSL cannot write single bytes without atomics); int64 is stored
as i32 (values outside int32 raise); float16 needs the adapter's ``shader-f16`` feature and computes
in f32; float64 and the 8/16-bit integer types are not supported.
"""
from ... import _dtype as D

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1

# dtype -> (WGSL storage element type, WGSL compute type, bytes per element on the device, array code)
_TYPES = {
    D.float32: ("f32", "f32", 4, "f"),
    D.float16: ("f16", "f32", 2, "e"),
    D.int32: ("i32", "i32", 4, "i"),
    D.int64: ("i32", "i32", 4, "i"),
    D.uint32: ("u32", "u32", 4, "I"),
    D.bool_: ("u32", "bool", 4, "I"),
}


class _Features:
    f16 = False
    subgroups = False  # row reductions use subgroup operations (subgroup_reduce.py)


features = _Features()


def check(dt):
    """Raise a clear TypeError when dtype ``dt`` cannot live on the webgpu device."""
    if dt in _TYPES and (dt is not D.float16 or features.f16):
        return
    if dt is D.float64:
        raise TypeError("Cannot convert a webgpu Tensor to float64 dtype as WebGPU doesn't support float64. "
                        "Please use float32 instead.")
    if dt is D.float16:
        raise TypeError("float16 is not supported on device 'webgpu' by this adapter (it lacks the "
                        "'shader-f16' feature); use torch.float32")
    raise TypeError(f"dtype {dt} is not supported on device 'webgpu'; use torch.int32 (integers), "
                    "torch.bool or torch.float32")


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
    """int64 values must fit the 32-bit storage: raise naming the offending value otherwise."""
    if dt is not D.int64 or not values:
        return
    lo, hi = min(values), max(values)
    if lo < I32_MIN or hi > I32_MAX:
        bad = lo if lo < I32_MIN else hi
        raise RuntimeError(f"value {bad} is out of range for int64 on device 'webgpu', which stores int64 as "
                           f"32-bit integers (range [{I32_MIN}, {I32_MAX}])")
