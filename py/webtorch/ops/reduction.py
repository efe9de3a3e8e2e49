"""Reductions over dims with keepdim: sum, mean (more in the families beside this file)."""
import builtins

from .. import _dtype as D
from .._geometry import numel, reduced
from ..autograd.graph import Node, apply_op
from ._core.dispatch import norm_dim, norm_dims, wrap
from ._core.out_arg import SAME, Rule, floating, takes_out
from .where_clamp import where as _where


def sum_dtype(dt):
    """PyTorch: integral and bool sums accumulate and return int64."""
    return dt if dt.is_floating_point else D.int64


def restore_dims(t, in_shape, dims, keepdim):
    """A reduced tensor in its keepdim form (size-1 reduced dims), ready to broadcast against the input."""
    if not keepdim and dims:
        shape = list(in_shape)
        for d in dims:
            shape[d] = 1
        t = t.reshape(shape)
    return t


def expand_back(g, in_shape, dims, keepdim):
    """Broadcast a reduced gradient back over the reduced dims."""
    if not keepdim and len(dims) == len(in_shape):
        return g.expand(in_shape)  # a full reduction's 0-dim gradient broadcasts as it is
    return restore_dims(g, in_shape, dims, keepdim).expand(in_shape)


_ALL_DIMS = [tuple(range(n)) for n in range(9)]


def all_dims(x):
    """(0, ..., ndim - 1) of tensor x: the dims of a full reduction."""
    n = len(x.shape)
    return _ALL_DIMS[n] if n < 9 else tuple(range(n))


class SumBackward0(Node):
    _operands = (0,)

    @staticmethod
    def forward(ctx, x, dims, keepdim, dtype):
        be, h = x._be, x._data
        ctx.meta = (x.shape, dims, keepdim)
        return wrap(be.reduce("sum", h, dims, keepdim, dtype), x, reduced(x.shape, dims, keepdim), dtype)

    @staticmethod
    def backward(ctx, g):
        return expand_back(g, *ctx.meta)


class SumBackward1(SumBackward0):
    pass


@takes_out("sum", SAME, dtype_from_out=True)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    dt = D.to_dtype(dtype) if dtype is not None else sum_dtype(input.dtype)
    if dim is None:
        return apply_op(SumBackward0, input, all_dims(input), False, dt)
    return apply_op(SumBackward1, input, norm_dims(dim, input.dim()), keepdim, dt)


class MeanBackward0(Node):
    _operands = (0,)

    @staticmethod
    def forward(ctx, x, dims, keepdim, dtype):
        be, h = x._be, x._data
        ctx.meta = (x.shape, dims, keepdim)
        return wrap(be.reduce("mean", h, dims, keepdim, dtype), x, reduced(x.shape, dims, keepdim), dtype)

    @staticmethod
    def backward(ctx, g):
        shape, dims, keepdim = ctx.meta
        return expand_back(g / _numel(shape, dims), shape, dims, keepdim)


class MeanBackward1(MeanBackward0):
    pass


@takes_out("mean")
def mean(input, dim=None, keepdim=False, *, dtype=None):
    dt = D.to_dtype(dtype) if dtype is not None else input.dtype
    if not dt.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_scalar_name(dt)}")
    if dim is None:
        return apply_op(MeanBackward0, input, all_dims(input), False, dt)
    return apply_op(MeanBackward1, input, norm_dims(dim, input.dim()), keepdim, dt)


def _scalar_name(dt):
    from .._dtype import scalar_type_name
    return scalar_type_name(dt)


def _numel(shape, dims):
    """Elements reduced over dims."""
    return numel([shape[d] for d in dims])


# ---- prod --------------------------------------------------------------------------------------------

class ProdBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim, dtype):
        out = wrap(x._be.reduce("prod", x._data, dims, keepdim, dtype), x, reduced(x.shape, dims, keepdim))
        ctx.save_for_backward(x, out)
        ctx.meta = (dims, keepdim)
        return out

    @staticmethod
    def backward(ctx, g):
        # zero-safe: out / x where a slice has no zero; the product of the others at a slice's only zero
        x, out = ctx.saved_tensors
        dims, keepdim = ctx.meta
        shape = tuple(x.shape)
        g_k = restore_dims(g, shape, dims, keepdim)
        out_k = restore_dims(out, shape, dims, keepdim)
        zero = x == 0
        n_zero = zero.sum(dim=dims, keepdim=True)
        others = _prod_dims(_where(zero, x.new_ones(()), x), dims, True)
        z = x.new_zeros(())
        d = _where(n_zero == 0, out_k / x, _where(zero.logical_and(n_zero == 1), others, z))
        return g_k * d


