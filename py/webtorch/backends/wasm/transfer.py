"""The wasm backend's primitives that move values between the host, dtypes and devices (base.py): from_flat,
from_buffer, from_numpy, to_numpy, to_bytes, tolist, item, known_range, to_other. The linear memory is
little-endian, as the byte layout base.py names, so bytes move unchanged."""
import struct
import warnings

from ... import _dtype as D
from .context import FORMAT, bf16_bits_to_float
from .copies import cast, contiguous


def from_flat(ctx, values, shape, dtype):
    if dtype in _VIA_FLOAT32:  # Python floats -> float32 -> the half type, rounding to nearest even (as PyTorch)
        return cast(ctx, from_flat(ctx, values, shape, D.float32), dtype)
    if dtype in D.FLOAT8:  # Python floats are doubles: double -> float -> float8, as c10
        return cast(ctx, from_flat(ctx, values, shape, D.float64), dtype)
    out = ctx.new(shape, dtype)
    if values:
        if not dtype.is_floating_point and dtype is not D.bool_:
            values = [int(v) for v in values]
        try:
            ctx.write_values(out, values)
        except struct.error as e:
            raise OverflowError(f"a value of {values} does not fit in {dtype}: {e}") from None
    return out


_VIA_FLOAT32 = (D.float16, D.bfloat16)


def from_buffer(ctx, buf, shape, dtype):
    out = ctx.new(shape, dtype)
    data = memoryview(buf).cast("B")
    if data.nbytes != out.numel * dtype.itemsize:
        raise ValueError(f"{data.nbytes} bytes do not hold {out.numel} elements of {dtype}")
    ctx.rt.write(out.addr, data)
    return out


_NOT_SHARED = ("{what}: device 'cpu' is the WebAssembly backend here, whose memory {whose} cannot share, so {result} "
               "is a copy: a later write to one is not seen by the other (PyTorch's CPU shares the memory). Keep "
               "one of the two as the data and write only to it, or copy again after writing.")


def from_numpy(ctx, array, copy):
    """Always a copy: a NumPy array cannot live in the wasm memory (the dtype checks are the NumPy backend's).
    Where the caller asked to share (torch.from_numpy, as_tensor), a UserWarning says it was copied."""
    import numpy as np

    from ..numpy.arrays import FROM_NP
    from ..numpy.transfer import from_numpy as checked
    if not copy:
        warnings.warn(_NOT_SHARED.format(what="torch.from_numpy/as_tensor of a NumPy array", whose="a NumPy array",
                                         result="the tensor"), UserWarning, stacklevel=4)
    a = np.require(checked(array, False), requirements="C")  # (ascontiguousarray makes a 0-dim array 1-dim)
    return from_buffer(ctx, a.reshape(-1).view(np.uint8), a.shape, FROM_NP[a.dtype])


def to_numpy(ctx, h):
    """An ndarray aliasing the view's memory where the runtime allows it (CPython), else a copy."""
    import numpy as np

    from ..numpy.arrays import npdtype
    nd = npdtype(h.dtype)
    isz = h.dtype.itemsize
    buf = ctx.rt.view(h.st.addr, max(h.st.numel, 1) * isz, h.st)
    if buf is None:
        warnings.warn(_NOT_SHARED.format(what="Tensor.numpy()", whose="NumPy (the page's memory is JavaScript's)",
                                         result="the array"), UserWarning, stacklevel=4)
        return np.frombuffer(to_bytes(ctx, h), nd).reshape(h.shape)
    if not h.numel:
        return np.empty(h.shape, nd)
    ctx.chain.export(h.st)
    return np.ndarray(h.shape, nd, buf, h.offset * isz, tuple(s * isz for s in h.strides))


def to_bytes(ctx, h):
    if not h.is_contiguous():
        h = contiguous(ctx, h)
    return ctx.rt.read(h.addr, h.numel * h.dtype.itemsize)


def _values(ctx, h):
    if h.dtype in D.FLOAT8:
        h = cast(ctx, h, D.float32)
    n = h.numel
    vals = struct.unpack(f"<{n}{FORMAT[h.dtype]}", to_bytes(ctx, h))
    if h.dtype is D.bfloat16:
        return [bf16_bits_to_float(v) for v in vals]
    return vals


def tolist(ctx, h):
    vals = _values(ctx, h)
    if not h.shape:
        return vals[0]
    return _nest(list(vals), h.shape)


def _nest(flat, shape):
    if len(shape) == 1:
        return flat
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def item(ctx, h):
    if h.numel != 1:
        raise RuntimeError(f"a Tensor with {h.numel} elements cannot be converted to Scalar")
    if h.dtype in D.FLOAT8:
        h = cast(ctx, h, D.float32)
    isz = h.dtype.itemsize
    (v,) = struct.unpack("<" + FORMAT[h.dtype], ctx.rt.read(h.addr, isz))
    return bf16_bits_to_float(v) if h.dtype is D.bfloat16 else v


def known_range(ctx, h):
    return None  # reading the linear memory is as cheap as keeping bounds


def to_other(ctx, h, target):
    return target.from_buffer(to_bytes(ctx, h), h.shape, h.dtype)
