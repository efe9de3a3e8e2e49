"""Special functions built from elementwise Tensor ops (so every backend runs them, fused on webgpu): the gamma
family (lgamma, digamma, polygamma, mvlgamma, Hurwitz zeta), modified Bessel I0/I1 (plain and exponentially
scaled), the normal distribution (ndtr, log_ndtr, ndtri), entr and xlog1py.

Approximations, all derived here from the math (series coefficients are computed in Python, none is a table):
- lgamma/digamma: Stirling/asymptotic series at z >= 10 after shifting x up by the recurrence, reflection for
  x < 0 (|sin|/cot evaluated on x - round(x) so large arguments stay exact);
- zeta: Euler-Maclaurin summation (12 direct terms, 8 Bernoulli corrections); polygamma(n >= 1) is
  (-1)^(n+1) n! zeta(n+1, x), with the reflection formula (n-th derivative of cot, a polynomial in cot) for x < 0;
- I0/I1: the power series in (x/2)^2 (nested ratio form: no underflowing coefficients) for |x| <= 15, the
  Hankel asymptotic expansion beyond;
- log_ndtr: log(erfc) where erfc is representable, the asymptotic series of Mills' ratio in the far left tail;
- ndtri: the Abramowitz-Stegun 26.2.23 starting guess refined by three Newton steps on log_ndtr (quadratic
  convergence from 4.5e-4: exact to float64 rounding).
"""
import math

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.graph import apply_op
from ._core.dispatch import float_result
from ._core.elementwise import write_out, make_binary, binary_fn, inplace_method
from .unary_math import UNARY, _make_unary_composite
from .where_clamp import where

_INF, _NAN = math.inf, math.nan
_LOG_PI = math.log(math.pi)
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_SQRT2 = math.sqrt(2.0)
# Bernoulli numbers B2, B4, ..., B16
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_ZETA_TERMS = 12  # zeta: direct terms before the Euler-Maclaurin tail
_SHIFT = 10  # digamma: below this, x is shifted up by the recurrence before the asymptotic series


def _as(x, dt):
    return x if x.dtype is dt else x.to(dt)


def _poly(z, coeffs):
    """sum(coeffs[k] * z**k) by Horner."""
    r = z * coeffs[-1] + coeffs[-2]
    for c in reversed(coeffs[:-2]):
        r = r * z + c
    return r


# ---- lgamma / digamma --------------------------------------------------------------------------------

# Stirling series of lgamma: B_2k / (2k (2k-1) z^(2k-1)), as a polynomial in 1/z^2 times 1/z
_STIRLING = tuple(b / ((2 * k + 2) * (2 * k + 1)) for k, b in enumerate(_BERNOULLI))
# asymptotic series of digamma: -B_2k / (2k z^2k), as a polynomial in 1/z^2 times 1/z^2
_PSI_ASYM = tuple(-b / (2 * k + 2) for k, b in enumerate(_BERNOULLI))


def _shifted(x):
    """(z, small): z = x + _SHIFT where x < _SHIFT (so the asymptotic series converges to full precision)."""
    small = x < _SHIFT
    return where(small, x + _SHIFT, x), small


def _zeta_int(k):
    """Riemann zeta(k) for an integer k >= 2, in Python floats (Euler-Maclaurin as _zeta_core)."""
    a = float(_ZETA_TERMS + 1)
    r = sum(n ** -k for n in range(1, _ZETA_TERMS + 1)) + a ** (1 - k) / (k - 1) + 0.5 * a ** -k
    fac = k * a ** (-k - 1)
    for j, b in enumerate(_BERNOULLI, start=1):
        r += b / math.factorial(2 * j) * fac
        fac *= (k + 2 * j - 1) * (k + 2 * j) / (a * a)
    return r


# lgamma(1 + z) = -gamma z + sum_k (-1)^k zeta(k) z^k / k (|z| < 1): no cancellation near the zeros at 1, 2
_EULER_GAMMA = 0.5772156649015329
_LGAMMA_TAYLOR = [0.0, -_EULER_GAMMA] + [(-1) ** k * _zeta_int(k) / k for k in range(2, 48)]