class ProdBackward1(ProdBackward0):
    pass


def _prod_dims(x, dims, keepdim):
    return apply_op(ProdBackward1, x, dims, keepdim, x.dtype)


@takes_out("prod", SAME, dtype_from_out=True)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    dt = D.to_dtype(dtype) if dtype is not None else sum_dtype(input.dtype)
    if dtype is not None and input.dtype is not dt:
        input = input.to(dt)
    if dim is None:
        return apply_op(ProdBackward0, input, tuple(range(input.dim())), False, dt)
    return apply_op(ProdBackward1, input, (norm_dim(dim, input.dim()),)[:input.dim()], keepdim, dt)


# ---- var / std ---------------------------------------------------------------------------------------

def _var_args(input, dim, unbiased, keepdim, correction, name):
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if isinstance(dim, bool):  # var(input, unbiased)
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    elif unbiased is not None:
        raise RuntimeError(f"{name}: cannot specify both correction and unbiased arguments")
    dims = norm_dims(dim, input.dim())
    return dims, keepdim, correction


def _moments(x, dims, keepdim, correction):
    """(var, mean) with the mean in keepdim form, from primitives."""
    be, dt = x._be, x.dtype
    mean_k = be.reduce("mean", x._data, dims, True, dt)
    d = be.elementwise("sub", (x._data, mean_k), dt)
    ss = be.reduce("sum", be.elementwise("mul", (d, d), dt), dims, keepdim, dt)
    denom = builtins.max(_numel(x.shape, dims) - correction, 0)
    var = be.elementwise("div", (ss, float(denom)), dt)
    return wrap(var, x, reduced(x.shape, dims, keepdim)), wrap(mean_k, x, reduced(x.shape, dims, True))


def _squeeze_mean(mean_k, shape, dims, keepdim):
    return mean_k if keepdim else mean_k.reshape(tuple(s for i, s in enumerate(shape) if i not in dims))


def _var_grad(g, x, dims, keepdim, correction):
    shape = tuple(x.shape)
    n = _numel(shape, dims)
    centered = x - x.mean(dim=dims, keepdim=True)
    return restore_dims(g, shape, dims, keepdim) * centered * (2.0 / builtins.max(n - correction, 0))


def _std_grad(g, x, std, dims, keepdim, correction):
    shape = tuple(x.shape)
    std_k = restore_dims(std, shape, dims, keepdim)
    g_k = restore_dims(g, shape, dims, keepdim)
    half = _where(std_k == 0, std_k.new_zeros(()), g_k / (2 * std_k))
    return _var_grad(half, x, dims, True, correction)


class VarBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim, correction):
        ctx.save_for_backward(x)
        ctx.meta = (dims, keepdim, correction)
        return _moments(x, dims, keepdim, correction)[0]

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return _var_grad(g, x, *ctx.meta)


class StdBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim, correction):
        var = _moments(x, dims, keepdim, correction)[0]
        std = wrap(x._be.elementwise("sqrt", (var._data,), x.dtype), x, var.shape)
        ctx.save_for_backward(x, std)
        ctx.meta = (dims, keepdim, correction)
        return std

    @staticmethod
    def backward(ctx, g):
        x, std = ctx.saved_tensors
        return _std_grad(g, x, std, *ctx.meta)


class VarMeanBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim, correction):
        var, mean_k = _moments(x, dims, keepdim, correction)
        ctx.save_for_backward(x)
        ctx.meta = (dims, keepdim, correction)
        return var, _squeeze_mean(mean_k, tuple(x.shape), dims, keepdim)

    @staticmethod
    def backward(ctx, g_var, g_mean):
        (x,) = ctx.saved_tensors
        dims, keepdim, _ = ctx.meta
        shape = tuple(x.shape)
        return _var_grad(g_var, x, *ctx.meta) + expand_back(g_mean / _numel(shape, dims), shape, dims, keepdim)


class StdMeanBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim, correction):
        var, mean_k = _moments(x, dims, keepdim, correction)
        std = wrap(x._be.elementwise("sqrt", (var._data,), x.dtype), x, var.shape)
        ctx.save_for_backward(x, std)
        ctx.meta = (dims, keepdim, correction)
        return std, _squeeze_mean(mean_k, tuple(x.shape), dims, keepdim)

    @staticmethod
    def backward(ctx, g_std, g_mean):
        x, std = ctx.saved_tensors
        dims, keepdim, _ = ctx.meta
        shape = tuple(x.shape)
        return (_std_grad(g_std, x, std, *ctx.meta)
                + expand_back(g_mean / _numel(shape, dims), shape, dims, keepdim))


