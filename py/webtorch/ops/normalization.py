"""Normalization: layer_norm (fused primitive), batch/instance/group/rms/local-response norm, normalize,
cosine_similarity, pairwise_distance.

The normalization backward is one formula, ``rstd * (gh - mean(gh) - xhat * mean(gh * xhat))`` over the
normalized dims (gh = dL/dxhat). The fused layer_norm primitive computes it in one pass; when a graph
is being built for double backward the same formula runs as Tensor ops, recomputing the statistics from x
so that second derivatives see their dependence on x.
"""
import math

from .. import _dtype as D
from .._geometry import norm_dim, numel
from ..autograd.graph import Node, apply_op, recording
from ..autograd.grad_mode import state, no_grad
from ._core.dispatch import wrap, broadcast_shapes, check_same_device
from ._core.inplace import commit, require_float
from .norms import norm


def _fmt(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _moments(x, dims):
    mean = x.mean(dims, keepdim=True)
    xc = x - mean
    return mean, (xc * xc).mean(dims, keepdim=True)


def _normalized(x, dims, eps, mean, rstd):
    """(xhat, rstd) over dims. While a graph is being built (double backward) the statistics are recomputed
    from x so that derivatives see their dependence on x; otherwise the forward's saved ones are used."""
    if state.enabled:
        mean, var = _moments(x, dims)
        rstd = (var + eps).rsqrt()
    return (x - mean) * rstd, rstd


def _input_grad(gh, xhat, rstd, dims):
    """dL/dx of xhat = (x - mean) * rstd over dims, given gh = dL/dxhat."""
    return rstd * (gh - gh.mean(dims, keepdim=True) - xhat * (gh * xhat).mean(dims, keepdim=True))


# ---- layer norm --------------------------------------------------------------------------------------------

class NativeLayerNormBackward0(Node):
    @staticmethod
    def forward(ctx, x, weight, bias, n, eps):
        be = x._be
        y, mean, rstd = be.layer_norm(x._data, None if weight is None else weight._data,
                                      None if bias is None else bias._data, n, eps)
        stat = x.shape[:x.dim() - n] + (1,) * n
        mean, rstd = wrap(mean, x, stat), wrap(rstd, x, stat)
        if recording(ctx):
            ctx.save_for_backward(x, weight, mean, rstd)
            ctx.meta = (n, eps, weight is not None, bias is not None)
        return wrap(y, x, x.shape)

    @staticmethod
    def backward(ctx, g):
        x, weight, mean, rstd = ctx.saved_tensors
        n, eps, has_w, has_b = ctx.meta
        nig = list(ctx.needs_input_grad) + [False, False]
        need = (nig[0], has_w and nig[1], has_b and nig[1 + has_w])
        if state.enabled:
            dims = tuple(range(x.dim() - n, x.dim()))
            lead = tuple(range(x.dim() - n))
            xhat, rstd = _normalized(x, dims, eps, mean, rstd)
            gx = _input_grad(g * weight if has_w else g, xhat, rstd, dims) if need[0] else None
            gw = (g * xhat).sum(lead) if need[1] else None
            gb = g.sum(lead) if need[2] else None
        else:
            hs = x._be.layer_norm_backward(g._data, x._data, mean._data, rstd._data,
                                           weight._data if has_w else None, n, need)
            gx, gw, gb = (wrap(h, x, s) if h is not None else None
                          for h, s in zip(hs, (x.shape, x.shape[x.dim() - n:], x.shape[x.dim() - n:])))
        out = [gx]
        if has_w:
            out.append(gw)
        if has_b:
            out.append(gb)
        return tuple(out)


def _shape_list(normalized_shape):
    if isinstance(normalized_shape, int):
        return (normalized_shape,)
    return tuple(int(s) for s in normalized_shape)


def _check_normalized_shape(input, shape, weight, bias):
    n = len(shape)
    if n == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{_fmt(t.shape)} and normalized_shape = {_fmt(shape)}")
    if input.dim() < n or tuple(input.shape[input.dim() - n:]) != shape:
        raise RuntimeError(f"Given normalized_shape={_fmt(shape)}, expected input with shape [*, "
                           f"{', '.join(str(s) for s in shape)}], but got input of size{_fmt(input.shape)}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """F.layer_norm: normalize over the trailing ``normalized_shape`` dims, then scale and shift."""
    shape = _shape_list(normalized_shape)
    _check_normalized_shape(input, shape, weight, bias)
    require_float(input, "LayerNormKernelImpl")
    check_same_device(input, weight, bias)
    return apply_op(NativeLayerNormBackward0, input, weight, bias, len(shape), eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """F.rms_norm: x * rsqrt(mean(x^2) + eps) * weight; eps defaults to finfo(input.dtype).eps."""
    shape = _shape_list(normalized_shape)
    n = len(shape)
    if shape and input.dim() < n:
        raise ValueError(f"Input tensor must have at least {n} dimensions, but got {input.dim()}")
    if input.dim() < n or tuple(input.shape[input.dim() - n:]) != shape:
        raise RuntimeError(f"Given normalized_shape={_fmt(shape)}, expected input with shape "
                           f"[*{', '.join(str(s) for s in shape)}], but got input of size{_fmt(input.shape)}")
    require_float(input, "rms_norm")
    if eps is None:
        eps = D.finfo(input.dtype).eps
    dims = tuple(range(input.dim() - n, input.dim()))
    y = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return y * weight if weight is not None else y



# ---- batch norm ----------------------------------------------------------------------------------------------

def _channel_view(t, ndim):
    """A per-channel (C,) tensor shaped to broadcast against (N, C, *) of rank ndim."""
    return t.reshape((1, t.shape[0]) + (1,) * (ndim - 2)) if ndim > 1 else t


def _affine(xhat, weight, bias):
    """xhat * weight + bias with per-channel (dim 1) weight and bias, either may be None."""
    if weight is not None:
        xhat = xhat * _channel_view(weight, xhat.dim())
    if bias is not None:
        xhat = xhat + _channel_view(bias, xhat.dim())
    return xhat


def _handle(t):
    return None if t is None else t._data


class NativeBatchNormBackward0(Node):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps):
        nd = x.dim()
        if training:  # one kernel: statistics, running-stat updates and the normalized output
            y, mean, rstd = x._be.batch_norm(x._data, _handle(weight), _handle(bias), _handle(running_mean),
                                             _handle(running_var), momentum, eps)
            for r in (running_mean, running_var):
                if r is not None:
                    r._version[0] += 1
            y, mean, rstd = wrap(y, x, x.shape), wrap(mean, x, x.shape[1:2]), wrap(rstd, x, x.shape[1:2])
            if recording(ctx):
                ctx.save_for_backward(x, weight)
                ctx.stats = (_channel_view(mean, nd), _channel_view(rstd, nd))
                ctx.flat_stats = (mean, rstd)  # for batch_norm_backward
                ctx.meta = (training, eps, weight is not None, bias is not None)
                ctx.n_running = (running_mean is not None) + (running_var is not None)
            return y
        mean, var = _channel_view(running_mean, nd), _channel_view(running_var, nd)
        rstd = (var + eps).rsqrt()
        y = _affine((x - mean) * rstd, weight, bias)
        if recording(ctx):
            ctx.save_for_backward(x, weight)
            ctx.stats = (mean, rstd)  # the running statistics, not part of any graph
            ctx.meta = (training, eps, weight is not None, bias is not None)
            ctx.n_running = (running_mean is not None) + (running_var is not None)
        return y

    @staticmethod
    def backward(ctx, g):
        x, weight = ctx.saved_tensors
        mean, rstd = ctx.stats
        training, eps, has_w, has_b = ctx.meta
        nd = x.dim()
        dims = (0,) + tuple(range(2, nd))
        nig = ctx.needs_input_grad
        if training and not state.enabled and getattr(ctx, "flat_stats", None) is not None:
            need = (nig[0], has_w and nig[1], has_b and nig[1 + has_w])
            hs = x._be.batch_norm_backward(g._data, x._data, ctx.flat_stats[0]._data, ctx.flat_stats[1]._data,
                                           _handle(weight), need)
            gx, gw, gb = (wrap(h, x, s) if h is not None else None
                          for h, s in zip(hs, (x.shape, x.shape[1:2], x.shape[1:2])))
            return (gx,) + ((gw,) if has_w else ()) + ((gb,) if has_b else ()) + (None,) * ctx.n_running
        gh = g * _channel_view(weight, nd) if has_w else g
        if training:
            xhat, rstd = _normalized(x, dims, eps, mean, rstd)
        else:
            xhat = (x - mean) * rstd
        gx = None
        if nig[0]:
            gx = _input_grad(gh, xhat, rstd, dims) if training else gh * rstd
        out = [gx]
        if has_w:
            out.append((g * xhat).sum(dims) if nig[1] else None)
        if has_b:
            out.append(g.sum(dims) if nig[1 + has_w] else None)
        return tuple(out) + (None,) * ctx.n_running


def _check_channels(name, t, c):
    if t is not None and t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


def _verify_batch_size(size, shown):
    """F.batch_norm's and F.group_norm's training check: more than one value per channel (``shown``: the size as
    PyTorch's message writes it)."""
    count = 1
    for i, s in enumerate(size):
        if i != 1:
            count *= s
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {shown}")


def _empty_batch_norm(input, weight, bias):
    """PyTorch's batch norm of an input with no element: no statistics, no check of the channel count or dtype; a
    fresh copy (gradients flow) scaled by weight[0] and shifted by bias[0], as its native op composes it."""
    out = input.clone()
    if weight is not None:
        out = out * weight[0]
    if bias is not None:
        out = out + bias[0]
    return out


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """F.batch_norm: training normalizes with batch statistics and updates the running ones in place
    (unbiased variance, ``momentum``); evaluation normalizes with the running statistics."""
    if training:
        _verify_batch_size(input.shape, f"torch.Size({list(input.shape)})")
    if training and eps <= 0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if input.numel() == 0:
        return _empty_batch_norm(input, weight, bias)
    if input.dim() < 2:
        raise RuntimeError(f"batch_norm: expected input with at least 2 dims, got {input.dim()}")
    c = input.shape[1]
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be defined in evaluation mode")
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        _check_channels(name, t, c)
    require_float(input, "batch_norm")
    check_same_device(input, weight, bias, running_mean, running_var)
    return apply_op(NativeBatchNormBackward0, input, weight, bias, running_mean, running_var, training,
                    momentum, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """F.instance_norm: batch norm of the (1, N*C, *) reshape; running statistics averaged over the batch."""
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"torch.Size({list(input.shape)})")
    n, c = input.shape[0], input.shape[1]
    x = input.reshape((1, n * c) + tuple(input.shape[2:]))

    def rep(t):
        return None if t is None else t.unsqueeze(0).expand(n, c).reshape(n * c)

    rm, rv = rep(running_mean), rep(running_var)
    if rm is not None:
        rm = rm.detach().clone()
    if rv is not None:
        rv = rv.detach().clone()
    y = batch_norm(x, rm, rv, rep(weight), rep(bias), use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            if running_mean is not None:
                commit(running_mean, rm.reshape(n, c).mean(0))
            if running_var is not None:
                commit(running_var, rv.reshape(n, c).mean(0))
    return y.reshape(input.shape)


# ---- group norm --------------------------------------------------------------------------------------------

def _grouped(x, groups):
    """x (N, C, *) as (N, groups, C / groups * spatial): explicit sizes, as a batch of N = 0 leaves -1 open."""
    return x.reshape(x.shape[0], groups, numel(x.shape[1:]) // groups)


class NativeGroupNormBackward0(Node):
    @staticmethod
    def forward(ctx, x, weight, bias, groups, eps):
        xr = _grouped(x, groups)
        mean, var = _moments(xr, (2,))
        rstd = (var + eps).rsqrt()
        y = _affine(((xr - mean) * rstd).reshape(x.shape), weight, bias)
        if recording(ctx):
            ctx.save_for_backward(x, weight)
            ctx.stats = (mean, rstd)
            ctx.meta = (groups, eps, weight is not None, bias is not None)
        return y

    @staticmethod
    def backward(ctx, g):
        x, weight = ctx.saved_tensors
        mean, rstd = ctx.stats
        groups, eps, has_w, has_b = ctx.meta
        nd = x.dim()
        nig = ctx.needs_input_grad
        xhat, rstd = _normalized(_grouped(x, groups), (2,), eps, mean, rstd)
        gx = None
        if nig[0]:
            gh = _grouped(g * _channel_view(weight, nd) if has_w else g, groups)
            gx = _input_grad(gh, xhat, rstd, (2,)).reshape(x.shape)
        dims = (0,) + tuple(range(2, nd))
        out = [gx]
        if has_w:
            gw = (g * xhat.reshape(x.shape)).sum(dims) if nig[1] else None
            if gw is not None and x.shape[0] and not xhat.shape[2]:
                gw = gw + math.nan  # PyTorch's: a group with no element has NaN statistics, which reach dweight
            out.append(gw)
        if has_b:
            out.append(g.sum(dims) if nig[1 + has_w] else None)
        return tuple(out)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """F.group_norm: normalize each of ``num_groups`` channel groups per sample, then per-channel affine."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    size = [input.shape[0] * input.shape[1] // num_groups, num_groups] + list(input.shape[2:])
    _verify_batch_size(size, _fmt(size))
    return _group_norm(input, num_groups, weight, bias, eps)


def _group_norm(input, num_groups, weight, bias, eps):
    """torch.group_norm's checks and op (F.group_norm adds its rank and batch-size checks)."""
    c = input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {_fmt(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {_fmt(t.shape)} and input of shape {_fmt(input.shape)}")
    require_float(input, "GroupNormKernelImpl")
    return apply_op(NativeGroupNormBackward0, input, weight, bias, num_groups, eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """F.local_response_norm: x / (k + alpha * mean of x^2 over a window of ``size`` channels) ** beta."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    # composed as PyTorch composes it (the window mean an average pool over the zero-padded channels, so NaN/inf
    # stay in their windows and the dtype rules are avg_pool's: int64 pools, other integers are refused)
    from .padding import pad
    from .pooling import avg_pool2d, avg_pool3d
    div = input * input
    if dim == 3:
        div = avg_pool2d(pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2)), (size, 1), stride=1).squeeze(1)
    else:
        sizes = tuple(input.shape)
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = avg_pool3d(pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2)), (size, 1, 1), stride=1).squeeze(1)
        div = div.reshape(sizes)
    return input / (div * alpha + k).pow(beta)


# ---- norms and distances ---------------------------------------------------------------------------------

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """F.normalize: input / max(||input||_p over dim, eps)."""
    denom = norm(input, p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is not None:  # PyTorch's F.normalize writes out= through div
        from .arithmetic import div
        return div(input, denom, out=out)
    return input / denom


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cos of the angle along dim; each input is divided by its own norm first (PyTorch 2.x's stable form;
    the eps clamp is not differentiated through). Computed in the promoted dtype, which must be floating point."""
    common = D.promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{D.scalar_type_name(common)}")
    shape = broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    x1, x2 = x1.to(common).expand(shape), x2.to(common).expand(shape)
    n1 = norm(x1, 2, dim, keepdim=True).clone()
    n2 = norm(x2, 2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim."""
    last = max(x1.dim(), x2.dim(), 1) - 1
    d = x1 - x2 + eps
    if d.dim() == 0:
        d = d.reshape(1)
    return norm(d, p, last, keepdim)


def torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    """torch.batch_norm (ATen argument order)."""
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                        cudnn_enabled=True):
    """torch.instance_norm (ATen argument order)."""
    return instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return layer_norm(input, normalized_shape, weight, bias, eps)


def torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """torch.group_norm: reads the batch and channel sizes first (PyTorch's IndexError below 2 dims)."""
    if input.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    norm_dim(1, input.dim())
    return _group_norm(input, num_groups, weight, bias, eps)


FUNCTIONS = {"layer_norm": torch_layer_norm, "batch_norm": torch_batch_norm, "instance_norm": torch_instance_norm,
             "group_norm": torch_group_norm, "rms_norm": rms_norm, "cosine_similarity": cosine_similarity,
             "pairwise_distance": pairwise_distance}

FUNCTIONAL = dict(FUNCTIONS, layer_norm=layer_norm, batch_norm=batch_norm, instance_norm=instance_norm,
                  group_norm=group_norm, local_response_norm=local_response_norm, normalize=normalize)