def _lgamma_pos(x):
    """lgamma for x >= 0 (other inputs give values the callers mask), as sums of terms of one sign:
    x < 0.5: lgamma(1 + x) - log(x); [0.5, 10): the recurrence down to [0.5, 2.5) (n <= 8 factors x - k) and the
    Taylor series at 1 or 2 there; >= 10: Stirling's series."""
    tiny = x < 0.5
    n = (x - 1.5).floor().clamp(0, 8)
    xr = where(x < 10, x - n, 2.0)
    prod = where(n >= 1, x - 1, 1.0)
    for k in range(2, 9):
        prod = prod * where(n >= k, x - k, 1.0)
    low = xr < 1.5
    z = where(tiny, x, where(low, xr - 1, xr - 2))
    taylor = _poly(z, _LGAMMA_TAYLOR)
    mid = where(low, taylor, taylor + UNARY["log1p"](z)) + prod.log()
    near = where(tiny, taylor - x.log(), mid)
    zs = where(x < 10, 10.0, x)
    zi = zs.reciprocal()
    stirling = (zs - 0.5) * zs.log() - zs + _HALF_LOG_2PI + zi * _poly(zi * zi, _STIRLING)
    return where(x < 10, near, stirling)


def _lgamma_fwd(x, dt):
    x = _as(x, dt)
    neg = x < 0
    pos = _lgamma_pos(where(neg, 1 - x, x))
    # |sin(pi x)| has period 1: evaluating it on x - round(x) keeps it exact for large |x|
    refl = _LOG_PI - (UNARY["sin"]((x - x.round()) * math.pi)).abs().log() - pos
    y = where(neg, refl, pos)
    pole = (neg.logical_and(x == x.floor())).logical_or(x.isinf())
    return where(pole, _INF, y)


def _digamma_pos(x):
    z, small = _shifted(x)
    acc = x.reciprocal()
    for k in range(1, _SHIFT):
        acc = acc + (x + k).reciprocal()
    zi2 = (z * z).reciprocal()
    y = z.log() - 0.5 * z.reciprocal() + zi2 * _poly(zi2, _PSI_ASYM)
    return where(small, y - acc, y)


def _pi_cot_pi(x):
    """pi * cot(pi x), periodic: evaluated on x - round(x)."""
    return math.pi / UNARY["tan"]((x - x.round()) * math.pi)


def _digamma_fwd(x, dt):
    x = _as(x, dt)
    neg = x < 0
    pos = _digamma_pos(where(neg, 1 - x, x))
    y = where(neg, pos - _pi_cot_pi(x), pos)
    y = where(neg.logical_and(x == x.floor()), _NAN, y)
    # digamma(+-0) = -+inf (PyTorch: copysign(inf, -x))
    return where(x == 0, where(x.signbit(), _INF, -_INF), y)


# ---- Hurwitz zeta and polygamma ------------------------------------------------------------------------


def _zeta_core(s, q):
    """Euler-Maclaurin sum of zeta(s, q) for s > 1, accurate where q + _ZETA_TERMS >= 9."""
    r = q.pow(-s) if isinstance(q, Tensor) else s.new_full((), q).pow(-s)
    for k in range(1, _ZETA_TERMS):
        r = r + (q + k).pow(-s)
    a = q + _ZETA_TERMS
    a_s = a.pow(-s)
    r = r + a * a_s / (s - 1) + 0.5 * a_s
    # term j: B_2j/(2j)! * s (s+1) ... (s+2j-2) * a^(-s-2j+1)
    fac = s * a_s / a
    inv_a2 = (a * a).reciprocal()
    for j, b in enumerate(_BERNOULLI, start=1):
        coeff = b / math.factorial(2 * j)
        r = r + coeff * fac
        fac = fac * (s + (2 * j - 1)) * (s + 2 * j) * inv_a2
    return r


def _zeta_fwd(x, q):
    dt = float_result(D.result_type(x, q))
    ref = x if isinstance(x, Tensor) else q
    s = _as(x, dt) if isinstance(x, Tensor) else ref.new_full((), x, dtype=dt)
    qq = _as(q, dt) if isinstance(q, Tensor) else q
    qt = qq if isinstance(qq, Tensor) else s.new_full((), qq)
    r = _zeta_core(s, qt)
    # below q = 9 - _ZETA_TERMS the Euler-Maclaurin tail would start too low to converge; PyTorch sums a
    # data-dependent number of terms there. NaN, never a wrong number (polygamma reflects instead).
    r = where(qt < 9 - _ZETA_TERMS, _NAN, r)
    q_int = qt == qt.floor()
    r = where((qt <= 0).logical_and(q_int), _INF, r)
    r = where((qt < 0).logical_and(s != s.floor()), _NAN, r)
    r = where(s < 1, _NAN, r)
    return where(s == 1, _INF, r)


