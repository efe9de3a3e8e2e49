"""Pooling: max/avg/lp/adaptive pooling and max_unpool.

1-d variants run the 2-d op on an unsqueezed input, as PyTorch does (same grad_fn chain). Adaptive average
pooling is a separable map (separable_resample.py): per spatial dim, each output sums its window (a gather of its
taps) and divides by the window's size, as PyTorch's kernel; backward and double backward are the same kind of map.
"""
import math

from ..autograd.graph import Node, apply_op
from ..backends.window_geometry import out_size
from .._dtype import int64
from ._core.dispatch import new_size_arg, norm_dim, wrap
from ._core.inplace import not_implemented_for
from .conv import ntuple
from .separable_resample import resample_node, taps


# ---------------------------------------------------------------------------------------------------
# Shared checks
# ---------------------------------------------------------------------------------------------------


def _check_pool_input(input, n, name, batch_msg, rank_msg=None):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(rank_msg or batch_msg)
    if any(s == 0 for s in input.shape[input.dim() - n - 1:]):
        raise RuntimeError(batch_msg)


def _check_dtype(input, kernel, ok):
    """PyTorch's CPU kernels take only some dtypes (per op): others raise its NotImplementedError."""
    if not ok(input.dtype):
        raise not_implemented_for(kernel, input.dtype)


def _floating(dt):
    return dt.is_floating_point


def _not_bool(dt):
    return dt.name != "bool"


def _floating_or_long(dt):
    return dt.is_floating_point or dt.name == "int64"


def _float_double_or_long(dt):
    return dt.name in ("float32", "float64", "int64")


