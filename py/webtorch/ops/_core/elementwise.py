"""What the elementwise op modules (arithmetic, comparison, where_clamp, unary_math, binary_math) share:
backend dispatch with the same-backend fast path, result dtypes, ``out=``, PyTorch's NotImplemented node for
ops without a derivative, the Node factory of binary math functions, and the in-place / operator method wrappers.

A binary node declares ``_operands`` (see autograd.graph.Node): a Python-number operand keeps its slot, with
the edge (None, 0), as PyTorch's nodes do, and backward returns one gradient per slot.
"""
from ... import _dtype as D
from ...autograd.graph import Node, apply_op, attach, recording
from ...autograd.grad_mode import state as _grad_state
from ..._broadcast import broadcast_shapes
from ... import _geometry as G
from ..._tensor import FRESH, Size, Tensor, _wrap, fresh_geometry
from .dispatch import operands
from ..._dtype import scalar_type_name
from .inplace import store, check_castable, check_inplace_target, check_overlap, overlaps_itself, write_sequentially
from .out_arg import write_out  # noqa: F401 (the elementwise modules import it from here)

NUMBERS = (bool, int, float)
_NUMBER_TYPES = frozenset(NUMBERS)
OPERAND_TYPES = (Tensor,) + NUMBERS


def ew(op, args, dtype, result_dtype=None):
    """The backend's elementwise ``op`` computed in ``dtype`` on args (tensors and Python numbers), its result laid
    out as PyTorch lays it out (_geometry.elementwise_layout): C order, unless the tensor operands agree on
    another order. result_dtype: the result's dtype when the caller knows it (else the backend's handle says)."""
    ref, hs = operands(args)
    tensors = [a for a in args if isinstance(a, Tensor)]
    shape = broadcast_shapes(*[t._geom[0] for t in tensors])
    layout = None
    for t in tensors:
        g = t._geom
        if g[1] != fresh_geometry(g[0])[1]:  # (C-ordered operands give a C-ordered result: no layout to work out)
            layout = G.elementwise_layout(shape, [t._geom for t in tensors])
            break
    if layout is None:
        return _wrap(ref._be.elementwise(op, hs, dtype), ref._be, ref._device, fresh_geometry(shape),
                     dtype=result_dtype)
    return _in_layout(ref, op, args, hs, dtype, result_dtype, shape, layout)


def _in_layout(ref, op, args, hs, dtype, result_dtype, shape, layout):
    """ew for a result in the order ``layout`` = (dims, strides): the backend computes it C-ordered on the
    operands permuted to that order, and the result is that storage seen in the op's own dim order."""
    dims, strides = layout
    be = ref._be
    pshape = tuple([shape[d] for d in dims])
    views = list(hs)
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and views[i] is a._data:  # (a 0-dim cpu operand of another device is a number)
            sh, st, off = a._geom
            st = G.expand_strides(sh, st, shape)
            views[i] = be.as_strided(a._data, pshape, tuple([st[d] for d in dims]), off)
    h = be.as_strided(be.elementwise(op, views, dtype), shape, strides, 0)
    return _wrap(h, be, ref._device, (Size(shape), strides, 0), dtype=result_dtype)


def ew2(op, a, b, dtype):
    """ew for two operands; C-ordered tensors of one shape and backend, or a C-ordered tensor and a Python
    number, go straight through. For an arithmetic op (no comparison): its result is of ``dtype``, which the
    Tensor takes unasked."""
    if isinstance(a, Tensor):
        be = a._be
        ga = a._geom
        try:
            fg = FRESH[ga[0]]  # (fresh_geometry's cache, read inline: this is the hot path of a + b)
        except KeyError:
            fg = fresh_geometry(ga[0])
        if ga is fg or ga[1] == fg[1]:
            if isinstance(b, Tensor):
                gb = b._geom
                if b._be is be and (gb is fg or (gb[0] == fg[0] and gb[1] == fg[1])):
                    return _wrap(be.elementwise(op, (a._data, b._data), dtype), be, a._device, fg, dtype=dtype)
            elif type(b) in _NUMBER_TYPES:
                return _wrap(be.elementwise(op, (a._data, b), dtype), be, a._device, fg, dtype=dtype)
    return ew(op, (a, b), dtype, dtype)


def binary_result_type(a, b):
    """result_type of two operands, with the same-dtype pair answered inline."""
    if isinstance(b, Tensor) and isinstance(a, Tensor) and a.dtype is b.dtype:
        return a.dtype
    return D.result_type(a, b)


