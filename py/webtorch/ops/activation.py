"""Activation functions (torch.nn.functional forms, plus torch./Tensor names where PyTorch has them).

Each activation is a Node named like PyTorch's; forward and backward are composed of elementwise Tensor
ops (so the webgpu planner fuses them, and double backward works). In-place forms compute out of
place and ``commit``; they keep a private copy of the input because commit overwrites it.
"""
import math

from .._dtype import scalar_type_name
from ..autograd.graph import Node, apply_op, recording
from ..autograd.grad_mode import state
from ._core.dispatch import norm_dim
from ._core.inplace import not_implemented_for, require_float, commit, overlaps_itself, write_sequentially
from .unary_math import sigmoid, tanh, erf
from .where_clamp import where, clamp

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _unary_node(name, fwd, bwd, result_bwd=None):
    """Node ``name`` for y = fwd(x, *params), dx = bwd(g, x, *params); in place, dx = result_bwd(g, y, *params)
    when given (PyTorch's in-place derivative from the result: it differs where a view's shared elements were
    written more than once)."""
    def forward(ctx, x, params, inplace):
        y = fwd(x, *params)
        if recording(ctx):
            if inplace and result_bwd is not None:
                ctx.save_for_backward(y)
                ctx.from_result = True
            elif inplace:
                ctx.x = x.clone()
            else:
                ctx.save_for_backward(x)
            ctx.params = params
        return y

    def backward(ctx, g):
        if "from_result" in ctx.__dict__:
            return result_bwd(g, ctx.saved_tensors[0], *ctx.params)
        x = ctx.x if "x" in ctx.__dict__ else ctx.saved_tensors[0]
        return bwd(g, x, *ctx.params)

    return type(name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def _run(node, input, params, inplace):
    if inplace:
        if input._base is not None and overlaps_itself(input):
            return write_sequentially(lambda piece: _run(node, piece, params, True), input, (), {})
        return commit(input, apply_op(node, input, params, True))
    return apply_op(node, input, params, False)


# ---- piecewise-linear family --------------------------------------------------------------------------

def _hardtanh_bwd(g, x, lo, hi):
    return g * ((x > lo) & (x < hi))


# clamp with float bounds would promote an integer x to float; hardtanh keeps x's dtype, as PyTorch's
HardtanhBackward0 = _unary_node("HardtanhBackward0", lambda x, lo, hi: clamp(x, lo, hi).to(x.dtype), _hardtanh_bwd)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype.name == "bool":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input.dtype.name == "uint8" and (int(min_val) < 0 or int(max_val) < 0):   # limits cast to int64, as ATen
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return _run(HardtanhBackward0, input, (min_val, max_val), inplace)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


LeakyReluBackward0 = _unary_node("LeakyReluBackward0", lambda x, s: where(x > 0, x, x * s),
                                 lambda g, x, s: where(x > 0, g, g * s))


def leaky_relu(input, negative_slope=0.01, inplace=False):
    require_float(input, "leaky_relu_cpu")
    return _run(LeakyReluBackward0, input, (negative_slope,), inplace)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


# "value where x <= threshold, else x": a NaN passes through, as in PyTorch
ThresholdBackward0 = _unary_node("ThresholdBackward0", lambda x, th, v: where(x <= th, v, x),
                                 lambda g, x, th, v: where(x <= th, 0.0, g))


def threshold(input, threshold, value, inplace=False):
    if input.dtype.name == "bool":
        raise not_implemented_for("threshold_cpu", input.dtype)
    return _run(ThresholdBackward0, input, (threshold, value), inplace)


def threshold_(input, threshold, value):
    return _threshold(input, threshold, value, True)


_threshold = threshold  # the parameter named ``threshold`` (PyTorch's name) hides the function in threshold_


# written as "0 where |x| <= lambda, else x" (not "x where |x| > lambda") so a NaN passes through, as in PyTorch
HardshrinkBackward0 = _unary_node("HardshrinkBackward0", lambda x, l: where(x.abs() <= l, 0.0, x),
                                  lambda g, x, l: g * (x.abs() > l))


def hardshrink(input, lambd=0.5):
    require_float(input, "hardshrink_cpu")
    return apply_op(HardshrinkBackward0, input, (lambd,), False)


SoftshrinkBackward0 = _unary_node(
    "SoftshrinkBackward0", lambda x, l: where(x > l, x - l, where(x < -l, x + l, where(x.abs() <= l, 0.0, x))),
    lambda g, x, l: g * (x.abs() > l))


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, 3.40282e+38] for input dtype Float, but found {lambd:g}")
    require_float(input, "softshrink_check")
    return apply_op(SoftshrinkBackward0, input, (lambd,), False)


HardsigmoidBackward0 = _unary_node("HardsigmoidBackward0", lambda x: clamp(x + 3.0, 0.0, 6.0) / 6.0,
                                   lambda g, x: g * ((x > -3.0) & (x < 3.0)) / 6.0)


def hardsigmoid(input, inplace=False):
    require_float(input, "hardsigmoid_cpu")
    return _run(HardsigmoidBackward0, input, (), inplace)