def _pool_args(n, kernel_size, stride, padding, dilation):
    kernel = ntuple(kernel_size, n, "kernel_size")
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        ntuple(stride, n, "stride")
    padding = ntuple(padding, n, "padding")
    dilation = ntuple(dilation, n, "dilation")
    if any(s == 0 for s in stride) or any(k <= 0 for k in kernel):
        raise RuntimeError("stride should not be zero" if any(s == 0 for s in stride) else
                           "kernel size should be greater than zero, but got " +
                           " ".join(f"k{c}: {k}" for c, k in zip("dHW"[3 - n:], kernel)))
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got " +
                           " ".join(f"dilation{c}: {d}" for c, d in zip("THW"[3 - n:], dilation)))
    for p, k, d in zip(padding, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    return kernel, stride, padding, dilation


def _out_len(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    o = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (o - 1) * s >= size + p:
        o -= 1
    return o


def _check_output(x, out):
    if any(o <= 0 for o in out):
        c = x.shape[1]
        raise RuntimeError(f"Given input size: ({'x'.join(str(s) for s in (c,) + tuple(x.shape[2:]))}). Calculated "
                           f"output size: ({'x'.join(str(s) for s in (c,) + tuple(out))}). Output size is too small")


def _batched(input, n):
    return input if input.dim() == n + 2 else input.unsqueeze(0)


def _unbatch(input, n, *outs):
    if input.dim() == n + 2:
        return outs if len(outs) > 1 else outs[0]
    outs = tuple(o.squeeze(0) for o in outs)
    return outs if len(outs) > 1 else outs[0]


# ---------------------------------------------------------------------------------------------------
# Scatter/gather of per-plane flat indices (max pooling backward, max_unpool)
# ---------------------------------------------------------------------------------------------------

class _PlaneScatter(Node):
    """Zeros of (N, C, *plane) with src written (or, accumulate, added) at per-plane flat indices."""
    accumulate = True

    @classmethod
    def forward(cls, ctx, src, indices, plane):
        ctx.indices = indices
        return wrap(src._be.scatter_plane(src._data, indices._data, plane, cls.accumulate), src,
                    tuple(src.shape[:2]) + tuple(plane))

    @staticmethod
    def backward(ctx, g):
        return apply_op(PlaneGatherBackward0, g, ctx.indices), None


class PlaneGatherBackward0(Node):
    """out = src's planes read at flat indices (the adjoint of an accumulating scatter)."""

    @staticmethod
    def forward(ctx, src, indices):
        ctx.indices = indices
        ctx.plane = tuple(src.shape[2:])
        return wrap(src._be.gather_plane(src._data, indices._data), src, indices.shape)

    @staticmethod
    def backward(ctx, g):
        return apply_op(MaxPool2DWithIndicesBackwardBackward0, g, ctx.indices, ctx.plane), None


class MaxPool2DWithIndicesBackwardBackward0(_PlaneScatter):
    pass


class MaxUnpool2DBackward0(_PlaneScatter):
    accumulate = False


class MaxUnpool3DBackward0(MaxUnpool2DBackward0):
    pass


# ---------------------------------------------------------------------------------------------------
# Max pooling
# ---------------------------------------------------------------------------------------------------

class MaxPool2DWithIndicesBackward0(Node):
    @staticmethod
    def forward(ctx, x, kernel, stride, padding, dilation, ceil_mode):
        vals, idx = x._be.max_pool(x._data, kernel, stride, padding, dilation, ceil_mode)
        shape = x.shape[:2] + tuple(out_size(*w, ceil_mode) for w in zip(x.shape[2:], kernel, stride, padding,
                                                                            dilation))
        indices = wrap(idx, x, shape)
        ctx.indices = indices
        ctx.plane = tuple(x.shape[2:])
        return wrap(vals, x, shape), indices

    @staticmethod
    def backward(ctx, g, _g_indices):
        return apply_op(MaxPool2DWithIndicesBackwardBackward0, g, ctx.indices, ctx.plane)


class MaxPool3DWithIndicesBackward0(MaxPool2DWithIndicesBackward0):
    pass


def _max_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode, return_indices, name):
    kernel, stride, padding, dilation = _pool_args(n, kernel_size, stride, padding, dilation)
    x = _batched(input, n)
    out = tuple(_out_len(s, k, st, p, d, ceil_mode) for s, k, st, p, d in zip(x.shape[2:], kernel, stride, padding,
                                                                               dilation))
    _check_output(x, out)
    node = MaxPool3DWithIndicesBackward0 if n == 3 else MaxPool2DWithIndicesBackward0
    vals, idx = apply_op(node, x, kernel, stride, padding, dilation, ceil_mode)
    vals, idx = (vals, idx) if input.dim() == n + 2 else (vals.squeeze(0), idx.squeeze(0))
    return (vals, idx) if return_indices else vals


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[-2:]):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    _check_dtype(input, "max_pool1d_impl", _floating)
    stride = kernel_size if stride is None or stride == () or stride == [] else stride
    r = _max_pool(input.unsqueeze(-2), 2, (1, ntuple(kernel_size, 1, "kernel_size")[0]),
                  (1, ntuple(stride, 1, "stride")[0]), (0, ntuple(padding, 1, "padding")[0]),
                  (1, ntuple(dilation, 1, "dilation")[0]), ceil_mode, return_indices, "max_pool1d")
    return (r[0].squeeze(-2), r[1].squeeze(-2)) if return_indices else r.squeeze(-2)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    _check_pool_input(input, 2, "max_pool2d", "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                      f"for input, but got:{list(input.shape)}",
                      "non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_dtype(input, "max_pool2d", _not_bool)
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    _check_pool_input(input, 3, "max_pool3d", "Expected 4D or 5D (batch mode) tensor with optional 0 dim batch size "
                      f"for input, but got:{list(input.shape)}",
                      "non-empty 4D or 5D (batch mode) tensor expected for input")
    _check_dtype(input, "max_pool3d", _not_bool)
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool3d")


def _max_unpool(input, indices, n, kernel_size, stride, padding, output_size):
    kernel = ntuple(kernel_size, n, "kernel_size")
    stride = kernel if stride is None else ntuple(stride, n, "stride")
    padding = ntuple(padding, n, "padding")
    x, idx = _batched(input, n), _batched(indices, n)
    default = tuple((s - 1) * st - 2 * p + k for s, st, p, k in zip(x.shape[2:], stride, padding, kernel))
    if output_size is None:
        size = default
    else:
        size = tuple(output_size)
        if len(size) == n + 2:
            size = size[2:]
        elif len(size) == n + 1 and input.dim() == n + 1:
            size = size[1:]
        if len(size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(tuple(output_size))}'")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < size[d] < hi:
                raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {lo} and {hi})')
    if indices.dtype.name != "int64":
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{ {'float32': 'Float', 'float64': 'Double', 'int32': 'Int'}.get(indices.dtype.name, indices.dtype.name)}")
    if tuple(idx.shape) != tuple(x.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(x.shape)}) but "
                           f"got indices tensor with shape: {list(idx.shape)}")
    node = MaxUnpool3DBackward0 if n == 3 else MaxUnpool2DBackward0
    return _unbatch(input, n, apply_op(node, x, idx, size))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel = ntuple(kernel_size, 1, "kernel_size")
    stride = kernel if stride is None else ntuple(stride, 1, "stride")
    padding = ntuple(padding, 1, "padding")
    if output_size is not None:
        output_size = tuple(output_size)[:-1] + (1, tuple(output_size)[-1])
    return _max_unpool(input.unsqueeze(-2), indices.unsqueeze(-2), 2, (1,) + kernel, (1,) + stride, (0,) + padding,
                       output_size).squeeze(-2)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size)


