"""Loss functions (torch.nn.functional forms; torch.<name> forms with ATen's argument order).

Losses PyTorch implements as one kernel are Nodes with PyTorch's names (MseLossBackward0,
NllLossBackward0, ...); losses PyTorch composes in Python or ATen are composed the same way here, so
their graphs match. Class-index losses select the target class with a one-hot comparison against
arange(C) (elementwise + reduce: no gather kernel, fuses on webgpu).
"""
import math
import warnings

from .._dtype import get_default_dtype, int64, promote_types, scalar_type_name, uint8
from .arithmetic import check_sub
from ._core.inplace import check_castable, check_inplace_broadcast, not_implemented_for, require_float
from ..autograd.graph import Node, apply_op, recording
from ..autograd.grad_mode import no_grad
from .activation import logsigmoid
from .creation import arange
from ._core.dispatch import broadcast_shapes, wrap
from .normalization import pairwise_distance
from .unary_math import check_unary_dtype, sigmoid
from .where_clamp import where
from .softmax import log_softmax

_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce):
    sa = True if size_average is None else size_average
    rd = True if reduce is None else reduce
    ret = "mean" if sa and rd else ("sum" if rd else "none")
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                  stacklevel=3)
    return ret


def reduction_name(reduction, size_average=None, reduce=None):
    """'none' / 'mean' / 'sum' from F's string (or the legacy size_average/reduce flags) or ATen's int."""
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    if isinstance(reduction, int) and not isinstance(reduction, bool):
        return _REDUCTIONS[reduction]
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def reduce_loss(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _grad_scale(g, reduction, numel):
    """The upstream gradient of each loss element (a scalar g spread over the elements for mean/sum)."""
    return g / numel if reduction == "mean" else g


def _warn_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


# ---- pointwise regression losses -----------------------------------------------------------------------------

def _common_operands(input, target, kernel):
    """input and target in their promoted dtype, which PyTorch's one-kernel loss ``kernel`` computes in (a bool
    target counts as 0/1); an integer promoted dtype is refused as that kernel refuses it."""
    common = promote_types(input.dtype, target.dtype)
    if not common.is_floating_point:
        raise not_implemented_for(kernel, common)
    return input.to(common), target.to(common)

def _weighted(loss, weight, input, red, by_weight_sum):
    """F's weighted form of a pointwise loss (mse, l1, huber): loss * weight of input's size; 'mean' divides by
    the sum of the weights (mse, l1: ``by_weight_sum``) or by the element count (huber), as PyTorch 2.13 does."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    out = loss * weight
    if red == "mean" and by_weight_sum:
        return out.sum() / weight.sum()
    return reduce_loss(out, red)


def _pointwise_loss(name, loss_fn, grad_fn):
    """Node ``name``: elementwise loss_fn(x, t, *params) then reduction; grad_fn -> (dl/dx, dl/dt)."""
    def forward(ctx, x, t, reduction, params):
        loss = loss_fn(x, t, *params)
        if recording(ctx):
            ctx.save_for_backward(x, t)
            ctx.meta = (reduction, params, loss.numel())
        return reduce_loss(loss, reduction)

    def backward(ctx, g):
        x, t = ctx.saved_tensors
        reduction, params, numel = ctx.meta
        gl = _grad_scale(g, reduction, numel)
        dx, dt = grad_fn(x, t, *params)
        nig = ctx.needs_input_grad
        return (gl * dx if nig[0] else None, gl * dt if nig[1] and dt is not None else None)

    return type(name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def _mse_grad(x, t):
    d = (x - t) * 2
    return d, -d


def _smooth_l1(x, t, beta):
    d = (x - t).abs()
    return where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)


def _smooth_l1_grad(x, t, beta):
    d = x - t
    gx = where(d.abs() < beta, d / beta, d.sign())
    return gx, -gx


def _huber(x, t, delta):
    d = (x - t).abs()
    return where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)


def _huber_grad(x, t, delta):
    d = x - t
    gx = where(d.abs() < delta, d, d.sign() * delta)
    return gx, -gx


MseLossBackward0 = _pointwise_loss("MseLossBackward0", lambda x, t: (x - t) * (x - t), _mse_grad)
SmoothL1LossBackward0 = _pointwise_loss("SmoothL1LossBackward0", _smooth_l1, _smooth_l1_grad)
HuberLossBackward0 = _pointwise_loss("HuberLossBackward0", _huber, _huber_grad)
SoftMarginLossBackward0 = _pointwise_loss(
    "SoftMarginLossBackward0", lambda x, t: -logsigmoid(x * t), lambda x, t: (-t * sigmoid(-x * t), None))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error; a target of another shape broadcasts (with PyTorch's warning)."""
    _warn_size(input, target)
    red = reduction_name(reduction, size_average, reduce)
    if weight is not None:
        return _weighted(((input - target) * (input - target)), weight, input, red, by_weight_sum=True)
    input, target = _common_operands(input, target, "mse_cpu")
    return apply_op(MseLossBackward0, input, target, red, ())


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size(input, target)
    red = reduction_name(reduction, size_average, reduce)
    loss = (input - target).abs()
    if weight is not None:
        return _weighted(loss, weight, input, red, by_weight_sum=True)
    return reduce_loss(loss, red)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _warn_size(input, target)
    red = reduction_name(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=red)
    input, target = _common_operands(input, target, "smooth_l1_cpu")
    return apply_op(SmoothL1LossBackward0, input, target, red, (float(beta),))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """PyTorch's kernel writes the promoted result into a loss of input's dtype (a float target with an integer
    input is refused, a float64 target with a float32 input gives float32)."""
    _warn_size(input, target)
    red = reduction_name(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    check_castable(promote_types(input.dtype, target.dtype), input.dtype)
    x, t = _common_operands(input, target, "huber_cpu")
    if weight is not None:
        return _weighted(_huber(x, t, delta).to(input.dtype), weight, input, red, by_weight_sum=False)
    return apply_op(HuberLossBackward0, x, t, red, (float(delta),)).to(input.dtype)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), computed stably. PyTorch computes it in place in a loss of input's shape and
    dtype (-input, then * target, exp, log1p), so it refuses what those steps refuse: a bool input, an integer
    input, a target that broadcasts past input's shape."""
    red = reduction_name(reduction, size_average, reduce)
    check_unary_dtype("neg", input.dtype)
    common = promote_types(input.dtype, target.dtype)
    check_castable(common if common.is_floating_point else get_default_dtype(), input.dtype)
    check_inplace_broadcast(input, target)
    return apply_op(SoftMarginLossBackward0, input, target, red, ()).to(input.dtype)


# ---- binary cross entropy ----------------------------------------------------------------------------------

class BinaryCrossEntropyBackward0(Node):
    @staticmethod
    def forward(ctx, x, t, weight, reduction):
        # PyTorch checks this on every device (CUDA with a device assert); webgpu checks on the device too and
        # raises at the next read (NaN fails the check as in PyTorch)
        x._be.require_all(((x >= 0) & (x <= 1))._data, "binary_cross_entropy")
        t._be.require_all(((t >= 0) & (t <= 1))._data, "binary_cross_entropy_target")
        # PyTorch clamps the logs at -100 so that a confident wrong answer costs 100, not inf
        loss = -(t * x.log().clamp_min(-100.0) + (1 - t) * (1 - x).log().clamp_min(-100.0))
        if weight is not None:
            loss = loss * weight
        if recording(ctx):
            ctx.save_for_backward(x, t, weight)
            ctx.meta = (reduction, loss.numel())
        return reduce_loss(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        x, t, weight = ctx.saved_tensors
        reduction, numel = ctx.meta
        gl = _grad_scale(g, reduction, numel)
        if weight is not None:
            gl = gl * weight
        nig = ctx.needs_input_grad
        gx = gl * (x - t) / ((1 - x) * x).clamp_min(1e-12) if nig[0] else None
        gt = gl * ((1 - x).log().clamp_min(-100.0) - x.log().clamp_min(-100.0)) if nig[1] else None
        return (gx, gt) + ((None,) if weight is not None else ())


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)) for probabilities x in [0, 1]; logs clamped at -100. PyTorch's kernel takes
    a target of input's own floating dtype only, and writes the weighted loss in input's dtype."""
    red = reduction_name(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {scalar_type_name(target.dtype)} but expected {scalar_type_name(input.dtype)}"
                           f" (give binary_cross_entropy a target of the input's dtype: target.to({input.dtype}))")
    require_float(input, "binary_cross_entropy")
    if weight is not None:
        weight = weight.to(input.dtype).expand(broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
    return apply_op(BinaryCrossEntropyBackward0, input, target, weight, red)


class BinaryCrossEntropyWithLogitsBackward0(Node):
    @staticmethod
    def forward(ctx, x, t, weight, pos_weight, reduction):
        sp = _softplus_neg(x)
        if pos_weight is not None:
            loss = (1 - t) * x + (1 + (pos_weight - 1) * t) * sp
        else:
            loss = (1 - t) * x + sp
        if weight is not None:
            loss = loss * weight
        if recording(ctx):
            ctx.save_for_backward(x, t, weight, pos_weight)
            ctx.meta = (reduction, loss.numel())
        return reduce_loss(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        x, t, weight, pw = ctx.saved_tensors
        reduction, numel = ctx.meta
        gl = _grad_scale(g, reduction, numel)
        if weight is not None:
            gl = gl * weight
        nig = ctx.needs_input_grad
        gx = gt = None
        if nig[0]:
            gx = gl * ((1 + (pw - 1) * t) * sigmoid(x) - pw * t) if pw is not None else gl * (sigmoid(x) - t)
        if nig[1]:
            gt = gl * ((pw - 1) * _softplus_neg(x) - x) if pw is not None else -gl * x
        return (gx, gt) + (None,) * ((weight is not None) + (pw is not None))


def _softplus_neg(x):
    """log(1 + exp(-x)) without overflow."""
    return (-x).clamp_min(0.0) + (-x.abs()).exp().log1p()


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """BCE on logits (sigmoid folded in, stable for any logit); pos_weight scales the positive term."""
    red = reduction_name(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _bce_with_logits(input, target, weight, pos_weight, red)


def _bce_with_logits(input, target, weight, pos_weight, red):
    """ATen's binary_cross_entropy_with_logits (no size check): PyTorch computes (1 - target) * input -
    log_sigmoid(input) in place in a loss of target's shape and dtype, so it refuses what those steps refuse (an
    integer input, a bool or integer target, an input or weight that broadcasts past target's shape) and returns
    target's dtype."""
    require_float(input, "log_sigmoid_cpu")
    check_sub(1, target)
    check_castable(promote_types(target.dtype, input.dtype), target.dtype)
    check_inplace_broadcast(target, input)
    if weight is not None:
        check_inplace_broadcast(target, weight)
    x = input.to(target.dtype)
    if tuple(x.shape) != tuple(target.shape):
        x = x.expand(target.shape)
    return apply_op(BinaryCrossEntropyWithLogitsBackward0, x, target, weight, pos_weight, red)


