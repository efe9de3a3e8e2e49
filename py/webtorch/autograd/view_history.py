"""Autograd through views written in place, as PyTorch does it.

A view shares its base's storage and version counter. When an in-place op writes through a view, the base's
history becomes ``CopySlices`` (the base as it was, with the written region's gradient routed to the op's
result) and the view becomes an ``as_strided`` view of the base's new history (``AsStridedBackward0``).
A view made before its storage was written (through the base or another view) is stale: ``edge`` gives it
that same fresh as_strided history before anyone takes its gradient edge. Written against Tensor methods only.

A view whose elements share memory (``t.unfold(0, 2, 1)``) is written element by element (ops/_core/inplace.py), and
its history is PyTorch's for one write: the op applied to the view's old elements (``overlapping_elements``), whose
gradient PyTorch's CopySlices *copies* into the view's region of the base's gradient -- a shared element keeps one
position's gradient, not their sum.
"""
from .._dtype import int64 as INDEX_DTYPE
from .._geometry import numel
from .node import Node, accumulator


def edge(t):
    """(node, output index) that ``t``'s gradient flows to: its grad_fn, the accumulator of a leaf that
    requires grad, or (None, 0)."""
    if t._base is not None:
        refresh_if_stale(t)
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._out_nr)
    if t.requires_grad:
        return (accumulator(t), 0)
    return (None, 0)


def refresh_if_stale(t):
    """Regenerate the history of view ``t`` when its storage was written since the history was recorded."""
    if t._version[0] != getattr(t, "_view_version", t._version[0]):
        refresh_view(t)


def refresh_view(view):
    """The view becomes an as_strided view of its base's current history (when the base requires grad)."""
    view._view_version = view._version[0]
    base = view._base
    if base.requires_grad and base.is_contiguous():
        _as_view_of_base(view, base, _geometry_in(view, base))


def rebase_view(view, result):
    """History after ``result`` was written into ``view`` in place: the base becomes CopySlices of its old
    history and ``result``, the view an as_strided view of the base."""
    base = view._base
    if not base.is_contiguous():
        raise RuntimeError("in-place autograd through a view of a non-contiguous base is not supported; "
                           "call .contiguous() on the base first")
    geom = _geometry_in(view, base)
    node = CopySlices()
    node.geom = geom
    node.next_functions = (edge(base), edge(result))
    node._in_meta = ((base.shape, base.dtype, base.device), (result.shape, result.dtype, result.device))
    base.grad_fn = node
    base._out_nr = 0
    base.requires_grad = True
    _as_view_of_base(view, base, geom)


def _geometry_in(view, base):
    """(shape, stride, offset) of view within base's storage, offset counted from base's first element."""
    return (tuple(view.shape), view.stride(), view.storage_offset() - base.storage_offset())


def _as_view_of_base(view, base, geom):
    vnode = AsStridedBackward0()
    vnode.meta = (tuple(base.shape), geom, base.dtype, base.device)
    vnode.next_functions = (edge(base),)
    vnode._in_meta = ((base.shape, base.dtype, base.device),)
    view.grad_fn = vnode
    view._out_nr = 0
    view.requires_grad = True
    view._view_version = view._version[0]


def overlapping_elements(view):
    """``(OverlapCopyBackward, base, *geometry)``: applied (graph.apply_op), the elements of ``view`` (of a base
    that may require grad) copied into a fresh tensor whose gradient goes to the base as PyTorch's CopySlices sends
    the self gradient of an op that writes through an internally overlapping view: copied into the view's region
    in order, not accumulated."""
    base = view._base
    if not base.is_contiguous():
        raise RuntimeError("in-place autograd through a view of a non-contiguous base is not supported; "
                           "call .contiguous() on the base first")
    return (OverlapCopyBackward, base, *_geometry_in(view, base))


class CopySlices(Node):
    """Base tensor after an in-place write through one of its views: the written region's gradient goes to
    the op's result, the rest to the base's previous history."""

    def name(self):
        return "torch::autograd::CopySlices"

    @staticmethod
    def backward(ctx, g):
        shape, stride, offset = ctx.geom
        g_base = g.clone()
        region = g_base.as_strided(shape, stride, offset)
        g_view = region.clone()
        region.zero_()
        return g_base, g_view


class AsStridedBackward0(Node):
    """A view given as (shape, stride, offset) of its base: the gradient lands in that region of a zero base."""

    @staticmethod
    def forward(ctx, base, shape, stride, offset):
        return base.as_strided(shape, stride, offset)

    @staticmethod
    def backward(ctx, g):
        base_shape, (shape, stride, offset), dtype, dev = ctx.meta
        # each element's storage position; index_add accumulates where windows overlap (an add_ through an
        # overlapping as_strided view would keep only one of the writes)
        n_base = numel(base_shape)
        flat = g.new_zeros((n_base,), dtype=dtype, device=dev)
        pos = (g.new_ones((n_base,), dtype=INDEX_DTYPE, device=dev).cumsum(0) - 1).as_strided(shape, stride, offset)
        return flat.index_add_(0, pos.reshape(-1), g.reshape(-1)).reshape(base_shape)


class OverlapCopyBackward(Node):
    """The elements of an internally overlapping view of a base, as a fresh tensor; the gradient is copied into
    that region of a zero base -- element by element in order, each shared element keeping the last write, as
    PyTorch's CopySlices copies an in-place op's self gradient (``grad_slice.copy_(res[0])``)."""

    @staticmethod
    def forward(ctx, base, shape, stride, offset):
        ctx.meta = (tuple(base.shape), (shape, stride, offset))
        return base.as_strided(shape, stride, offset).clone()

    @staticmethod
    def backward(ctx, g):
        base_shape, geom = ctx.meta
        out = g.new_zeros(base_shape)
        out.as_strided(*geom).copy_(g)
        return out