def _zeta_grads(g, x, q, out):
    if isinstance(x, Tensor):
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")
    return None, (g * -x * zeta(x + 1.0, q) if isinstance(q, Tensor) else None)


zeta = binary_fn("zeta", tuple(make_binary(f"SpecialZetaBackward{i}", _zeta_fwd, _zeta_grads, ops)
                               for i, ops in ((0, (0, 1)), (2, (0,)), (1, (1,)))))


def _cot_derivative(n):
    """Coefficients (ascending) of P_n with d^n/dy^n cot(y) = P_n(cot y): P_0 = c, P_(k+1) = -(1 + c^2) P_k'."""
    p = [0, 1]
    for _ in range(n):
        d = [i * p[i] for i in range(1, len(p))] or [0]
        nxt = [0] * (len(d) + 2)
        for i, c in enumerate(d):
            nxt[i] -= c
            nxt[i + 2] -= c
        p = nxt
    return p


def _polygamma_pos(n, x):
    return (-1) ** (n + 1) * math.factorial(n) * _zeta_core(x.new_full((), n + 1.0), x)


def _polygamma_fwd(x, dt, n):
    x = _as(x, dt)
    if n == 0:
        return _digamma_fwd(x, dt)
    neg = x < 0
    pos = _polygamma_pos(n, where(neg, 1 - x, x))
    # psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x))
    cot = _pi_cot_pi(x) / math.pi
    refl = (-1) ** n * pos - math.pi ** (n + 1) * _poly(cot, [float(c) for c in _cot_derivative(n)] + [0.0])
    y = where(neg, refl, pos)
    # a pole at 0 and the negative integers: zeta(n + 1, 0) = inf
    return where((x <= 0).logical_and(x == x.floor()), (-1) ** (n + 1) * _INF, y)


def _polygamma_grad(g, x, y, n):
    return g * polygamma(n + 1, x)


_Lgamma = _make_unary_composite("LgammaBackward0", _lgamma_fwd, lambda g, x, y: g * digamma(x))
_Digamma = _make_unary_composite("DigammaBackward0", _digamma_fwd, lambda g, x, y: g * polygamma(1, x))
_Polygamma = _make_unary_composite("PolygammaBackward0", _polygamma_fwd, _polygamma_grad)


def lgamma(input, *, out=None):
    return write_out(apply_op(_Lgamma, input), out, (input,), "lgamma")


def digamma(input, *, out=None):
    return write_out(apply_op(_Digamma, input), out, (input,), "digamma")


def polygamma(n, input, *, out=None):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return write_out(apply_op(_Polygamma, input, int(n)), out, (input,), "polygamma")


def _polygamma_method(self, n):
    return polygamma(n, self)


def _polygamma_inplace(self, n):
    return inplace_method(lambda x: polygamma(n, x))(self)


def _mvlgamma_fwd(x, dt, p):
    x = _as(x, dt)
    r = _lgamma_fwd(x, dt)
    for j in range(1, p):
        r = r + _lgamma_fwd(x - 0.5 * j, dt)
    return r + p * (p - 1) / 4 * _LOG_PI


def _mvlgamma_grad(g, x, y, p):
    d = digamma(x)
    for j in range(1, p):
        d = d + digamma(x - 0.5 * j)
    return g * d


_Mvlgamma = _make_unary_composite("MvlgammaBackward0", _mvlgamma_fwd, _mvlgamma_grad)


def mvlgamma(input, p, *, out=None):
    if input.dtype is D.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return write_out(apply_op(_Mvlgamma, input, int(p)), out, (input,), "mvlgamma")


# ---- modified Bessel functions I0, I1 ----------------------------------------------------------------

_BESSEL_SPLIT = 15.0
_SERIES_TERMS = 32
_ASYM_TERMS = 20


def _nested(t, ratios):
    """1 + t r_1 (1 + t r_2 (1 + ...)): a series whose term ratios are t * ratios[k]."""
    r = t * ratios[-1] + 1
    for c in reversed(ratios[:-1]):
        r = r * t * c + 1
    return r


