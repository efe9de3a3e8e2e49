"""Copies between devices and dtypes, clone and contiguous (each differentiable)."""
from ..autograd.graph import Node, apply_op
from .._device import backend_for
from .. import _geometry as G
from .. import _memory_format as _MF
from .._tensor import Size, _parse_to, _wrap, fresh_geometry


class ToCopyBackward0(Node):
    @staticmethod
    def forward(ctx, x, dev, dt):
        ctx.src = (x._device, x.dtype)
        h = x._data
        be = x._be
        if dt is not None and dt is not x.dtype:
            h = be.cast(h, dt)
        if dev is not None and dev.type != x._device.type:
            target = backend_for(dev)
            h = be.to_other(h, target)
            be = target
        elif h is x._data:
            h = be.contiguous(h)
        return _wrap(h, be, dev if dev is not None else x._device, fresh_geometry(tuple(x.shape)))

    @staticmethod
    def backward(ctx, g):
        dev, dt = ctx.src
        return g.to(dev, dt)


def to(self, *args, **kwargs):
    """Tensor.to(device, dtype, copy=..., non_blocking=..., memory_format=...): self when nothing changes, else a
    copy that autograd follows back to self's device and dtype."""
    dev, dt, copy, fmt = _parse_to(self, *args, **kwargs)
    if fmt is not None:
        _MF.check_rank(fmt, self.shape)
    same_layout = fmt in (None, _MF.preserve_format) or _MF.layout_of(*self._geometry_of()[:2]) is fmt
    if (dev is None or dev == self._device) and (dt is None or dt is self.dtype) and not copy and same_layout:
        return self
    out = to_device_dtype(self, dev, dt)
    layout = _MF.resolve(fmt, *self._geometry_of()[:2])
    return out if layout is _MF.contiguous_format else apply_op(CloneBackward0, out, layout)


def to_device_dtype(x, dev, dt):
    if dt is not None and x.requires_grad and not dt.is_floating_point:
        return apply_op(ToCopyBackward0, x.detach(), dev, dt)
    return apply_op(ToCopyBackward0, x, dev, dt)


class CloneBackward0(Node):
    @staticmethod
    def forward(ctx, x, fmt=_MF.contiguous_format):
        if fmt is _MF.contiguous_format:
            return _wrap(x._be.contiguous(x._data), x._be, x._device, fresh_geometry(tuple(x.shape)))
        # the channel dim innermost: a C-order copy of x's (N, [D,] H, W, C) permutation, viewed back as (N, C, ...)
        be, shape = x._be, tuple(x.shape)
        order = (0,) + tuple(range(2, x.dim())) + (1,)
        dense = be.contiguous(be.as_strided(x._data, *G.permute(*x._geometry_of(), order)))
        strides = _MF.channels_last_strides(shape)
        return _wrap(be.as_strided(dense, shape, strides, 0), be, x._device, (Size(shape), strides, 0),
                     dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        return g


def clone(input, *, memory_format=None):
    return apply_op(CloneBackward0, input, _MF.resolve(memory_format, *input._geometry_of()[:2]))


def contiguous(self, memory_format=None):
    fmt = _MF.contiguous_format if memory_format is None else memory_format
    if self.is_contiguous(memory_format=fmt):
        return self
    if fmt is _MF.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    _MF.check_rank(fmt, self.shape)
    return apply_op(CloneBackward0, self, fmt)


def is_same_size(a, b):
    return tuple(a.shape) == tuple(b.shape)


METHODS = {"clone": clone, "contiguous": contiguous, "is_same_size": is_same_size, "to": to}
FUNCTIONS = {"clone": clone}