def _var_family(node, name):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return apply_op(node, input, *_var_args(input, dim, unbiased, keepdim, correction, name))
    fn.__name__ = name
    return fn


var = takes_out("var")(_var_family(VarBackward0, "var"))
std = takes_out("std")(_var_family(StdBackward0, "std"))
_var_mean = _var_family(VarMeanBackward0, "var_mean")
_std_mean = _var_family(StdMeanBackward0, "std_mean")


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return tuple(_var_mean(input, dim, unbiased, keepdim, correction=correction))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return tuple(_std_mean(input, dim, unbiased, keepdim, correction=correction))


# ---- logsumexp ---------------------------------------------------------------------------------------

class LogsumexpBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim):
        be, dt = x._be, x.dtype
        if x.numel():
            m = be.reduce("amax", x._data, dims, True, dt)
            # an all -inf (or +inf) slice must not become inf - inf = nan
            m = be.elementwise("where", (be.elementwise("isinf", (m,), dt), 0, m), dt)
        else:
            m = 0.0
        s = be.reduce("sum", be.elementwise("exp", (be.elementwise("sub", (x._data, m), dt),), dt), dims, True, dt)
        out = be.elementwise("add", (be.elementwise("log", (s,), dt), m), dt)
        out = wrap(out, x, reduced(x.shape, dims, True))
        if not keepdim:
            out = _squeeze_mean(out, tuple(x.shape), dims, False)
        ctx.save_for_backward(x, out)
        ctx.meta = (dims, keepdim)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        dims, keepdim = ctx.meta
        shape = tuple(x.shape)
        return restore_dims(g, shape, dims, keepdim) * (x - restore_dims(out, shape, dims, keepdim)).exp()


@takes_out("logsumexp", Rule(floating, "logsumexp(): Expected floating point type for result tensor, but got: {o}"))
def logsumexp(input, dim, keepdim=False):
    if not input.dtype.is_floating_point:
        input = input.to(D.get_default_dtype())
    return apply_op(LogsumexpBackward0, input, norm_dims(dim, input.dim()), keepdim)


# ---- logical reductions, counting, NaN-ignoring sums ------------------------------------------------------

def _logical_reduce(op):
    def fn(input, dim=None, keepdim=False):
        dims = norm_dims(dim, input.dim()) if dim is not None else tuple(range(input.dim()))
        keep = keepdim if dim is not None else False
        r = wrap(input._be.reduce(op, input._data, dims, keep, D.bool_), input, reduced(input.shape, dims, keep))
        return r.to(D.uint8) if input.dtype is D.uint8 else r  # PyTorch keeps uint8 for uint8 inputs
    fn.__name__ = op
    # uint8 inputs reduce to uint8: out may be bool or uint8
    return takes_out(None, Rule(lambda r, o: o in (D.bool_, D.uint8),
                                f"{op} only supports bool tensor for result, got: {{o}}"))(fn)


all = _logical_reduce("all")  # noqa: A001 (PyTorch's names)
any = _logical_reduce("any")  # noqa: A001


def count_nonzero(input, dim=None):
    return sum(input != 0, dim=dim)


class NansumBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim, dtype):
        be = x._be
        h = x._data
        if x.dtype.is_floating_point:
            h = be.elementwise("where", (be.elementwise("isnan", (h,), x.dtype), 0, h), x.dtype)
        ctx.save_for_backward(x)
        ctx.meta = (tuple(x.shape), dims, keepdim)
        return wrap(be.reduce("sum", h, dims, keepdim, dtype), x, reduced(x.shape, dims, keepdim), dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return expand_back(g, *ctx.meta) * x.isnan().logical_not()


@takes_out("nansum", SAME, dtype_from_out=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    dt = D.to_dtype(dtype) if dtype is not None else sum_dtype(input.dtype)
    if dim is None:
        return apply_op(NansumBackward0, input, tuple(range(input.dim())), False, dt)
    return apply_op(NansumBackward0, input, norm_dims(dim, input.dim()), keepdim, dt)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not input.dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_scalar_name(input.dtype)}")
    count = sum(input.isnan().logical_not(), dim=dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


FUNCTIONS = {"sum": sum, "mean": mean, "prod": prod, "var": var, "std": std, "var_mean": var_mean,
             "std_mean": std_mean, "logsumexp": logsumexp, "all": all, "any": any, "count_nonzero": count_nonzero,
             "nansum": nansum, "nanmean": nanmean}
METHODS = {k: v for k, v in FUNCTIONS.items() if k not in ("var_mean", "std_mean")}