# power series: I_nu(x) = (x/2)^nu sum_k t^k / (k! (k+nu)!), t = x^2/4
_I_SERIES = {nu: [1.0 / (k * (k + nu)) for k in range(1, _SERIES_TERMS + 1)] for nu in (0, 1)}
# Hankel: I_nu(x) ~ e^x / sqrt(2 pi x) sum_k a_k / x^k, a_k / a_(k-1) = -(4 nu^2 - (2k-1)^2) / (8k)
_I_ASYM = {nu: [-(4 * nu * nu - (2 * k - 1) ** 2) / (8.0 * k) for k in range(1, _ASYM_TERMS + 1)] for nu in (0, 1)}


def _bessel_i(x, nu, scaled):
    ax = x.abs()
    near = ax <= _BESSEL_SPLIT
    xs = where(near, ax, 0.0)
    series = _nested(xs * xs * 0.25, _I_SERIES[nu])
    if nu == 1:
        series = series * xs * 0.5
    xl = where(near, _BESSEL_SPLIT, ax)
    asym = _nested(xl.reciprocal(), _I_ASYM[nu]) / (xl * (2 * math.pi)).sqrt()
    if scaled:
        y = where(near, series * (-ax).exp(), asym)
    else:
        # e^x as (e^(x/2))^2 keeps finite values finite a little longer
        half = (xl * 0.5).exp()
        y = where(near, series, asym * half * half)
    # PyTorch: i0e(inf) = 0 but i0(inf) = nan (its Chebyshev evaluation meets inf * 0)
    y = where(ax.isinf(), 0.0 if scaled else _NAN, y)
    return y if nu == 0 else where(x < 0, -y, y)


def _i1_grad(g, x, y, scaled):
    i0 = _bessel_i_public(x, 0, scaled)
    d = where(x == 0, 0.5, i0 - y / x)
    if scaled:
        d = d - x.sign() * y
    return g * d


def _bessel_i_public(x, nu, scaled):
    return apply_op(_BESSEL_NODES[(nu, scaled)], x)


_BESSEL_NODES = {
    (0, False): _make_unary_composite("I0Backward0", lambda x, dt: _bessel_i(_as(x, dt), 0, False),
                                      lambda g, x, y: g * _bessel_i_public(x, 1, False)),
    (0, True): _make_unary_composite("SpecialI0EBackward0", lambda x, dt: _bessel_i(_as(x, dt), 0, True),
                                     lambda g, x, y: g * (_bessel_i_public(x, 1, True) - x.sign() * y)),
    (1, False): _make_unary_composite("SpecialI1Backward0", lambda x, dt: _bessel_i(_as(x, dt), 1, False),
                                      lambda g, x, y: _i1_grad(g, x, y, False)),
    (1, True): _make_unary_composite("SpecialI1EBackward0", lambda x, dt: _bessel_i(_as(x, dt), 1, True),
                                     lambda g, x, y: _i1_grad(g, x, y, True)),
}


def _bessel_fn(name, nu, scaled):
    def fn(input, *, out=None):
        return write_out(_bessel_i_public(input, nu, scaled), out, (input,), name)
    fn.__name__ = name
    return fn


i0 = _bessel_fn("i0", 0, False)
i0e = _bessel_fn("i0e", 0, True)
i1 = _bessel_fn("i1", 1, False)
i1e = _bessel_fn("i1e", 1, True)


# ---- the normal distribution -------------------------------------------------------------------------

def ndtr(input, *, out=None):
    r = UNARY["erfc"](input * (-1 / _SQRT2)) * 0.5
    return write_out(r, out, (input,), "ndtr")


# the far left tail: log(erfc) would underflow; (2k-1)!! / x^2k is small there to working precision
_MILLS = [1.0]
for _k in range(1, 9):
    _MILLS.append(-_MILLS[-1] * (2 * _k - 1))


def _log_ndtr_fwd(x, dt):
    x = _as(x, dt)
    cut = -20.0 if dt is D.float64 else -10.0
    xl = where(x < cut, x, cut)
    xi2 = (xl * xl).reciprocal()
    tail = -0.5 * xl * xl - (-xl).log() - _HALF_LOG_2PI + UNARY["log1p"](_poly(xi2, _MILLS) - 1)
    left = (UNARY["erfc"](x * (-1 / _SQRT2)) * 0.5).log()
    right = UNARY["log1p"](UNARY["erfc"](x * (1 / _SQRT2)) * -0.5)
    return where(x > 0, right, where(x < cut, tail, left))


