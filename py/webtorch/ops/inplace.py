"""The one mechanism behind every in-place op.

An in-place op computes its result out of place (with autograd, ``self`` among the inputs), then
``commit`` writes it into self's storage, bumps the shared version counter, and moves autograd history:
self takes the result's grad_fn, or -- when self is a view -- its base gets a CopySlices node and self
becomes an as_strided view of the base. Every view of the storage sees the write.
"""
from ..autograd.graph import Node, edge, apply_op
from ..autograd.grad_mode import state
from .._tensor import _wrap

_SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                 "int64": "Long", "uint32": "UInt32", "float16": "Half", "bfloat16": "BFloat16",
                 "float32": "Float", "float64": "Double"}


def scalar_type_name(dt):
    return _SCALAR_NAMES[dt.name]


def check_castable(result_dtype, self_dtype):
    if result_dtype.category > self_dtype.category:
        raise RuntimeError(f"result type {scalar_type_name(result_dtype)} can't be cast to the desired output "
                           f"type {scalar_type_name(self_dtype)}")


def check_inplace_target(self):
    if not state.enabled:
        return
    if self.requires_grad and self.grad_fn is None and self._base is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = self._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def commit(self, result):
    """Write result into self (same shape; dtype cast) and transfer autograd history. Returns self."""
    check_inplace_target(self)
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                           f"{list(result.shape)}")
    if result._data is not self._data:
        self._be.copy_(self._data, result._data)
    self._version[0] += 1
    if state.enabled and result.requires_grad:
        if self._base is None:
            self.grad_fn = result.grad_fn
            self._out_nr = result._out_nr
            self.requires_grad = True
        else:
            _rebase_view(self, result)
    return self


def write_inplace(self, node_cls, *args):
    """Run a writing op whose forward fills self's own storage (``forward(ctx, self, *args, inplace=True)``
    returns a Tensor around ``self._data``), then commit. For ops whose backward needs no old value of
    self: this skips commit's copy of an out-of-place result."""
    check_inplace_target(self)
    return commit(self, apply_op(node_cls, self, *args, inplace=True))


class CopySlices(Node):
    """Base tensor after an in-place write through one of its views."""

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
    @staticmethod
    def forward(ctx, base, shape, stride, offset):
        return base.as_strided(shape, stride, offset)

    @staticmethod
    def backward(ctx, g):
        base_shape, (shape, stride, offset), dtype, dev = ctx.meta
        from .creation import zeros
        gb = zeros(base_shape, dtype=dtype, device=dev)
        gb.as_strided(shape, stride, offset).add_(g)
        return gb


def _rebase_view(view, result):
    base = view._base
    if not base.is_contiguous():
        raise RuntimeError("in-place autograd through a view of a non-contiguous base is not supported; "
                           "call .contiguous() on the base first")
    geom = (tuple(view.shape), view.stride(), view.storage_offset() - base.storage_offset())
    node = CopySlices()
    node.geom = geom
    node.next_functions = (edge(base), edge(result))
    node._in_meta = ((base.shape, base.dtype, base.device), (result.shape, result.dtype, result.device))
    base.grad_fn = node
    base._out_nr = 0
    base.requires_grad = True
    _as_view_of_base(view, base, geom)


def _as_view_of_base(view, base, geom):
    vnode = AsStridedBackward0()
    vnode.meta = (tuple(base.shape), geom, base.dtype, base.device)
    vnode.next_functions = (edge(base),)
    vnode._in_meta = ((base.shape, base.dtype, base.device),)
    view.grad_fn = vnode
    view._out_nr = 0
    view.requires_grad = True
    view._view_version = view._version[0]


def refresh_view(view):
    """PyTorch regenerates a view's history once its storage was written in place (through the base or
    another view) after the view was made: the view becomes an as_strided view of the base's new history.
    The autograd graph calls this for a stale view (``_view_version`` behind the shared version)."""
    view._view_version = view._version[0]
    base = view._base
    if base.requires_grad and base.is_contiguous():
        _as_view_of_base(view, base, (tuple(view.shape), view.stride(),
                                      view.storage_offset() - base.storage_offset()))


def new_view(src, h):
    """A Tensor viewing src's storage through handle h (shares version counter and base)."""
    t = _wrap(h, src._be, src._device)
    t._version = src._version
    t._base = src._base if src._base is not None else src
    t._view_version = src._version[0]
    return t
