"""softmax, log_softmax, softmin: fused backend primitives whose backward reads the saved output."""
import warnings

from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from ..autograd.grad_mode import state
from ._core.dispatch import norm_dim, wrap
from .._dtype import scalar_type_name


def _softmax_node(log):
    def forward(ctx, x, dim, dtype):
        y = wrap(x._be.softmax(x._data, dim, log, dtype), x, x.shape)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        if state.enabled:  # create_graph: the composite form is differentiable again
            if log:
                return g - y.exp() * g.sum(ctx.dim, keepdim=True)
            gy = g * y
            return gy - y * gy.sum(ctx.dim, keepdim=True)
        return wrap(y._be.softmax_backward(g._data, y._data, ctx.dim, log, y.dtype), y, y.shape)

    name = "LogSoftmaxBackward0" if log else "SoftmaxBackward0"
    return type(name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


SoftmaxBackward0 = _softmax_node(False)
LogSoftmaxBackward0 = _softmax_node(True)


def _run(node, input, dim, dtype, name):
    dt = D.to_dtype(dtype) if dtype is not None else input.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{name}_lastdim_kernel_impl\" not implemented for '{scalar_type_name(dt)}'")
    if input.dim() == 0:
        norm_dim(dim, 0)
        return apply_op(node, input.reshape(1), 0, dt).reshape(())
    return apply_op(node, input, norm_dim(dim, input.dim()), dt)


def softmax(input, dim, dtype=None):
    """torch.softmax / Tensor.softmax: exp(x) / sum(exp(x)) along dim (dim is required)."""
    return _run(SoftmaxBackward0, input, dim, dtype, "softmax")


def log_softmax(input, dim, dtype=None):
    """torch.log_softmax / Tensor.log_softmax: x - logsumexp(x) along dim, computed stably."""
    return _run(LogSoftmaxBackward0, input, dim, dtype, "log_softmax")


def get_softmax_dim(name, ndim, stacklevel):
    """PyTorch's legacy implicit dim (F.softmax(x) without dim): 0 for 0-, 1- and 3-D input, else 1."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def f_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """F.softmax: dim may be omitted (deprecated, with PyTorch's warning and choice of dim)."""
    if dim is None:
        dim = get_softmax_dim("softmax", input.dim(), _stacklevel)
    return softmax(input, dim, dtype)


def f_log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return log_softmax(input, dim, dtype)


def f_softmin(input, dim=None, _stacklevel=3, dtype=None):
    """F.softmin: softmax of -input."""
    if dim is None:
        dim = get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(D.to_dtype(dtype))
    return softmax(-input, dim)


FUNCTIONS = {"softmax": softmax, "log_softmax": log_softmax}
METHODS = dict(FUNCTIONS)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """F.gumbel_softmax: softmax((logits + Gumbel noise) / tau) along dim; ``hard`` returns the one-hot argmax in
    the forward pass with the soft sample's gradient (straight-through). ``eps`` is unused, as in PyTorch."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    gumbels = -logits.new_empty(tuple(logits.shape)).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = logits.new_zeros(tuple(logits.shape)).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
