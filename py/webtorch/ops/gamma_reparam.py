"""Implicit reparameterization gradients of gamma and beta draws (torch._standard_gamma_grad,
torch._dirichlet_grad): for a draw x of a distribution with CDF F(x; alpha), dx/dalpha = -(dF/dalpha) / pdf.
Neither has a closed form; as PyTorch, by region:

- standard gamma: the power series of the lower incomplete gamma function for x < 0.8 (six terms,
  differentiated in alpha term by term); for alpha > 8 Rice's saddle-point expansion (its Taylor expansion
  at x = alpha inside [0.9, 1.1] alpha, where the saddle point is singular); otherwise a bivariate rational
  function of log(x / alpha), log(alpha) fitted by PyTorch (its published coefficients);
- beta (x, alpha, total = alpha + beta): the power series of the incomplete beta function near x = 0 and
  near x = 1, Rice's saddle point where alpha and beta both exceed 6, otherwise PyTorch's fitted rational
  correction to x (psi(total) - psi(alpha)) / beta.

Every branch runs on every element and ``where`` picks (no host round trip). On cpu the formulas run in float64
(as PyTorch's double accumulation there), elsewhere in the input's dtype.
"""
import struct

from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from .special_math import _digamma_fwd, _poly
from .where_clamp import where


def _f32(v):
    """v rounded to float32: PyTorch's region tests compare in double against float literals."""
    return struct.unpack("f", struct.pack("f", v))[0]


_X_SMALL, _A_LARGE, _LO, _HI = _f32(0.8), 8.0, _f32(0.9), _f32(1.1)

# exp(p(v) / q(v)), v = log(alpha), with p and q's coefficients quadratic in u = log(x / alpha); rows: u^0, u^1,
# u^2; columns: p's v^0..v^3 then q's v^0..v^3
_GAMMA_RATIONAL = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07),
)

# [p or q][power of log x][power of log(alpha / x)] -> coefficients in b = log(total / (alpha / x)), ascending
_BETA_RATIONAL = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)


def work_dtype(t):
    """float64 on cpu (PyTorch accumulates these in double there); the tensor's own float dtype elsewhere."""
    return D.float64 if t.device.type == "cpu" else t.dtype


def _nan_to_zero(r):
    return where(r.isnan(), 0.0, r)


# ---- standard gamma ------------------------------------------------------------------------------------

def _gamma_grad_series(alpha, x, dt):
    """-(dP(alpha, x)/dalpha) / pdf from P = x^alpha sum_k (-x)^k / (k! (alpha + k)) (and its alpha derivative)."""
    term, denom = 1.0, alpha
    s1, s2 = alpha.reciprocal(), (alpha * alpha).reciprocal()
    for k in range(1, 6):
        term = term * x * (-1.0 / k)
        denom = denom + 1
        s1 = s1 + term / denom
        s2 = s2 + term / (denom * denom)
    x_a = x.pow(alpha)
    pdf = x.pow(alpha - 1) * (-x).exp()
    cdf_alpha = (x.log() - _digamma_fwd(alpha, dt)) * x_a * s1 - x_a * s2
    return _nan_to_zero(-cdf_alpha / pdf)


def _gamma_grad_saddle(alpha, x):
    near = (x >= _LO * alpha).logical_and(x <= _HI * alpha)
    a2 = alpha * alpha
    # the expansion's Taylor polynomial at x = alpha (its terms are singular there)
    num1 = 1 + 24 * alpha * (1 + 12 * alpha)
    num2 = 1440 * a2 + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
    centre = num1 * num2 / (1244160 * a2 * a2)
    root = (8 * alpha).sqrt()
    log_ratio = (x / alpha).log()
    t2 = root / (alpha - x)
    t3 = (x - alpha - alpha * log_ratio).pow(-1.5)
    t23 = where(x < alpha, t2 - t3, t2 + t3)
    t1 = log_ratio * t23 - (2 / alpha).sqrt() * (alpha + x) / ((alpha - x) * (alpha - x))
    stirling = 1 + (12 * alpha).reciprocal() * (1 + (24 * alpha).reciprocal())
    return where(near, centre, -stirling * x * t1 / root)


def _gamma_grad_rational(alpha, x):
    u, v = (x / alpha).log(), alpha.log()
    coef = [_poly(u, [row[i] for row in _GAMMA_RATIONAL]) for i in range(8)]
    return (_poly(v, coef[:4]) / _poly(v, coef[4:])).exp()


def standard_gamma_grad_values(alpha, x):
    """dx/dalpha for standard gamma draws x of concentration alpha (Tensors of one shape), in work_dtype."""
    dt = work_dtype(alpha)
    alpha, x = alpha.to(dt), x.to(dt)
    r = where(alpha > _A_LARGE, _gamma_grad_saddle(alpha, x), _gamma_grad_rational(alpha, x))
    return where(x < _X_SMALL, _gamma_grad_series(alpha, x, dt), r)


# ---- beta / Dirichlet ------------------------------------------------------------------------------------

