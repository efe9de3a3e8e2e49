"""Copies between devices and dtypes, clone and contiguous (each differentiable)."""
from ..autograd.graph import Node, apply_op
from .._device import backend_for
from .._tensor import _parse_to, _wrap, fresh_geometry


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
    """Tensor.to(device, dtype, copy=..., non_blocking=...): self when nothing changes, else a copy that autograd
    follows back to self's device and dtype."""
    dev, dt, copy = _parse_to(self, *args, **kwargs)
    if (dev is None or dev == self._device) and (dt is None or dt is self.dtype) and not copy:
        return self
    return to_device_dtype(self, dev, dt)


def to_device_dtype(x, dev, dt):
    if dt is not None and x.requires_grad and not dt.is_floating_point:
        return apply_op(ToCopyBackward0, x.detach(), dev, dt)
    return apply_op(ToCopyBackward0, x, dev, dt)


class CloneBackward0(Node):
    @staticmethod
    def forward(ctx, x):
        return _wrap(x._be.contiguous(x._data), x._be, x._device, fresh_geometry(tuple(x.shape)))

    @staticmethod
    def backward(ctx, g):
        return g


def clone(input, *, memory_format=None):
    return apply_op(CloneBackward0, input)


def contiguous(self, memory_format=None):
    if self.is_contiguous():
        return self
    return apply_op(CloneBackward0, self)


def is_same_size(a, b):
    return tuple(a.shape) == tuple(b.shape)


METHODS = {"clone": clone, "contiguous": contiguous, "is_same_size": is_same_size, "to": to}
FUNCTIONS = {"clone": clone}
