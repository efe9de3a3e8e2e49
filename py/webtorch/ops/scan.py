"""Scans along a dim: cumsum, cumprod, cummax, cummin, logcumsumexp (backend primitive ``cumulative``)."""
from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from ._core import return_types
from ._core.dispatch import norm_dim, wrap
from ._core.elementwise import write_out
from ._core.out_arg import SAME, Rule, same, takes_out
from .where_clamp import where as _where
from .reduction import sum_dtype


def _dim(input, dim):
    return norm_dim(dim, input.dim())   # a 0-dim input takes dim -1 or 0 (PyTorch's range for it)


def _scan(op, x, dim, dtype, reverse):
    if x.dim() == 0:
        return wrap(x._be.cast(x._data, dtype), x, ())
    return wrap(x._be.cumulative(op, x._data, dim, dtype, reverse), x, x.shape)


class CumsumBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, dtype, reverse=False):
        ctx.meta = (dim, reverse)
        return _scan("sum", x, dim, dtype, reverse)

    @staticmethod
    def backward(ctx, g):
        dim, reverse = ctx.meta
        return _cumsum(g, dim, not reverse)


def _cumsum(x, dim, reverse):
    return apply_op(CumsumBackward0, x, dim, x.dtype, reverse)


@takes_out("cumsum", SAME, dtype_from_out=True)
def cumsum(input, dim, *, dtype=None):
    dt = D.to_dtype(dtype) if dtype is not None else sum_dtype(input.dtype)
    x = input.to(dt) if dtype is not None and input.dtype is not dt else input
    return apply_op(CumsumBackward0, x, _dim(x, dim), dt)


class CumprodBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, dtype):
        out = _scan("prod", x, dim, dtype, False)
        ctx.save_for_backward(x, out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, g):
        # Exact with zeros: before a slice's first zero, d out_i / d x_k = out_i / x_k; at the first zero it is
        # (product before it) * (running product after it); after the first zero every term holds that zero.
        x, out = ctx.saved_tensors
        dim = ctx.dim
        if x.dim() == 0:
            return g
        is_zero = x == 0
        zeros_so_far = _cumsum(is_zero.to(D.int64), dim, False)
        before = zeros_so_far == 0
        first_zero = is_zero.logical_and(zeros_so_far == 1)
        z = g.new_zeros(())
        one = x.new_ones(())
        grad_before = _cumsum(_where(before, g * out, z), dim, True) / x
        prefix = _where(before, x, one).prod(dim, keepdim=True)
        after_run = cumprod(_where(before.logical_or(first_zero), one, x), dim)
        tail = _cumsum(_where(before, z, g * after_run), dim, True)
        return _where(before, grad_before, _where(first_zero, prefix * tail, z))


@takes_out("cumprod", SAME, dtype_from_out=True)
def cumprod(input, dim, *, dtype=None):
    dt = D.to_dtype(dtype) if dtype is not None else sum_dtype(input.dtype)
    x = input.to(dt) if dtype is not None and input.dtype is not dt else input
    return apply_op(CumprodBackward0, x, _dim(x, dim), dt)


def _make_cumext(op, node_name):
    def forward(ctx, x, dim):
        if x.dim() == 0:
            values, idx = wrap(x._be.contiguous(x._data), x, ()), wrap(x._be.full((), 0, D.int64), x, ())
        else:
            v, i = x._be.cumulative(op, x._data, dim, x.dtype, False)
            values, idx = wrap(v, x, x.shape), wrap(i, x, x.shape)
        ctx.save_for_backward(idx)
        ctx.meta = (dim, tuple(x.shape), x.dtype)
        return values, idx

    def backward(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        dim, shape, dt = ctx.meta
        if not shape:
            return g
        return g.new_zeros(shape).scatter_add(dim, idx, g)

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


CummaxBackward0 = _make_cumext("max", "CummaxBackward0")
CumminBackward0 = _make_cumext("min", "CumminBackward0")


def cummax(input, dim):
    return return_types.cummax(*apply_op(CummaxBackward0, input, _dim(input, dim)))


def cummin(input, dim):
    return return_types.cummin(*apply_op(CumminBackward0, input, _dim(input, dim)))


class LogcumsumexpBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, reverse=False):
        out = _scan("logsumexp", x, dim, x.dtype, reverse)
        ctx.save_for_backward(x, out)
        ctx.meta = (dim, reverse)
        return out

    @staticmethod
    def backward(ctx, g):
        # d out_i / d x_k = exp(x_k - out_i) for i >= k; summed in log space, the positive and negative parts
        # of g apart, so nothing overflows
        x, out = ctx.saved_tensors
        dim, reverse = ctx.meta
        if x.dim() == 0:
            return g
        z = g.new_zeros(())
        pos = _logcumsumexp((_where(g > 0, g, z)).log() - out, dim, not reverse)
        neg = _logcumsumexp((_where(g < 0, -g, z)).log() - out, dim, not reverse)
        return (pos + x).exp() - (neg + x).exp()


def _logcumsumexp(x, dim, reverse):
    return apply_op(LogcumsumexpBackward0, x, dim, reverse)


def logcumsumexp(input, dim, *, out=None):
    if not input.dtype.is_floating_point:
        from .._dtype import scalar_type_name
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{scalar_type_name(input.dtype)}'")
    return write_out(apply_op(LogcumsumexpBackward0, input, _dim(input, dim)), out, (input,), "logcumsumexp",
                     Rule(same, "expected scalar_type {r} but found {o}"))


def _inplace(fn):
    def method(self, dim, *, dtype=None):
        from ._core.inplace import commit, not_implemented_for, overlaps_itself, write_sequentially
        if dtype is None and self.dtype is D.bool_:   # PyTorch has no in-place bool kernel (a bad dim raises first)
            _dim(self, dim)
            raise not_implemented_for(f"{fn.__name__}_out_cpu", self.dtype)
        from ._core.elementwise import keep_original_self
        if self._base is not None and overlaps_itself(self):
            return write_sequentially(method, self, (dim,), {"dtype": dtype}, keep_dim=_dim(self, dim))
        r = fn(self, dim, dtype=dtype)
        keep_original_self(r, self)
        return commit(self, r)
    return method


FUNCTIONS = {"cumsum": cumsum, "cumprod": cumprod, "cummax": cummax, "cummin": cummin,
             "logcumsumexp": logcumsumexp}
METHODS = dict(FUNCTIONS)
METHODS.update({"cumsum_": _inplace(cumsum), "cumprod_": _inplace(cumprod)})