HardswishBackward0 = _unary_node(
    "HardswishBackward0", lambda x: x * clamp(x + 3.0, 0.0, 6.0) / 6.0,
    lambda g, x: where(x < -3.0, 0.0, where(x <= 3.0, g * (x / 3.0 + 0.5), g)))


def hardswish(input, inplace=False):
    require_float(input, "hardswish_cpu")
    return _run(HardswishBackward0, input, (), inplace)


# ---- exponential family ---------------------------------------------------------------------------------

def _elu_fwd(x, alpha, scale, input_scale):
    return where(x > 0, x * scale, ((x * input_scale).exp() - 1.0) * (alpha * scale))


def _elu_bwd(g, x, alpha, scale, input_scale):
    return where(x > 0, g * scale, g * (x * input_scale).exp() * (alpha * scale * input_scale))


def _elu_bwd_result(g, y, alpha, scale, input_scale):
    return where(y > 0, g * scale, g * (y + alpha * scale) * input_scale)


EluBackward0 = _unary_node("EluBackward0", _elu_fwd, _elu_bwd, _elu_bwd_result)
CeluBackward0 = _unary_node("CeluBackward0", _elu_fwd, _elu_bwd, _elu_bwd_result)


def elu(input, alpha=1.0, inplace=False):
    require_float(input, "elu_cpu")
    return _run(EluBackward0, input, (alpha, 1.0, 1.0), inplace)


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


def selu(input, inplace=False):
    require_float(input, "elu_cpu")
    return _run(EluBackward0, input, (_SELU_ALPHA, _SELU_SCALE, 1.0), inplace)


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    require_float(input, "elu_cpu")
    return _run(CeluBackward0, input, (alpha, 1.0, 1.0 / alpha), inplace)


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def _softplus(x, beta, threshold):
    xb = x * beta if beta != 1 else x
    return where(xb > threshold, x, xb.exp().log1p() / beta if beta != 1 else xb.exp().log1p())


SoftplusBackward0 = _unary_node(
    "SoftplusBackward0", _softplus,
    lambda g, x, beta, threshold: where(x * beta > threshold, g, g * sigmoid(x * beta)))


def softplus(input, beta=1.0, threshold=20.0):
    require_float(input, "softplus_cpu")
    return apply_op(SoftplusBackward0, input, (beta, threshold), False)


def _gelu_fwd(x, approximate):
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        return x * 0.5 * (1.0 + tanh((x + x * x * x * 0.044715) * k))
    return x * 0.5 * (1.0 + erf(x * _SQRT1_2))


def _gelu_bwd(g, x, approximate):
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        x2 = x * x
        t = tanh((x + x2 * x * 0.044715) * k)
        return g * (0.5 * (1.0 + t) + x * 0.5 * (1.0 - t * t) * k * (1.0 + x2 * (3 * 0.044715)))
    cdf = 0.5 * (1.0 + erf(x * _SQRT1_2))
    pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
    return g * (cdf + x * pdf)


GeluBackward0 = _unary_node("GeluBackward0", _gelu_fwd, _gelu_bwd)


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    require_float(input, "GeluKernelImpl")
    return apply_op(GeluBackward0, input, (approximate,), False)


def _silu_bwd(g, x):
    s = sigmoid(x)
    return g * s * (1.0 + x * (1.0 - s))


SiluBackward0 = _unary_node("SiluBackward0", lambda x: x * sigmoid(x), _silu_bwd)


def silu(input, inplace=False):
    require_float(input, "silu_cpu")
    return _run(SiluBackward0, input, (), inplace)


def _mish_bwd(g, x):
    t = tanh(_softplus(x, 1.0, 20.0))
    return g * (t + x * sigmoid(x) * (1.0 - t * t))


MishBackward0 = _unary_node("MishBackward0", lambda x: x * tanh(_softplus(x, 1.0, 20.0)), _mish_bwd)


def mish(input, inplace=False):
    require_float(input, "mish_cpu")
    return _run(MishBackward0, input, (), inplace)


LogSigmoidBackward0 = _unary_node("LogSigmoidBackward0",
                                  lambda x: clamp(x, None, 0.0) - (-x.abs()).exp().log1p(),
                                  lambda g, x: g * sigmoid(-x))


def logsigmoid(input):
    require_float(input, "log_sigmoid_forward")
    return apply_op(LogSigmoidBackward0, input, (), False)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


# ---- randomized leaky ReLU -------------------------------------------------------------------------------