# ---------------------------------------------------------------------------------------------------
# Average pooling
# ---------------------------------------------------------------------------------------------------

class AvgPool2DBackward0(Node):
    @staticmethod
    def forward(ctx, x, params):
        ctx.params, ctx.shape = params, tuple(x.shape)
        kernel, stride, padding, ceil_mode = params[:4]
        shape = x.shape[:2] + tuple(out_size(s, k, st, p, 1, ceil_mode)
                                    for s, k, st, p in zip(x.shape[2:], kernel, stride, padding))
        return wrap(x._be.avg_pool(x._data, *params), x, shape)

    @staticmethod
    def backward(ctx, g):
        return apply_op(AvgPool2DBackwardBackward0, g, ctx.shape, ctx.params)


class AvgPool3DBackward0(AvgPool2DBackward0):
    pass


class AvgPool2DBackwardBackward0(Node):
    """avg_pool's input gradient; linear in g, its own gradient is avg_pool again."""

    @staticmethod
    def forward(ctx, g, shape, params):
        ctx.params = params
        return wrap(g._be.avg_pool_backward(g._data, shape, *params), g, shape)

    @staticmethod
    def backward(ctx, gg):
        return apply_op(AvgPool2DBackward0, gg, ctx.params)


def _avg_pool(input, n, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    kernel, stride, padding, _ = _pool_args(n, kernel_size, stride, padding, 1)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    x = _batched(input, n)
    out = tuple(_out_len(s, k, st, p, 1, ceil_mode) for s, k, st, p in zip(x.shape[2:], kernel, stride, padding))
    _check_output(x, out)
    node = AvgPool3DBackward0 if n == 3 else AvgPool2DBackward0
    return _unbatch(input, n, apply_op(node, x, (kernel, stride, padding, ceil_mode, count_include_pad,
                                                 divisor_override)))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for avg_pool1d)")
    _check_dtype(input, "avg_pool2d", _floating_or_long)
    x = input.unsqueeze(-2)   # PyTorch pools it as 2-D, with avg_pool2d's check: only a batch dim may be empty
    if 0 in tuple(x.shape[x.dim() - 3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{list(x.shape)}")
    stride = kernel_size if stride is None or stride == () or stride == [] else stride
    return _avg_pool(x, 2, (1, ntuple(kernel_size, 1, "kernel_size")[0]),
                     (1, ntuple(stride, 1, "stride")[0]), (0, ntuple(padding, 1, "padding")[0]), ceil_mode,
                     count_include_pad, None).squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    norm_dim(-3, input.dim())   # PyTorch's CPU avg_pool2d reads the channel dim first: IndexError below 3 dims
    _check_pool_input(input, 2, "avg_pool2d", "non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_dtype(input, "avg_pool2d", _floating_or_long)
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    _check_pool_input(input, 3, "avg_pool3d", "non-empty 4D or 5D (batch mode) tensor expected for input")
    _check_dtype(input, "avg_pool3d_out_frame", _float_double_or_long)
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _lp_pool(input, n, norm_type, kernel_size, stride, ceil_mode, avg):
    from .unary_math import relu
    kernel = ntuple(kernel_size, n, "kernel_size")
    out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode) if stride is not None else \
        avg(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * relu(out.abs())).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, 1, norm_type, kernel_size, stride, ceil_mode, avg_pool1d)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, 2, norm_type, kernel_size, stride, ceil_mode, avg_pool2d)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, 3, norm_type, kernel_size, stride, ceil_mode, avg_pool3d)


# ---------------------------------------------------------------------------------------------------
# Adaptive pooling
# ---------------------------------------------------------------------------------------------------

def _adaptive_windows(L, O):
    def build():
        for i in range(O):
            a, b = (i * L) // O, -(-((i + 1) * L) // O)
            yield [(j, 1.0) for j in range(a, b)]
    return build


def _adaptive_size(x, output_size, n, name):
    size = (output_size,) * n if isinstance(output_size, int) or output_size is None else tuple(output_size)
    if len(size) != n:
        raise RuntimeError(f"{name}: output_size must be {n}")
    return tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(size))


def _check_output_size(size, name):
    """adaptive average pooling's check of an int output size (None keeps the input's)."""
    if any(s is not None and s < 0 for s in size):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(str(s) for s in size)}}}")