def not_for_bool(kernel, dt):
    if dt is D.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def is_bool(x):
    return isinstance(x, bool) or (isinstance(x, Tensor) and x.dtype is D.bool_)


class _NotImplementedNode(Node):
    """PyTorch's autograd fallback node for an op that has no derivative: backward raises."""
    op = None

    def name(self):
        return "torch::autograd::NotImplemented"

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{ctx.op} is not implemented")


_NotImplementedNode.__name__ = _NotImplementedNode.__qualname__ = "NotImplemented"  # PyTorch's class name


def not_differentiable(op, result, *inputs):
    """Give result a NotImplemented grad_fn (edges: the inputs that require grad, as PyTorch's fallback)."""
    if _grad_state.enabled and result.dtype.is_floating_point:
        req = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
        if req:
            node = _NotImplementedNode()
            node.op = op
            attach(node, req, result)
    return result


def float_only(name, dt):
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{scalar_type_name(dt)}'")


def checked_kernel(op, check, kernel):
    """f(a, b): the backend's op at the operands' result dtype, after check(kernel, dtype) (not_for_bool or
    float_only) raises PyTorch's error for a dtype the op does not take."""
    def fwd(a, b):
        dt = D.result_type(a, b)
        check(kernel, dt)
        return ew(op, (a, b), dt)
    return fwd


def make_binary(node_name, make_fwd, grads, operands=(0, 1)):
    """A Node for f(a, b) with Tensor/scalar operands; grads(g, a, b, out) -> (ga, gb) (None when unused).
    operands: (0, 1) for PyTorch's Tensor overload (a number operand keeps its slot), (0,) or (1,) for a
    Scalar overload, whose node has an edge for the tensor alone."""
    def forward(ctx, a, b):
        out = make_fwd(a, b)
        if recording(ctx):
            ctx.save_for_backward(*(x if isinstance(x, Tensor) else None for x in (a, b)), out)
            ctx.scalars = (a, b)
        return out

    def backward(ctx, g):
        sa, sb, out = ctx.saved_tensors
        a = sa if sa is not None else ctx.scalars[0]
        b = sb if sb is not None else ctx.scalars[1]
        r = grads(g, a, b, out)
        return r if len(operands) == 2 else (r[operands[0]],)

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                     "_operands": operands})


def binary_fn(name, nodes):
    """Public f(input, other): nodes = (tensor-tensor, tensor-scalar, scalar-tensor) Node classes."""
    def fn(input, other, *, out=None):
        tt, ts, st = nodes
        node = tt if isinstance(input, Tensor) and isinstance(other, Tensor) else (
            ts if isinstance(input, Tensor) else st)
        return write_out(apply_op(node, input, other), out, (input, other), name)
    fn.__name__ = name
    return fn


def keep_original_self(result, self):
    """Before an in-place write: if the out-of-place op saved ``self`` for backward, save a copy instead
    (PyTorch's in-place derivatives keep ``original_self`` the same way), so backward sees the old values."""
    node = result.grad_fn
    saved = node._saved if node is not None else None
    if type(saved) is not tuple or not any(item is not None and item[0] is self for item in saved):
        return
    orig = self.clone()
    node._saved = tuple((orig, orig._version[0]) if item is not None and item[0] is self else item
                        for item in saved)


def inplace_method(fn):
    """Tensor.<name>_ from the out-of-place fn: compute, check the result casts to self's dtype, commit."""
    def method(self, *args, **kwargs):
        # PyTorch refuses an overlapping write before computing anything (and after autograd's leaf check)
        check_inplace_target(self)
        check_overlap(self, args + tuple(kwargs.values()) if kwargs else args)
        if self._base is not None and overlaps_itself(self):
            return write_sequentially(method, self, args, kwargs)
        r = fn(self, *args, **kwargs)
        check_castable(r.dtype, self.dtype)
        keep_original_self(r, self)
        return store(self, r)
    method.__name__ = fn.__name__ + "_"
    return method


def operator_method(fn):
    """Tensor.__op__: fn(self, other); NotImplemented for another operand type, so Python tries its __rop__."""
    def method(self, other):
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return fn(self, other)
    return method


def reflected_method(fn):
    """Tensor.__rop__: ``2 // x`` is fn(2, x)."""
    return operator_method(lambda self, other: fn(other, self))