# ---- class-index losses ---------------------------------------------------------------------------------------

def _class_selector(target, c, cdim, ndim):
    """Bool one-hot of target along the class dim of an input of rank ndim."""
    cls = arange(c, device=target.device).reshape((c,) + (1,) * (ndim - cdim - 1))
    return target.unsqueeze(cdim) == cls


def _target_weights(onehot, target, weight, cdim, ndim, ignore_index, dtype):
    """weight[target] per target element (1 without weight), 0 where target == ignore_index."""
    valid = (target != ignore_index).to(dtype)
    if weight is None:
        return valid
    wv = weight.reshape((weight.numel(),) + (1,) * (ndim - cdim - 1))
    return where(onehot, wv, 0.0).sum(cdim) * valid


def _host_reduce(t, op):
    """A full reduction read back as a Python value (a device sync)."""
    return t._be.item(t._be.reduce(op, t._data, (), False, t.dtype))


def _check_target_range(target, c, ignore_index=None, op="nll_loss"):
    """target, its class indices checked to lie in [0, c) or equal ignore_index (the backend raises PyTorch's
    IndexError; webgpu checks on the device, raising at the next read, with no readback of its own)."""
    h = target._be.check_classes(target._data, c, ignore_index, op)
    return target if h is target._data else wrap(h, target, target.shape)


