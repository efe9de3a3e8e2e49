"""pad / pad_backward on the wasm backend (wasm-kernels/pad.c): constant, reflect, replicate, circular over any
number of dims; pad copies elements of any dtype, pad_backward adds float32 / float64 gradients (float16 and bfloat16
through float32)."""
from ... import _dtype as D
from .copies import contiguous
from .operands import SUFFIX, dense, float_instance, result

_MODES = {"constant": 0, "reflect": 1, "replicate": 2, "circular": 3}


def _dims(ctx, shape, pads):
    """An int32 View holding the kernel's dims block: ndim, the unpadded shape, the pads before, the pads after."""
    words = [len(shape), *shape, *(lo for lo, _ in pads), *(hi for _, hi in pads)]
    block = ctx.new((len(words),), D.int32)
    ctx.write_values(block, words)
    return block


def pad(ctx, x, pads, mode, value):
    if not x.shape or not any(lo or hi for lo, hi in pads):
        return contiguous(ctx, x)
    xc = dense(ctx, x)
    out = ctx.new(tuple(s + lo + hi for s, (lo, hi) in zip(x.shape, pads)), x.dtype)
    bits = int.from_bytes(ctx.pack(value if mode == "constant" else 0, x.dtype).ljust(8, b"\0"), "little",
                          signed=True)
    block = _dims(ctx, x.shape, pads)
    if out.numel:
        ctx.call("pad", xc.addr, out.addr, block.addr, x.dtype.itemsize, _MODES[mode], bits)
    return out


def pad_backward(ctx, g, pads, mode):
    shape = tuple(s - lo - hi for s, (lo, hi) in zip(g.shape, pads))
    if not shape or not any(lo or hi for lo, hi in pads):
        return contiguous(ctx, g)
    ct = float_instance(g.dtype)
    gc = dense(ctx, g, ct)
    gx = ctx.new(shape, ct)
    block = _dims(ctx, shape, pads)
    if gx.numel:
        ctx.call("pad_backward_" + SUFFIX[ct], gc.addr, gx.addr, block.addr, _MODES[mode])
    return result(ctx, gx, g.dtype)
