"""F.pad: constant, reflect, replicate and circular padding (negative amounts crop), with backward.

A negative amount crops that side first; the remaining (non-negative) amounts pad the cropped tensor,
which is how PyTorch reads mixed signs. The backend's pad/pad_backward are each other's adjoints, so
gradients of any order stay within the two.
"""
from ..autograd.graph import Node, apply_op
from ._core.dispatch import wrap
from ._core.inplace import not_implemented_for

_MODES = ("constant", "reflect", "replicate", "circular")


class _PadNode(Node):
    """x cropped by ``crop`` then padded by ``pads`` ((lo, hi) per dim, both >= 0)."""
    mode = None
    adjoint = None

    @classmethod
    def forward(cls, ctx, x, crop, pads, value):
        ctx.geom = (crop, pads, tuple(x.shape))
        h = x._data
        if any(lo or hi for lo, hi in crop):
            h = x._be.slice(h, tuple(slice(lo, s - hi) for (lo, hi), s in zip(crop, x.shape)))
        shape = tuple(s - c0 - c1 + p0 + p1 for s, (c0, c1), (p0, p1) in zip(x.shape, crop, pads))
        return wrap(x._be.pad(h, pads, cls.mode, value), x, shape)

    @classmethod
    def backward(cls, ctx, g):
        crop, pads, _ = ctx.geom
        gx = apply_op(cls.adjoint, g, pads)
        if any(lo or hi for lo, hi in crop):
            zero = tuple((0, 0) for _ in crop)
            gx = apply_op(ConstantPadNdBackward0, gx, zero, crop, 0)
        return gx


class _PadAdjointNode(Node):
    """pad_backward: the padded gradient folded back onto the input cells it copies."""
    mode = None
    primal = None

    @classmethod
    def forward(cls, ctx, g, pads):
        ctx.pads = pads
        return wrap(g._be.pad_backward(g._data, pads, cls.mode), g,
                    tuple(s - p0 - p1 for s, (p0, p1) in zip(g.shape, pads)))

    @classmethod
    def backward(cls, ctx, gg):
        return apply_op(cls.primal, gg, tuple((0, 0) for _ in ctx.pads), ctx.pads, 0)


def _pair(name, mode):
    primal = type(name, (_PadNode,), {"mode": mode, "__slots__": ()})
    adjoint = type(name[:-1] + "Backward0", (_PadAdjointNode,), {"mode": mode, "__slots__": ()})
    primal.adjoint, adjoint.primal = adjoint, primal
    return primal


ConstantPadNdBackward0 = _pair("ConstantPadNdBackward0", "constant")
_NODES = {(mode, n): _pair(f"{prefix}{n}DBackward0", mode)
          for mode, prefix in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad"),
                               ("circular", "CircularPad")) for n in (1, 2, 3)}


def _supported_message(npad, dim):
    return (f"Padding size {2 * npad} is not supported for {dim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _check_nonconstant(input, pairs, npad, mode):
    dim = input.dim()
    shape = list(input.shape)
    if npad not in (1, 2, 3) or dim not in (npad + 1, npad + 2):
        raise NotImplementedError(_supported_message(npad, dim))
    if mode in ("reflect", "replicate") and input.dtype.name == "bool":
        raise not_implemented_for(f"{'reflection' if mode == 'reflect' else 'replication'}_pad{npad}d", input.dtype)
    if mode in ("reflect", "replicate") and any(s == 0 for s in shape[dim - npad - 1:]):
        raise RuntimeError(f"Expected {npad + 1}D or {npad + 2}D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {shape}")
    for d in reversed(range(dim - npad, dim)):
        lo, hi = pairs[d]
        size = shape[d]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #{2 * npad + 2}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input {shape}")
        if mode == "replicate" and size + lo + hi < 0:
            name = "DHW"[3 - npad + (d - (dim - npad))]
            raise RuntimeError(f"input ({name}: {size}) is too small. Calculated output {name}: {size + lo + hi}")
        if mode == "circular":
            if lo > size or hi > size:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if size + lo + hi <= 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")


def pad(input, pad, mode="constant", value=None):
    """F.pad: ``pad`` lists (left, right) amounts starting from the last dim; negative amounts crop."""
    pad = list(pad)
    for i, p in enumerate(pad):
        if not isinstance(p, int):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                            f"{type(p).__name__} at pos {i}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    npad = len(pad) // 2
    dim = input.dim()
    if npad > dim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {dim}")
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pairs = [(0, 0)] * dim
    for i in range(npad):
        pairs[dim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode == "constant":
        node = ConstantPadNdBackward0
        for (lo, hi), s in zip(pairs, input.shape):
            if max(-lo, 0) > s or max(-hi, 0) > s - max(-lo, 0):
                raise RuntimeError("narrow(): length must be non-negative.")
        value = 0 if value is None else value
    else:
        if value is not None and value != 0:
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        _check_nonconstant(input, pairs, npad, mode)
        node = _NODES[(mode, npad)]
        value = 0
    crop = tuple((max(-lo, 0), max(-hi, 0)) for lo, hi in pairs)
    pads = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pairs)
    return apply_op(node, input, crop, pads, value)


_pad = pad  # the parameter named ``pad`` (PyTorch's name) hides the function below


def constant_pad_nd(input, pad, value=0):
    return _pad(input, pad, "constant", value)


FUNCTIONS = {"constant_pad_nd": constant_pad_nd}