class NllLossBackward0(Node):
    @staticmethod
    def forward(ctx, logp, target, weight, reduction, ignore_index):
        nd = logp.dim()
        cdim = 1 if nd >= 2 else 0
        onehot = _class_selector(target, logp.shape[cdim], cdim, nd)
        wt = _target_weights(onehot, target, weight, cdim, nd, ignore_index, logp.dtype)
        loss = -where(onehot, logp, 0.0).sum(cdim) * wt
        total = wt.sum() if reduction == "mean" else None
        if recording(ctx):
            ctx.meta = (onehot, wt, total, reduction, cdim, weight is not None)
        if reduction == "none":
            return loss
        return loss.sum() / total if reduction == "mean" else loss.sum()

    @staticmethod
    def backward(ctx, g):
        onehot, wt, total, reduction, cdim, has_w = ctx.meta
        gl = g / total if reduction == "mean" else g
        gx = where(onehot, (-(gl * wt)).unsqueeze(cdim), 0.0)
        return (gx, None) + ((None,) if has_w else ())


def _check_nll_shapes(input, target, weight):
    if input.dim() < 1:
        raise ValueError("Expected input to have at least 1 dimension (got 0)")
    if input.dim() == 1:
        if target.dim() != 0:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif input.shape[0] != (target.shape[0] if target.dim() else -1):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.dim() else 0}).")
    elif tuple(target.shape) != tuple(input.shape[:1]) + tuple(input.shape[2:]):
        want = list(input.shape[:1]) + list(input.shape[2:])
        raise RuntimeError(f"Expected target size {want}, got {list(target.shape)}")
    c = input.shape[1] if input.dim() >= 2 else input.shape[0]
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got weight "
                           f"tensor of shape: {list(weight.shape)}")
    if target.dtype not in (int64, uint8):   # class indices: PyTorch's kernels take Long or Byte, nothing else
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_type_name(target.dtype)}")
    return c


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of the target classes; input (N, C, d1, ...) of log-probabilities."""
    red = reduction_name(reduction, size_average, reduce)
    c = _check_nll_shapes(input, target, weight)
    require_float(input, "nll_loss2d_forward_out_frame" if input.dim() >= 3 else "nll_loss_out_frame")
    target = _check_target_range(target, c, ignore_index)
    return apply_op(NllLossBackward0, input, target, weight, red, ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax over the class dim, then nll_loss (class indices) or -sum(p * log q) (probabilities)."""
    red = reduction_name(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    cdim = 0 if input.dim() == 1 else 1
    c = input.shape[cdim]
    logp = log_softmax(input, cdim)
    wshape = (c,) + (1,) * (input.dim() - cdim - 1)
    if target.dtype.is_floating_point and tuple(target.shape) == tuple(input.shape):
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        if red == "none":
            return -prod.sum(cdim)
        if red == "sum":
            return -prod.sum()
        return -prod.sum() / (input.numel() // c)
    loss = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=red)
    if label_smoothing <= 0:
        return loss
    smooth = -(logp * weight.reshape(wshape) if weight is not None else logp).sum(cdim)
    ignored = target == ignore_index
    smooth = where(ignored, 0.0, smooth)
    if red == "mean":
        with no_grad():
            if weight is not None:
                onehot = _class_selector(target, c, cdim, input.dim())
                denom = _target_weights(onehot, target, weight, cdim, input.dim(), ignore_index, input.dtype).sum()
            else:
                denom = (~ignored).sum()
        smooth = smooth.sum() / denom
    elif red == "sum":
        smooth = smooth.sum()
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / c)


