"""renorm: rescale each slice along a dim whose p-norm exceeds maxnorm down to maxnorm
(maxnorm / (norm + 1e-7), as PyTorch); one node, so renorm_ keeps what backward needs."""
from ..autograd.graph import Node, apply_op, recording
from ._core.dispatch import norm_dim
from ._core.elementwise import inplace_method
from .norms import vector_norm


def _norms(x, p, others):
    return vector_norm(x, p, dim=others, keepdim=True) if others else x.abs()


class RenormBackward0(Node):
    _operands = (0,)

    @staticmethod
    def forward(ctx, x, p, others, maxnorm):
        norms = _norms(x, p, others)
        factor = (maxnorm / (norms + 1e-7)).where(norms > maxnorm, 1.0)
        if recording(ctx):
            ctx.save_for_backward(x)
            ctx.args = (p, others, maxnorm)
        return x * factor

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        p, others, maxnorm = ctx.args
        norms = _norms(x, p, others)
        over = norms > maxnorm
        factor = (maxnorm / (norms + 1e-7)).where(over, 1.0)
        # d norm / dx = sign(x) |x|^(p-1) / norm^(p-1); the factor's slope is -maxnorm / (norm + 1e-7)^2
        slope = (maxnorm / ((norms + 1e-7) * (norms + 1e-7))).where(over, 0.0)
        dnorm = x.sign() * x.abs().pow(p - 1) / norms.pow(p - 1)
        gx = (g * x).sum(others, keepdim=True) if others else g * x
        return (g * factor - slope * gx * dnorm,)


def renorm(input, p, dim, maxnorm, *, out=None):
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = norm_dim(dim, input.dim())
    others = tuple(i for i in range(input.dim()) if i != d)
    r = apply_op(RenormBackward0, input, p, others, maxnorm)
    return r if out is None else out.copy_(r)


FUNCTIONS = {"renorm": renorm}
METHODS = {"renorm": renorm, "renorm_": inplace_method(renorm)}