_LogNdtr = _make_unary_composite(
    "SpecialLogNdtrBackward0", _log_ndtr_fwd,
    lambda g, x, y: g * (x * x * -0.5 - _HALF_LOG_2PI - y).exp())


def log_ndtr(input, *, out=None):
    return write_out(apply_op(_LogNdtr, input), out, (input,), "log_ndtr")


def _ndtri_fwd(p, dt):
    p = _as(p, dt)
    upper = p > 0.5
    q = where(upper, 1 - p, p)
    logq = q.log()
    t = (logq * -2).sqrt()
    x = (t - _poly(t, [2.515517, 0.802853, 0.010328]) / _poly(t, [1.0, 1.432788, 0.189269, 0.001308])).neg()
    for _ in range(3):
        ln = _log_ndtr_fwd(x, dt)
        # Newton on log(ndtr(x)) - log(q); its derivative is pdf(x) / ndtr(x)
        x = x - (ln - logq) * (ln + x * x * 0.5 + _HALF_LOG_2PI).exp()
    x = where(upper, -x, x)
    x = where(p == 0, -_INF, where(p == 1, _INF, x))
    return where((p < 0).logical_or(p > 1), _NAN, x)


_Ndtri = _make_unary_composite("SpecialNdtriBackward0", _ndtri_fwd,
                               lambda g, x, y: g * math.sqrt(2 * math.pi) * (y * y * 0.5).exp())


def ndtri(input, *, out=None):
    return write_out(apply_op(_Ndtri, input), out, (input,), "ndtri")


# ---- entropy and xlog1py -----------------------------------------------------------------------------

def _entr_fwd(x, dt):
    x = _as(x, dt)
    y = where(x > 0, -x * where(x > 0, x, 1.0).log(), where(x == 0, 0.0, -_INF))
    return where(x.isnan(), x, y)


_Entr = _make_unary_composite("SpecialEntrBackward0", _entr_fwd, lambda g, x, y: g * -(1 + x.log()))


def entr(input, *, out=None):
    return write_out(apply_op(_Entr, input), out, (input,), "entr")


def _xlog1py_fwd(a, b):
    dt = float_result(D.result_type(a, b))
    ref = a if isinstance(a, Tensor) else b
    at = _as(a, dt) if isinstance(a, Tensor) else ref.new_full((), a, dtype=dt)
    bt = _as(b, dt) if isinstance(b, Tensor) else ref.new_full((), b, dtype=dt)
    prod = at * UNARY["log1p"](bt)
    # 0 * log1p(-1) is 0, but a NaN y still gives NaN (as xlogy)
    return where((at == 0).logical_and(bt.isnan().logical_not()), 0.0, prod)


def _xlog1py_grads(g, a, b, out):
    ga = gb = None
    if isinstance(a, Tensor):
        bt = b if isinstance(b, Tensor) else a.new_full((), b)
        ga = where((a == 0).logical_and(bt <= -1), 0.0, xlog1py(g, b))
    if isinstance(b, Tensor):
        gb = g * a / (b + 1)
    return ga, gb


xlog1py = binary_fn("xlog1py", tuple(make_binary(f"SpecialXlog1PyBackward{i}", _xlog1py_fwd, _xlog1py_grads, ops)
                                     for i, ops in ((0, (0, 1)), (2, (0,)), (1, (1,)))))


FUNCTIONS = {
    "lgamma": lgamma, "digamma": digamma, "polygamma": polygamma, "mvlgamma": mvlgamma, "i0": i0,
}
METHODS = {"lgamma": lgamma, "digamma": digamma, "polygamma": _polygamma_method, "mvlgamma": mvlgamma, "i0": i0,
           "lgamma_": inplace_method(lgamma), "digamma_": inplace_method(digamma), "i0_": inplace_method(i0),
           "polygamma_": _polygamma_inplace, "mvlgamma_": inplace_method(mvlgamma)}
i0_ = FUNCTIONS["i0_"] = METHODS["i0_"]  # PyTorch also has torch.i0_
