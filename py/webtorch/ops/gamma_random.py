"""Gamma and Dirichlet sampling (torch._standard_gamma, torch._sample_dirichlet) with Tensor ops, so every
backend runs it without a per-element host loop.

Marsaglia and Tsang's method: for alpha >= 1, d = alpha - 1/3, c = 1 / sqrt(9 d), a normal x and a uniform u give
the draw d (1 + c x)^3, accepted when u < 1 - 0.0331 x^4 (the squeeze) or log u < x^2 / 2 + d (1 - v + log v)
(v = (1 + c x)^3 > 0); alpha < 1 draws with alpha + 1 times u'^(1 / alpha). The acceptance rate is at least
~95% (alpha + 1 >= 1), so ``_ROUNDS`` candidate pairs per element are drawn at once and the first accepted one is
kept (a chain of ``where`` from the last round to the first). Elements rejected every round (probability
< 1e-5 each) are redrawn by the same procedure on just those elements: one ``.all()`` check per call (a host
read), plus one per (rare) further pass.
"""
from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from .gamma_reparam import _standard_gamma_grad, work_dtype
from .._dtype import scalar_type_name
from .where_clamp import where
from ..ops.creation import rand, randn

_ROUNDS = 4


def _marsaglia_tsang(alpha, generator):
    """Draws for concentrations alpha >= 1 (any shape), with the mask of those accepted."""
    shape = (_ROUNDS,) + tuple(alpha.shape)
    opts = dict(dtype=alpha.dtype, device=alpha.device, generator=generator)
    x = randn(shape, **opts)
    u = 1 - rand(shape, **opts)  # (0, 1]: log u is finite
    d = alpha - 1.0 / 3.0
    c = (9 * d).rsqrt()
    y = 1 + c * x
    v = y * y * y
    xx = x * x
    ok = (y > 0).logical_and((u < 1 - 0.0331 * xx * xx).logical_or(u.log() < 0.5 * xx + d * (1 - v + v.log())))
    draws = d * v
    value, accepted = draws[_ROUNDS - 1], ok[_ROUNDS - 1]
    for r in range(_ROUNDS - 2, -1, -1):
        value = where(ok[r], draws[r], value)
        accepted = accepted.logical_or(ok[r])
    return value, accepted


def _accepted_draws(alpha, generator):
    value, done = _marsaglia_tsang(alpha, generator)
    # an invalid concentration (NaN, below 1 after the boost, inf) never accepts: its draw is a NaN or inf
    done = done.logical_or((alpha >= 1).logical_not()).logical_or(alpha.isinf())
    if not bool(done.all().item()):
        todo = done.logical_not()
        value[todo] = _accepted_draws(alpha[todo], generator)
    return value


def sample_standard_gamma(alpha, generator=None, dtype=None):
    """Standard gamma draws of concentrations alpha, in ``dtype`` (default work_dtype(alpha)); NaN where alpha
    is not a valid concentration (the callers clamp)."""
    alpha = alpha.detach().to(dtype or work_dtype(alpha))
    boost = alpha < 1
    a = where(boost, alpha + 1, alpha)
    value = _accepted_draws(a, generator)
    u = 1 - rand(tuple(alpha.shape), dtype=alpha.dtype, device=alpha.device, generator=generator)
    value = where(boost, value * u.pow(alpha.reciprocal()), value)
    return where(alpha >= 0, value, float("nan"))


def _clamp_tiny(value, dtype):
    """PyTorch's max(tiny, draw): NaN (an invalid concentration) and underflow both give the smallest normal."""
    tiny = D.finfo(dtype).tiny
    value = value.to(dtype)
    return where(value.isnan(), tiny, value).clamp(min=tiny)


class StandardGammaBackward0(Node):
    _operands = (0,)

    @staticmethod
    def forward(ctx, alpha, generator):
        if not alpha.dtype.is_floating_point:
            raise NotImplementedError(f"\"gamma_cpu\" not implemented for '{scalar_type_name(alpha.dtype)}'")
        out = _clamp_tiny(sample_standard_gamma(alpha, generator), alpha.dtype)
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, g):
        alpha, out = ctx.saved_tensors
        return g * _standard_gamma_grad(alpha, out)


def _standard_gamma(self, generator=None):
    """Gamma(self, 1) draws, differentiable in self (implicit reparameterization: _standard_gamma_grad)."""
    return apply_op(StandardGammaBackward0, self, generator)


def _sample_dirichlet(self, generator=None):
    """Dirichlet draws of concentrations ``self`` (the last dim): gamma draws normalised along it. No gradient
    (distributions.Dirichlet.rsample gives one through _dirichlet_grad)."""
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"dirichlet\" not implemented for '{scalar_type_name(self.dtype)}'")
    dt = work_dtype(self)
    g = sample_standard_gamma(self, generator, dt)
    tiny = D.finfo(dt).tiny
    g = where(g.isnan(), tiny, g).clamp(min=tiny)
    x = g / g.sum(-1, keepdim=True)
    return _clamp_tiny(x, self.dtype).clamp(max=1.0)


FUNCTIONS = {"_standard_gamma": _standard_gamma, "_sample_dirichlet": _sample_dirichlet}
METHODS = {}
