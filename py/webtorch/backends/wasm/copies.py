"""Strided copies and dtype conversions on the wasm backend: copy_, contiguous, cast (kernels cast_<src>_<dst>,
generated for every dtype pair by wasm-kernels/generate.py; float16/bfloat16 round to nearest even)."""
from ... import _dtype as D
from ... import _geometry as G
from .views import View

EXPANDED_WRITE = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
                  "location. Please clone() the tensor before performing the operation.")


def check_writable(h):
    if G.is_expanded(h.shape, h.strides):
        raise RuntimeError(EXPANDED_WRITE)


def overlaps(a, b):
    """Whether views a and b may share bytes (same storage and intersecting element ranges)."""
    if a.st is not b.st:
        return False
    ea, eb = G.extent(a.shape, a.strides, a.offset), G.extent(b.shape, b.strides, b.offset)
    return bool(ea and eb) and a.offset < eb and b.offset < ea


def convert(ctx, dst, src):
    """The cast kernel writing View src (already dst's shape, or broadcast strides) into View dst."""
    s, d = src.dtype, dst.dtype
    if s in _FLOAT8_INDEX or d in _FLOAT8_INDEX:
        _convert_float8(ctx, dst, src)
        return
    ctx.call(f"cast_{s.name}_{d.name}", dst.addr, src.addr, ctx.geom(dst.shape, dst.strides, src.strides))


_FLOAT8_INDEX = {d: i for i, d in enumerate(D.FLOAT8)}  # the format argument of wasm-kernels/float8.c


def _convert_float8(ctx, dst, src):
    """float8.c's casts with float32; a copy onto the same format moves bytes; any other pair goes through a
    float32 temporary, as c10 converts float8 through float."""
    s, d = src.dtype, dst.dtype
    g = ctx.geom(dst.shape, dst.strides, src.strides)
    if s is d:
        ctx.call("cast_uint8_uint8", dst.addr, src.addr, g)
    elif d is D.float32:
        ctx.call("float8_to_f32", dst.addr, src.addr, g, _FLOAT8_INDEX[s])
    elif s is D.float32:
        ctx.call("float8_from_f32", dst.addr, src.addr, g, _FLOAT8_INDEX[d])
    else:
        wide = ctx.new(dst.shape, D.float32)
        convert(ctx, wide, src)
        convert(ctx, dst, wide)


def copy_(ctx, dst, src):
    check_writable(dst)
    if not isinstance(src, View):
        addr = ctx.scalar(src, dst.dtype)
        same = "uint8" if dst.dtype in _FLOAT8_INDEX else dst.dtype.name  # (float8 bytes: KernelContext.pack)
        ctx.call(f"cast_{same}_{same}", dst.addr, addr, ctx.geom(dst.shape, dst.strides, (0,) * len(dst.shape)))
        return dst
    st = G.expand_strides(src.shape, src.strides, dst.shape)
    if overlaps(dst, src) and not (st == dst.strides and src.offset == dst.offset):
        src = contiguous(ctx, src)
        st = G.expand_strides(src.shape, src.strides, dst.shape)
    convert(ctx, dst, View(src.st, dst.shape, st, src.offset))
    return dst


def contiguous(ctx, h):
    out = ctx.new(h.shape, h.dtype)
    convert(ctx, out, h)
    return out


def cast(ctx, h, dtype):
    out = ctx.new(h.shape, dtype)
    convert(ctx, out, h)
    return out