class RreluWithNoiseBackward0(Node):
    @staticmethod
    def forward(ctx, x, noise):
        y = x * noise
        if recording(ctx):
            ctx.noise = noise
        return y

    @staticmethod
    def backward(ctx, g):
        return g * ctx.noise, None


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Training: slope ~ U(lower, upper) per negative element (default Generator); eval: (lower+upper)/2."""
    require_float(input, "rrelu_with_noise_cpu")
    if training:
        from .creation import rng_for
        from ._core.dispatch import wrap
        u = wrap(input._be.uniform(tuple(input.shape), float(lower), float(upper), input.dtype,
                                   rng_for(None, input._device)), input, input.shape)
        noise = where(input > 0, 1.0, u)
    else:
        noise = where(input > 0, 1.0, (lower + upper) / 2)
    noise = noise.detach()
    if inplace:
        return commit(input, apply_op(RreluWithNoiseBackward0, input, noise))
    return apply_op(RreluWithNoiseBackward0, input, noise)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


# ---- parametric ----------------------------------------------------------------------------------------

class PreluKernelBackward0(Node):
    @staticmethod
    def forward(ctx, x, weight):
        wb = weight.reshape(_channel_shape(x, weight))
        ctx.save_for_backward(x, weight)
        return where(x > 0, x, x * wb)

    @staticmethod
    def backward(ctx, g):
        x, weight = ctx.saved_tensors
        wb = weight.reshape(_channel_shape(x, weight))
        gx = where(x > 0, g, g * wb) if ctx.needs_input_grad[0] else None
        gw = None
        if ctx.needs_input_grad[1]:
            gxw = where(x > 0, 0.0, g * x)
            dims = tuple(d for d in range(x.dim()) if not (d == 1 and weight.numel() != 1))
            gw = gxw.sum(dims).reshape(weight.shape) if dims else gxw.reshape(weight.shape)
        return gx, gw


def _channel_shape(x, weight):
    if weight.numel() == 1 or x.dim() < 2:
        return (1,) * x.dim() if x.dim() else ()
    return (1, weight.numel()) + (1,) * (x.dim() - 2)


def prelu(input, weight):
    if input.dim() == 0 and weight.numel() != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {scalar_type_name(input.dtype)} and "
                           f"{scalar_type_name(weight.dtype)} (give the weight the input's dtype)")
    require_float(input, "prelu_cpu")
    return apply_op(PreluKernelBackward0, input, weight)


# ---- gated linear unit -----------------------------------------------------------------------------------

def _halves(x, dim):
    """(first, second) halves of x along dim, as views of a (..., 2, n/2, ...) reshape."""
    shape = tuple(x.shape)
    split = shape[:dim] + (2, shape[dim] // 2) + shape[dim + 1:]
    r = x.reshape(split)
    from ._core.dispatch import wrap_view
    lead = (slice(None),) * dim
    tail = (slice(None),) * (len(split) - dim - 1)
    be = r._be
    return wrap_view(be.slice(r._data, lead + (0,) + tail), r), wrap_view(be.slice(r._data, lead + (1,) + tail), r)


class GluBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim):
        a, b = _halves(x, dim)
        sb = sigmoid(b)
        if recording(ctx):
            ctx.save_for_backward(x)
            ctx.dim = dim
        return a * sb

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        dim = ctx.dim
        # broadcasting selector [1, 0] over the split axis: interleaves the halves without a concatenation
        sel = x.new_tensor([1.0, 0.0]).reshape((2,) + (1,) * (x.dim() - dim))
        if state.enabled:  # create_graph: halves taken differentiably
            xr = x.reshape(x.shape[:dim] + (2, x.shape[dim] // 2) + x.shape[dim + 1:])
            a, b = (xr * sel).sum(dim), (xr * (1.0 - sel)).sum(dim)
        else:
            a, b = _halves(x, dim)
        sb = sigmoid(b)
        ga, gb = g * sb, g * a * sb * (1.0 - sb)
        gx = ga.unsqueeze(dim) * sel + gb.unsqueeze(dim) * (1.0 - sel)
        return gx.reshape(x.shape)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = norm_dim(dim, input.dim())
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    require_float(input, "glu_cpu")
    return apply_op(GluBackward0, input, d)


FUNCTIONS = {
    "selu": selu, "selu_": selu_, "celu": celu, "celu_": celu_, "threshold": threshold, "threshold_": threshold_,
    "prelu": prelu, "rrelu": rrelu, "rrelu_": rrelu_, "hardshrink": hardshrink,
}
METHODS = {"prelu": prelu, "hardshrink": hardshrink}

# the F namespace (nn/functional.py re-exports these)
FUNCTIONAL = {
    "hardtanh": hardtanh, "hardtanh_": hardtanh_, "relu6": relu6, "leaky_relu": leaky_relu,
    "leaky_relu_": leaky_relu_, "threshold": threshold, "threshold_": threshold_, "hardshrink": hardshrink,
    "softshrink": softshrink, "hardsigmoid": hardsigmoid, "hardswish": hardswish, "elu": elu, "elu_": elu_,
    "selu": selu, "selu_": selu_, "celu": celu, "celu_": celu_, "softplus": softplus, "gelu": gelu,
    "silu": silu, "mish": mish, "logsigmoid": logsigmoid, "softsign": softsign, "tanhshrink": tanhshrink,
    "rrelu": rrelu, "rrelu_": rrelu_, "prelu": prelu, "glu": glu, "sigmoid": sigmoid, "tanh": tanh,
}