def _beta_grad_alpha_small(x, alpha, beta, dt):
    """x close to 0: the series of I_x(alpha, beta) = x^alpha (1-x)^beta / (alpha B) * sum(...), in alpha."""
    factor = _digamma_fwd(alpha, dt) - _digamma_fwd(alpha + beta, dt) - x.log()
    numer = 1.0
    series = alpha.reciprocal() * (factor + alpha.reciprocal())
    for i in range(1, 11):
        numer = numer * (i - beta) * x / i
        denom = alpha + i
        series = series + numer / denom * (factor + denom.reciprocal())
    return _nan_to_zero(x * (1 - x).pow(-beta) * series)


def _beta_grad_beta_small(x, alpha, beta, dt):
    """x close to 0: the same series differentiated in beta (used mirrored, for draws close to 1)."""
    factor = _digamma_fwd(alpha + beta, dt) - _digamma_fwd(beta, dt)
    numer, betas, dbetas = 1.0, 1.0, 0.0
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    return _nan_to_zero(-(1 - x).pow(1 - beta) * series)


def _beta_grad_alpha_mid(x, alpha, beta):
    """alpha, beta > 6: Rice's saddle point, with its Taylor polynomial within 0.1 sd of the mean."""
    total = alpha + beta
    mean = alpha / total
    std = (alpha * beta / (total + 1)).sqrt() / total
    near = (x >= mean - 0.1 * std).logical_and(x <= mean + 0.1 * std)
    b2 = beta * beta
    poly = 47 * x * b2 * b2 + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * b2 * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * b2 + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    pre_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    pre_den = 12960 * alpha * alpha * alpha * b2 * (1 + 12 * total)
    centre = pre_num / (1 - x) * poly / pre_den

    def stirling(z):
        return 1 + (12 * z).reciprocal() + (288 * z * z).reciprocal()
    prefactor = -x / (2 * alpha * beta / total).sqrt()
    axbx = alpha * (x - 1) + beta * x
    t1 = (2 * alpha * alpha * (x - 1) + alpha * beta * (x - 1) - x * b2) / (
        (2 * alpha / beta).sqrt() * total.pow(1.5) * axbx * axbx)
    t2 = 0.5 * (alpha / (total * x)).log()
    t3 = (8 * alpha * beta / total).sqrt() / axbx
    t4 = (beta * (beta / (total * (1 - x))).log() + alpha * (alpha / (total * x)).log()).pow(-1.5)
    far = stirling(alpha) * stirling(beta) / stirling(total) * prefactor * (t1 + t2 * (t3 + where(x < mean, t4, -t4)))
    return where(near, centre, far)


def _beta_grad_rational(x, alpha, total, dt):
    u = x.log()
    a = alpha.log() - u
    b = total.log() - a
    pow_u, pow_a = (1.0, u, u * u), (1.0, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            p = p + ua * _poly(b, _BETA_RATIONAL[0][i][j])
            q = q + ua * _poly(b, _BETA_RATIONAL[1][i][j])
    approx = x * (_digamma_fwd(total, dt) - _digamma_fwd(alpha, dt)) / (total - alpha)
    return p / q * approx


def dirichlet_grad_values(x, alpha, total):
    """-(dI_x(alpha, total - alpha)/dalpha) / pdf / (1 - x) for Beta(alpha, total - alpha) draws x."""
    dt = work_dtype(x)
    x, alpha, total = x.to(dt), alpha.to(dt), total.to(dt)
    beta = total - alpha
    boundary = total * x * (1 - x)
    r = where((alpha > 6).logical_and(beta > 6), _beta_grad_alpha_mid(x, alpha, beta),
              _beta_grad_rational(x, alpha, total, dt))
    r = where((x >= 0.5).logical_and(boundary < 0.75), -_beta_grad_beta_small(1 - x, beta, alpha, dt), r)
    return where((x <= 0.5).logical_and(boundary < 2.5), _beta_grad_alpha_small(x, alpha, beta, dt), r)


# ---- the ops ---------------------------------------------------------------------------------------------

def _broadcast_float(*ts):
    from .shape import broadcast_tensors
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = D.promote_types(dt, t.dtype)
    return [t.to(dt) for t in broadcast_tensors(*ts)], dt


class StandardGammaGradBackward0(Node):
    _operands = (0, 1)

    @staticmethod
    def forward(ctx, alpha, x):
        (alpha, x), dt = _broadcast_float(alpha, x)
        return standard_gamma_grad_values(alpha, x).to(dt)

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


class DirichletGradBackward0(Node):
    _operands = (0, 1, 2)

    @staticmethod
    def forward(ctx, x, alpha, total):
        (x, alpha, total), dt = _broadcast_float(x, alpha, total)
        return dirichlet_grad_values(x, alpha, total).to(dt)

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("the derivative for '_dirichlet_grad' is not implemented.")


def _standard_gamma_grad(self, output):
    """dx/dalpha of standard gamma draws ``output`` of concentration ``self`` (torch._standard_gamma_grad)."""
    return apply_op(StandardGammaGradBackward0, self, output)


def _dirichlet_grad(x, alpha, total):
    """The reparameterized gradient of Beta(alpha, total - alpha) draws x in alpha, divided by 1 - x
    (torch._dirichlet_grad: the Dirichlet backward is built on it)."""
    return apply_op(DirichletGradBackward0, x, alpha, total)


FUNCTIONS = {"_standard_gamma_grad": _standard_gamma_grad, "_dirichlet_grad": _dirichlet_grad}
METHODS = {}