def _check_nonempty(input, name, first=1, what="input"):
    """PyTorch refuses an empty dim it has to cut into windows: every non-batch dim, or the dims from ``first``."""
    for i in range(first, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected {what} to have non-zero size for non-batch dimensions, but {what} "
                               f"has sizes {list(input.shape)} with dimension {i} being empty")


class EmptyAdaptivePoolBackward(Node):
    """An adaptive pool's output of no element (no kernel runs). Backward as PyTorch's: a grad_output with an empty
    non-batch dim is refused; an empty batch gives the input its (empty) zero gradient."""
    @staticmethod
    def forward(ctx, x, shape, name):
        ctx.meta = (tuple(x.shape), name)
        return wrap(x._be.full(shape, 0, x.dtype), x, shape)

    @staticmethod
    def backward(ctx, g):
        shape, name = ctx.meta
        _check_nonempty(g, name + "_backward", what="grad_output")
        return g.new_zeros(shape)


def _adaptive_avg(input, output_size, n, name):
    wanted = (output_size,) * n if isinstance(output_size, int) else tuple(output_size or ())
    _check_output_size(wanted, name)
    if wanted == (1,) * n:   # PyTorch's shortcut: a mean over the last n dims (any rank, empty ones too)
        return input.mean(tuple(range(-n, 0)), keepdim=True)
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    # adaptive_avg_pool2d checks only its two window dims, and runs no kernel (checks no dtype) for an empty output
    _check_nonempty(input, name, input.dim() - 2 if n == 2 else 1)
    x = _batched(input, n)
    size = _adaptive_size(x, output_size, n, name)
    if n == 2 and 0 in x.shape[:2] + size:
        return apply_op(EmptyAdaptivePoolBackward, input, input.shape[:-n] + size, name)
    _check_dtype(input, name, _floating)
    maps = tuple(None if L == O else taps(x, ("adaptive", L, O), _adaptive_windows(L, O), divide=True)
                 for L, O in zip(x.shape[2:], size))
    node = resample_node("AdaptiveAvgPool3DBackward0" if n == 3 else "AdaptiveAvgPool2DBackward0")
    return _unbatch(input, n, apply_op(node, x, maps))


def _type_name(dt):
    from .._dtype import scalar_type_name
    return scalar_type_name(dt)


def adaptive_avg_pool1d(input, output_size):
    size = ntuple(output_size, 1, "output_size")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    return _adaptive_avg(input.unsqueeze(-2), (1, size[0]), 2, "adaptive_avg_pool2d").squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg(input, output_size, 3, "adaptive_avg_pool3d")


class AdaptiveMaxPool2DBackward0(MaxPool2DWithIndicesBackward0):
    @staticmethod
    def forward(ctx, x, size):
        vals, idx = x._be.adaptive_max_pool(x._data, size)
        shape = x.shape[:2] + tuple(size)
        indices = wrap(idx, x, shape)
        ctx.indices = indices
        ctx.plane = tuple(x.shape[2:])
        return wrap(vals, x, shape), indices


class AdaptiveMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):
    pass


def _adaptive_max(input, output_size, n, return_indices, name):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}")
    _check_nonempty(input, name)
    _check_dtype(input, name + ("_cpu" if n == 3 else ""), _floating)
    x = _batched(input, n)
    size = _adaptive_size(x, output_size, n, name)
    shape = new_size_arg(input.shape[:-n] + size)
    if 0 in shape:
        vals = apply_op(EmptyAdaptivePoolBackward, input, shape, name)
        return (vals, input.new_zeros(shape, dtype=int64)) if return_indices else vals
    node = AdaptiveMaxPool3DBackward0 if n == 3 else AdaptiveMaxPool2DBackward0
    vals, idx = _unbatch(input, n, *apply_op(node, x, size))
    return (vals, idx) if return_indices else vals


def adaptive_max_pool1d(input, output_size, return_indices=False):
    size = ntuple(output_size, 1, "output_size")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got: {list(input.shape)}")
    r = _adaptive_max(input.unsqueeze(-2), (1, size[0]), 2, True, "adaptive_max_pool2d")
    vals, idx = r[0].squeeze(-2), r[1].squeeze(-2)
    return (vals, idx) if return_indices else vals


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 2, return_indices, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 3, return_indices, "adaptive_max_pool3d")


FUNCTIONS = {"max_pool1d": max_pool1d, "max_pool2d": max_pool2d, "max_pool3d": max_pool3d,
             "avg_pool1d": avg_pool1d, "adaptive_avg_pool1d": adaptive_avg_pool1d}