class MultiMarginLossBackward0(Node):
    @staticmethod
    def forward(ctx, x, target, weight, p, margin, reduction):
        x2 = x if x.dim() == 2 else x.reshape(1, -1)
        t = target.reshape(-1)
        c = x2.shape[1]
        onehot = _class_selector(t, c, 1, 2)
        xy = where(onehot, x2, 0.0).sum(1, keepdim=True)
        z = where(onehot, 0.0, (x2 - xy + margin).clamp_min(0.0))
        wy = where(onehot, weight.reshape(1, c), 0.0).sum(1, keepdim=True) if weight is not None else None
        terms = z if p == 1 else z * z
        if wy is not None:
            terms = terms * wy
        loss = terms.sum(1) / c
        if recording(ctx):
            ctx.meta = (onehot, z, wy, p, c, reduction, tuple(x.shape), weight is not None)
        if x.dim() != 2:
            loss = loss.reshape(())
        return reduce_loss(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        onehot, z, wy, p, c, reduction, shape, has_w = ctx.meta
        n = z.shape[0]
        gl = _grad_scale(g, reduction, n)
        if reduction == "none":
            gl = gl.reshape(n, 1)
        h = (z > 0).to(z.dtype) if p == 1 else z * 2
        if wy is not None:
            h = h * wy
        h = h * gl / c
        gx = h - where(onehot, h.sum(1, keepdim=True), 0.0)
        return (gx.reshape(shape), None) + ((None,) if has_w else ())


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Multi-class hinge: sum over j != y of max(0, margin - x[y] + x[j])^p (* weight[y]) / C."""
    red = reduction_name(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if input.dim() > 2 or (input.dim() == 2 and (target.dim() != 1 or target.shape[0] != input.shape[0])) \
            or (input.dim() <= 1 and target.numel() != 1):
        raise RuntimeError(f"inconsistent target size, expected {input.shape[0] if input.dim() == 2 else 1} but got "
                           f"{list(target.shape)}")
    c = input.shape[-1] if input.dim() else 1
    require_float(input, "multi_margin_loss_cpu_kernel")
    if target.dtype is not int64:
        raise RuntimeError(f"expected scalar type Long but found {scalar_type_name(target.dtype)} (multi_margin_loss "
                           "takes class indices as int64: target.long())")
    try:
        target = _check_target_range(target, c, op="multi_margin_loss")
    except IndexError:
        raise RuntimeError("target out of range") from None
    return apply_op(MultiMarginLossBackward0, input, target, weight, p, float(margin), red)


# ---- composite losses (composed as PyTorch composes them) -------------------------------------------------------

def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || exp(input)) pointwise: target * (log target - input); 'batchmean' divides by the batch size."""
    if size_average is not None or reduce is not None:
        red = _legacy_reduction(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        red = "sum" if reduction == "batchmean" else reduction_name(reduction)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = target.exp() * (target - input)
    else:
        # xlogy(t, t): 0 where t == 0 (the safe log keeps the masked branch's gradient finite)
        out = target * where(target > 0, target, 1.0).log() - target * input
    out = reduce_loss(out, red)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.shape[0]
    return out


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    red = reduction_name(reduction, size_average, reduce)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        safe = where(target > 1, target, 1.0)
        stirling = safe * safe.log() - safe + 0.5 * (safe * (2 * math.pi)).log()
        loss = loss + where(target <= 1, 0.0, stirling)
    return reduce_loss(loss, red)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 * (log var + (input - target)^2 / var); var clamped at eps without differentiating the clamp."""
    from .creation import ones_like
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = ones_like(input) * var
    elif _host_reduce(var < 0, "any"):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and
                  sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_min_(eps)
    loss = ((input - target) ** 2 / var + var.log()) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    red = reduction_name(reduction, size_average, reduce)
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(f"{td}D target tensor expects {want}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    prod = (input1 * input2).sum(td)
    mag1 = (input1 * input1).sum(td) + 1e-12
    mag2 = (input2 * input2).sum(td) + 1e-12
    cos = prod / (mag1 * mag2).sqrt()
    pos = where(target == 1, 1 - cos, 0.0)
    neg = where(target == -1, (cos - margin).clamp_min(0.0), 0.0)
    return reduce_loss(pos + neg, red)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    red = reduction_name(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _margin_ranking(input1, input2, target, margin, red)


def _margin_ranking(input1, input2, target, margin, red):
    """ATen's margin_ranking_loss (F's rank check aside: the three broadcast)."""
    return reduce_loss((-target * (input1 - input2) + margin).clamp_min(0.0), red)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """PyTorch computes it in input's dtype: an integer input takes the margin truncated to an integer and gives
    an integer loss (whose 'mean' PyTorch refuses)."""
    red = reduction_name(reduction, size_average, reduce)
    if not input.dtype.is_floating_point:
        margin = int(margin)
    out = where(target != 1, (margin - input).clamp_min(0), 0) + where(target != -1, input, 0)
    return reduce_loss(out, red)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    red = reduction_name(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           "inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        from .where_clamp import minimum
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return reduce_loss((d_pos - d_neg + margin).clamp_min(0.0), red)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = reduction_name(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cdim = input.dim() - 1
    loss = loss.sum(cdim) / input.shape[cdim]
    return reduce_loss(loss, red)


# ---- torch.<name> forms (ATen order: reduction is an int after the loss's own arguments; PyTorch 2.13 defaults
# it to 0, no reduction, unlike the nn.functional forms) ---------------------------------------------

def _torch_bce_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return _bce_with_logits(input, target, weight, pos_weight, reduction_name(reduction))


def _torch_kl_div(input, target, reduction=0, log_target=False):
    return kl_div(input, target, reduction=reduction_name(reduction), log_target=log_target)


def _torch_cosine_embedding(input1, input2, target, margin=0.0, reduction=0):
    return cosine_embedding_loss(input1, input2, target, margin, reduction=reduction_name(reduction))


def _torch_margin_ranking(input1, input2, target, margin=0.0, reduction=0):
    return _margin_ranking(input1, input2, target, margin, reduction_name(reduction))


def _torch_hinge_embedding(input, target, margin=1.0, reduction=0):
    return hinge_embedding_loss(input, target, margin, reduction=reduction_name(reduction))


def _torch_triplet(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=0):
    return triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=reduction_name(reduction))


def _torch_poisson_nll(input, target, log_input, full, eps, reduction):
    return poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=reduction_name(reduction))


FUNCTIONS = {
    "binary_cross_entropy_with_logits": _torch_bce_logits, "kl_div": _torch_kl_div,
    "cosine_embedding_loss": _torch_cosine_embedding, "margin_ranking_loss": _torch_margin_ranking,
    "hinge_embedding_loss": _torch_hinge_embedding, "triplet_margin_loss": _torch_triplet,
    "poisson_nll_loss": _torch_poisson_nll,
}
FUNCTIONAL = {
    "mse_loss": mse_loss, "l1_loss": l1_loss, "smooth_l1_loss": smooth_l1_loss, "huber_loss": huber_loss,
    "soft_margin_loss": soft_margin_loss, "binary_cross_entropy": binary_cross_entropy,
    "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits, "nll_loss": nll_loss,
    "cross_entropy": cross_entropy, "multi_margin_loss": multi_margin_loss, "kl_div": kl_div,
    "poisson_nll_loss": poisson_nll_loss, "gaussian_nll_loss": gaussian_nll_loss,
    "cosine_embedding_loss": cosine_embedding_loss, "margin_ranking_loss": margin_ranking_loss,
    "hinge_embedding_loss": hinge_embedding_loss, "triplet_margin_loss": triplet_margin_loss,
    "multilabel_soft_margin_loss": multilabel_soft_margin_loss,
}
