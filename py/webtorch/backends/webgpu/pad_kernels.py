"""WGSL kernels of pad (pad_nd.wgsl, one dispatch for every dim) and pad_backward (pad_backward.wgsl, one
dispatch per padded dim: the adjoint of each dim's padding folded back in turn). pad_nd moves 32-bit words: an int64
tensor is padded as its words (a trailing dim of 2), a constant c as (x - c) padded with 0, plus c (exact mod 2^64)."""
import struct

from ... import _dtype as D
from ..._geometry import numel as prod
from . import block_split, dtypes as T, views
from .block_split import Out
from .elementwise_kernels import cast, elementwise
from .kernel_launch import dense, grid256, pack, source

MAX_RANK = 6
_MODES = {"constant": 0, "reflect": 1, "replicate": 2, "circular": 3}


def _value_bits(value, dtype):
    """The padding value as the 32-bit word the device stores for dtype."""
    if dtype.is_floating_point:
        return struct.unpack("<i", struct.pack("<f", float(value)))[0]
    if dtype is D.bool_:
        return 1 if value else 0
    if dtype in T.SMALL_INTS:
        value = T.wrap_int(int(value), dtype)
    return struct.unpack("<i", struct.pack("<I", int(value) & 0xFFFFFFFF))[0]


def _rows(values, fill=0):
    """Up to 8 per-dim values as two parameter rows."""
    v = tuple(values) + (fill,) * (8 - len(values))
    return [v[:4], v[4:]]


def _by_unpadded_dims(rec, fn, h, pads, out_shape, name):
    """Run a pad primitive in blocks of the dims it does not pad when a tensor it binds is past one binding
    (block_split.py); None when none is."""
    dims = tuple(d for d, (a, b) in enumerate(pads) if a == 0 and b == 0)
    ins, outs = [(h, dims)], [Out(out_shape, D.float32 if h.dtype is D.float16 else h.dtype, dims)]
    if not block_split.needed(ins, outs, rec.limits):
        return None
    return block_split.in_blocks(rec, fn, ins, outs, tuple(h.shape[d] for d in dims), name, "padded slice",
                                 "smaller tensors, or padding fewer dims")


def pad(rec, x, pads, mode, value):
    pads = tuple((int(a), int(b)) for a, b in pads)
    out_shape = tuple(s + a + b for s, (a, b) in zip(x.shape, pads))
    split = _by_unpadded_dims(rec, lambda x: pad(rec, x, pads, mode, value), x, pads, out_shape, "pad")
    if split is not None:
        return split
    if x.dtype is D.float16:
        return cast(rec, pad(rec, cast(rec, x, D.float32), pads, mode, value), D.float16)
    if len(x.shape) > MAX_RANK - (x.dtype is D.int64):  # fold the leading unpadded dims into one (host_rules.py)
        lead = len(x.shape) - MAX_RANK + 1 + (x.dtype is D.int64)
        xc = dense(rec, x)
        folded = views.reshaped(xc, (prod(x.shape[:lead]),) + x.shape[lead:])
        y = pad(rec, folded, ((0, 0),) + pads[lead:], mode, value)
        return views.reshaped(y, x.shape[:lead] + y.shape[1:])
    if x.dtype is D.int64:
        shift = int(value) if mode == "constant" else 0
        xs = elementwise(rec, "sub", [x, shift], D.int64) if shift else x
        y = rec.new(out_shape, D.int64)
        _pad_words(rec, xs.st.buf, xs.shape + (2,), tuple(2 * s for s in xs.strides) + (1,), 2 * xs.offset,
                   pads + ((0, 0),), mode, 0, y.st.buf, out_shape + (2,))
        return elementwise(rec, "add", [y, shift], D.int64) if shift else y
    y = rec.new(out_shape, x.dtype)
    _pad_words(rec, x.st.buf, x.shape, x.strides, x.offset, pads, mode,
               _value_bits(value, x.dtype) if mode == "constant" else 0, y.st.buf, out_shape)
    return y


def _pad_words(rec, xbuf, shape, strides, offset, pads, mode, value_bits, ybuf, out_shape):
    """One pad_nd dispatch: 32-bit words of geometry (shape, strides, offset) in ``xbuf`` padded into the
    contiguous ``out_shape`` words of ``ybuf``."""
    total = prod(out_shape)
    if total:
        groups, width = grid256(total, rec.limits)
        words = [(total, len(shape), width, value_bits)]
        words += _rows(out_shape, 1) + _rows(shape, 1) + _rows([a for a, _ in pads]) + _rows(strides)
        words.append((offset, 0, 0, 0))
        rec.record_kernel("pad_nd", source("pad_nd", MODE=f"{_MODES[mode]}u"), pack(words), groups,
                          [xbuf, ybuf], [xbuf], [ybuf])


def pad_backward(rec, g, pads, mode):
    out_shape = tuple(s - a - b for s, (a, b) in zip(g.shape, pads))
    split = _by_unpadded_dims(rec, lambda g: pad_backward(rec, g, pads, mode), g, pads, out_shape, "pad_backward")
    if split is not None:
        return split
    if g.dtype is D.float16:
        return cast(rec, pad_backward(rec, cast(rec, g, D.float32), pads, mode), D.float16)
    g = dense(rec, g)
    for dim, (lo, hi) in enumerate(pads):
        if lo == 0 and hi == 0:
            continue
        shape = g.shape
        L = shape[dim] - lo - hi
        out = rec.new(shape[:dim] + (L,) + shape[dim + 1:], D.float32)
        total = out.numel
        if total:
            groups, width = grid256(total, rec.limits)
            words = [(total, L, prod(shape[dim + 1:]), width), (lo, hi, 0, 0)]
            rec.record_kernel("pad_backward", source("pad_backward", MODE=f"{_MODES[mode]}u"), pack(words),
                              groups, [g.st.buf, out.st.buf], [g.st.buf], [out.st.buf])
        g = out
    return g
