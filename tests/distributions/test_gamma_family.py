"""The gamma family of webtorch.distributions against torch.distributions 2.13: Gamma, Chi2, Beta, Dirichlet,
StudentT (values and parameter gradients of log_prob, entropy and moments; KL pairs; validation; repr), the
samplers webtorch._standard_gamma / _sample_dirichlet (sample statistics) and their implicit reparameterization
gradients _standard_gamma_grad / _dirichlet_grad (against torch's over grids of draws and concentrations)."""
import math

import numpy as np
import pytest
import torch

import webtorch
from distribution_checks import check_expand, check_repr, check_shapes
from optest import check, check_error, rand, webgpu_dtype_error

N_DRAWS = 20000
ALPHAS = [0.1, 0.5, 1.0, 3.0, 50.0]


def _pos(*shape):
    return rand(*shape, low=0.5, high=3.0)


def _simplex(*shape):
    p = rand(*shape, low=0.05, high=1.0)
    return (p / p.sum(-1, keepdims=True)).astype(np.float32)


# ---- values and parameter gradients ------------------------------------------------------------------------

def _moments(d):
    return d.mean, d.mode, d.variance, d.stddev, d.entropy()


def test_gamma(device):
    check(lambda m, c, r, x: (m.distributions.Gamma(c, r).log_prob(x),) + _moments(m.distributions.Gamma(c, r)),
          rand(2, 3, low=0.3, high=4.0), _pos(2, 3), rand(4, 2, 3, low=0.05, high=5.0), device=device)


def test_gamma_float64(device):
    with webgpu_dtype_error(device):
        check(lambda m, c, x: (m.distributions.Gamma(c, 2.0).log_prob(x), m.distributions.Gamma(c, 2.0).entropy()),
              rand(5, low=0.3, high=4.0, dtype=np.float64), rand(5, low=0.1, high=3.0, dtype=np.float64),
              device=device, atol=1e-8, rtol=1e-8)


def test_gamma_log_prob_at_zero_and_numbers(device):
    # xlogy: concentration 1 at x = 0 gives log(rate), not NaN; Python numbers broadcast against a tensor value
    check(lambda m, c, x: (m.distributions.Gamma(c, 1.5).log_prob(x), m.distributions.Gamma(2.0, 0.5).log_prob(x)),
          np.array([1.0, 1.0, 2.0], np.float32), np.array([0.0, 1.0, 0.0], np.float32), device=device, grad=False)


def test_chi2(device):
    check(lambda m, df, x: (m.distributions.Chi2(df).log_prob(x), m.distributions.Chi2(df).df)
          + _moments(m.distributions.Chi2(df)),
          rand(2, 3, low=0.5, high=6.0), rand(4, 2, 3, low=0.05, high=5.0), device=device)


def test_beta(device):
    def fn(m, c1, c0, x):
        d = m.distributions.Beta(c1, c0)
        return (d.log_prob(x), d.concentration1, d.concentration0) + _moments(d)
    check(fn, rand(2, 3, low=0.3, high=4.0), rand(2, 3, low=0.3, high=4.0), rand(4, 2, 3, low=0.02, high=0.98),
          device=device, atol=1e-4, rtol=1e-4)


def test_beta_numbers(device):
    check(lambda m, c, x: (m.distributions.Beta(c, 3.0).log_prob(x), m.distributions.Beta(2.0, c).entropy(),
                           m.distributions.Beta(0.5, 0.5).mode),
          rand(5, low=0.5, high=3.0), rand(5, low=0.05, high=0.95), device=device)


def test_dirichlet(device):
    def fn(m, c, x):
        d = m.distributions.Dirichlet(c)
        return (d.log_prob(x),) + _moments(d)
    conc = rand(3, 4, low=0.3, high=4.0)
    conc[1] = [0.2, 0.9, 0.5, 0.7]  # all below 1: the mode is the corner of the largest concentration
    check(fn, conc, _simplex(5, 3, 4), device=device, atol=1e-4, rtol=1e-4)


def test_studentt(device):
    def fn(m, df, loc, scale, x):
        d = m.distributions.StudentT(df, loc, scale)
        return (d.log_prob(x),) + _moments(d)
    df = np.array([[0.5, 1.0, 1.5], [2.0, 3.0, 7.5]], np.float32)  # mean NaN for df <= 1, variance inf/NaN at <= 2
    check(fn, df, rand(2, 3), _pos(2, 3), rand(4, 2, 3, low=-4, high=4), device=device, atol=1e-4, rtol=1e-4)


def test_studentt_defaults(device):
    check(lambda m, df, x: (m.distributions.StudentT(df).log_prob(x), m.distributions.StudentT(df).entropy()),
          rand(3, low=1.0, high=9.0), rand(3, low=-3, high=3), device=device)


def test_cauchy(device):
    def fn(m, loc, scale, x, u):
        d = m.distributions.Cauchy(loc, scale)
        return d.log_prob(x), d.cdf(x), d.icdf(u), d.entropy(), d.mean, d.mode, d.variance
    check(fn, rand(2, 3), _pos(2, 3), rand(4, 2, 3, low=-5, high=5), rand(2, 3, low=0.05, high=0.95), device=device)


def test_cauchy_sample_quartiles(device):
    """No moments: the sample's quartiles are loc -+ scale (the Cauchy CDF is 1/2 + atan((x - loc) / scale) / pi)."""
    webtorch.manual_seed(7)
    loc, scale = webtorch.tensor([0.5, -2.0], device=device), webtorch.tensor([1.0, 3.0], device=device)
    s = webtorch.distributions.Cauchy(loc, scale).rsample((N_DRAWS,)).cpu().numpy()
    q = np.quantile(s, [0.25, 0.5, 0.75], axis=0)
    expected = np.stack([[0.5 - 1.0, -2.0 - 3.0], [0.5, -2.0], [0.5 + 1.0, -2.0 + 3.0]])
    np.testing.assert_array_less(np.abs(q - expected), np.broadcast_to([0.1, 0.3], q.shape))


# ---- the reparameterization gradients ----------------------------------------------------------------------

def _gamma_grid():
    """(alpha, x) over every region of torch's formula: small x, alpha > 8 near and far from the mode, between."""
    alpha = np.array([0.01, 0.1, 0.3, 0.7, 1.0, 1.7, 3.0, 5.0, 7.9, 8.5, 12.0, 30.0, 100.0, 1000.0])
    frac = np.array([0.01, 0.1, 0.3, 0.5, 0.8, 0.92, 1.0, 1.05, 1.2, 1.6, 2.5, 4.0])
    a, f = np.meshgrid(alpha, frac, indexing="ij")
    x = np.maximum(a * f, 1e-6)
    return np.concatenate([a.ravel(), [2.0, 2.0, 0.5]]), np.concatenate([x.ravel(), [0.79, 0.81, 30.0]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_standard_gamma_grad_matches_torch(dtype, device):
    a, x = (v.astype(dtype) for v in _gamma_grid())
    with webgpu_dtype_error(device, when=dtype == np.float64):
        check(lambda m, a, x: m._standard_gamma_grad(a, x), a, x, device=device, grad=False,
              atol=1e-6, rtol=1e-9 if dtype == np.float64 else (1e-5 if device == "cpu" else 2e-3))


def _beta_grid():
    c = np.array([0.05, 0.3, 1.0, 2.5, 7.0, 30.0])
    q = np.array([0.001, 0.05, 0.3, 0.5, 0.7, 0.95, 0.999])
    a, b, u = (v.ravel() for v in np.meshgrid(c, c, q, indexing="ij"))
    g = torch.distributions.Beta(torch.tensor(a), torch.tensor(b))
    # a spread of x inside each Beta's bulk and tails: its mean moved towards 0 or 1
    mean = g.mean.numpy()
    x = np.where(u < 0.5, mean * (2 * u), mean + (1 - mean) * (2 * u - 1))
    return np.clip(x, 1e-6, 1 - 1e-6), a, a + b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dirichlet_grad_matches_torch(dtype, device):
    x, a, total = (v.astype(dtype) for v in _beta_grid())
    with webgpu_dtype_error(device, when=dtype == np.float64):
        check(lambda m, x, a, t: m._dirichlet_grad(x, a, t), x, a, total, device=device, grad=False,
              atol=1e-5, rtol=1e-9 if dtype == np.float64 else (1e-3 if device == "cpu" else 5e-3))


def test_reparam_grads_are_not_differentiable(device):
    a = webtorch.tensor([0.5, 2.0, 20.0], device=device, requires_grad=True)
    x = webtorch._standard_gamma(a)
    assert type(x.grad_fn).__name__ == "StandardGammaBackward0"
    (g,) = webtorch.autograd.grad(x.sum(), [a], create_graph=True)
    with pytest.raises(NotImplementedError, match="the derivative for '_standard_gamma_grad' is not implemented."):
        g.sum().backward()


def test_standard_gamma_backward_uses_the_draw(device):
    a = webtorch.tensor([0.3, 1.0, 4.0, 60.0], device=device, requires_grad=True)
    x = webtorch._standard_gamma(a.expand(50, 4))
    x.sum().backward()
    expected = webtorch._standard_gamma_grad(a.detach().expand(50, 4), x.detach()).sum(0)
    np.testing.assert_allclose(a.grad.cpu().numpy(), expected.cpu().numpy(), rtol=1e-5)


# ---- sampling --------------------------------------------------------------------------------------------

def _stats(s):
    s = s.detach().double() if s.device.type == "cpu" else s.detach().float()
    return s.mean(0).cpu().numpy(), s.var(0).cpu().numpy()


def _assert_moments(s, mean, var, n=N_DRAWS):
    m, v = _stats(s)
    mean, var = np.asarray(mean, np.float64), np.asarray(var, np.float64)
    np.testing.assert_array_less(np.abs(m - mean), 5 * np.sqrt(var / n) + 1e-6)
    np.testing.assert_allclose(v, var, rtol=0.15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_sample_moments(dtype, device):
    webtorch.manual_seed(0)
    dt = getattr(webtorch, dtype)
    with webgpu_dtype_error(device, when=dtype == "float64"):
        a = webtorch.tensor(ALPHAS, dtype=dt, device=device)
        s = webtorch._standard_gamma(a.expand(N_DRAWS, len(ALPHAS)))
        assert s.dtype is dt and s.device.type == webtorch.device(device).type
        assert bool((s > 0).all())
        _assert_moments(s, ALPHAS, ALPHAS)
        # the Gamma(alpha) CDF at the sample's quartiles: P(X <= q) from torch's regularized incomplete gamma
        s_np = s.cpu().double().numpy()
        for j, alpha in enumerate(ALPHAS):
            qs = np.quantile(s_np[:, j], [0.25, 0.5, 0.75])
            cdf = torch.special.gammainc(torch.tensor(alpha, dtype=torch.float64), torch.tensor(qs)).numpy()
            np.testing.assert_allclose(cdf, [0.25, 0.5, 0.75], atol=0.02)


def test_standard_gamma_edge_values(device):
    tiny = 1.1754943508222875e-38
    a = webtorch.tensor([0.0, -1.0, math.nan, math.inf, 1e-30], device=device)
    np.testing.assert_array_equal(webtorch._standard_gamma(a).cpu().numpy(), [tiny, tiny, tiny, math.inf, tiny])
    check_error(lambda m, a: m._standard_gamma(a), np.array([1, 2]), device=device,
                match="not implemented for 'Long'")
    check_error(lambda m, a: m._sample_dirichlet(a), np.array([1, 2]), device=device,
                match="\"dirichlet\" not implemented for 'Long'")


def test_sample_dirichlet(device):
    webtorch.manual_seed(1)
    conc = webtorch.tensor([[0.1, 0.5, 2.0], [3.0, 50.0, 1.0]], device=device)
    s = webtorch._sample_dirichlet(conc.expand(N_DRAWS, 2, 3))
    assert not s.requires_grad and tuple(s.shape) == (N_DRAWS, 2, 3)
    np.testing.assert_allclose(s.sum(-1).cpu().numpy(), 1.0, rtol=1e-5)
    d = torch.distributions.Dirichlet(torch.tensor(conc.cpu().numpy()))
    _assert_moments(s, d.mean.numpy(), d.variance.numpy())
    # all-tiny concentrations: one category takes (almost) everything, nothing is NaN or 0
    t = webtorch._sample_dirichlet(webtorch.full((100, 2), 1e-3, device=device)).cpu().numpy()
    assert np.all(t > 0) and np.all(np.isfinite(t))


def _families(D, dev):
    t = lambda v: webtorch.tensor(v, device=dev)  # noqa: E731
    return [D.Gamma(t(ALPHAS), t([2.0, 1.0, 0.5, 3.0, 10.0])), D.Chi2(t([0.5, 1.0, 4.0, 30.0])),
            D.Beta(t([0.1, 0.5, 1.0, 3.0, 50.0]), t([0.5, 2.0, 1.0, 50.0, 3.0])),
            D.Dirichlet(t([0.1, 0.5, 3.0, 50.0])),
            D.StudentT(t([5.0, 9.0, 30.0]), t([0.0, 1.0, -2.0]), t([1.0, 0.5, 3.0]))]


@pytest.mark.parametrize("index", range(5), ids=["Gamma", "Chi2", "Beta", "Dirichlet", "StudentT"])
@pytest.mark.parametrize("method", ["sample", "rsample"])
def test_family_sample_moments(index, method, device):
    webtorch.manual_seed(2)
    d = _families(webtorch.distributions, device)[index]
    s = getattr(d, method)((N_DRAWS,))
    assert not s.requires_grad
    assert tuple(s.shape) == (N_DRAWS,) + tuple(d.batch_shape) + tuple(d.event_shape)
    _assert_moments(s, d.mean.cpu().numpy(), d.variance.cpu().numpy())
    assert bool(d.support.check(s).all())


# ---- rsample gradients -------------------------------------------------------------------------------------

def test_gamma_rsample_gradients(device):
    """x = g / rate with g ~ Gamma(c): dx/drate = -x / rate, dx/dc = _standard_gamma_grad(c, g) / rate; and
    d E[x] / dc = 1 / rate on average."""
    webtorch.manual_seed(3)
    c = webtorch.tensor([0.4, 2.0, 30.0], device=device, requires_grad=True)
    rate = webtorch.tensor([2.0, 0.5, 1.5], device=device, requires_grad=True)
    x = webtorch.distributions.Gamma(c, rate).rsample((N_DRAWS,))
    x.mean(0).sum().backward()
    xd, cd, rd = x.detach(), c.detach(), rate.detach()
    np.testing.assert_allclose(rate.grad.cpu().numpy(), (-xd / rd).mean(0).cpu().numpy(), rtol=1e-4)
    expected = (webtorch._standard_gamma_grad(cd.expand(N_DRAWS, 3), xd * rd) / rd).mean(0)
    np.testing.assert_allclose(c.grad.cpu().numpy(), expected.cpu().numpy(), rtol=1e-4)
    np.testing.assert_allclose(c.grad.cpu().numpy(), (1 / rd).cpu().numpy(), rtol=0.05)


def test_dirichlet_rsample_backward_matches_torch(device):
    """The _Dirichlet backward on our draws equals torch's formula (torch._dirichlet_grad) on the same draws."""
    webtorch.manual_seed(4)
    conc = webtorch.tensor([[0.3, 1.0, 4.0], [8.0, 9.0, 0.7]], device=device, requires_grad=True)
    x = webtorch.distributions.Dirichlet(conc).rsample((7,))
    assert type(x.grad_fn).__name__ == "_DirichletBackward"
    w = rand(7, 2, 3)
    (x * webtorch.tensor(w, device=device)).sum().backward()
    tx = torch.tensor(x.detach().cpu().numpy())
    tc = torch.tensor(conc.detach().cpu().numpy()).expand(7, 2, 3)
    tw = torch.tensor(w)
    grad = torch._dirichlet_grad(tx, tc, tc.sum(-1, True).expand_as(tc)) * (tw - (tx * tw).sum(-1, True))
    np.testing.assert_allclose(conc.grad.cpu().numpy(), grad.sum(0).numpy(), rtol=2e-3, atol=1e-5)


def test_beta_rsample_mean_gradient(device):
    """d E[x] / dc1 = c0 / (c1 + c0)^2 and d E[x] / dc0 = -c1 / (c1 + c0)^2, estimated through rsample."""
    webtorch.manual_seed(5)
    c1 = webtorch.tensor([0.5, 2.0, 20.0], device=device, requires_grad=True)
    c0 = webtorch.tensor([1.5, 3.0, 10.0], device=device, requires_grad=True)
    webtorch.distributions.Beta(c1, c0).rsample((N_DRAWS,)).mean(0).sum().backward()
    a, b = c1.detach().cpu().numpy(), c0.detach().cpu().numpy()
    np.testing.assert_allclose(c1.grad.cpu().numpy(), b / (a + b) ** 2, rtol=0.1)
    np.testing.assert_allclose(c0.grad.cpu().numpy(), -a / (a + b) ** 2, rtol=0.1)


def test_studentt_and_chi2_rsample_gradients_flow(device):
    webtorch.manual_seed(6)
    df = webtorch.tensor([3.0, 8.0], device=device, requires_grad=True)
    loc = webtorch.tensor([0.5, -1.0], device=device, requires_grad=True)
    scale = webtorch.tensor([2.0, 0.5], device=device, requires_grad=True)
    webtorch.distributions.StudentT(df, loc, scale).rsample((100,)).sum().backward()
    np.testing.assert_allclose(loc.grad.cpu().numpy(), [100.0, 100.0])
    assert np.all(np.isfinite(df.grad.cpu().numpy())) and np.all(np.isfinite(scale.grad.cpu().numpy()))
    assert np.any(df.grad.cpu().numpy() != 0)
    k = webtorch.tensor([1.0, 6.0], device=device, requires_grad=True)
    webtorch.distributions.Chi2(k).rsample((N_DRAWS,)).mean(0).sum().backward()
    np.testing.assert_allclose(k.grad.cpu().numpy(), [1.0, 1.0], rtol=0.05)  # E[x] = df


# ---- kl_divergence -----------------------------------------------------------------------------------------

def _gamma(m, a, b):
    return m.distributions.Gamma(a.exp(), (b * 2).exp())


def _chi2(m, a, b):
    return m.distributions.Chi2((a + b).exp() * 2)


def _beta(m, a, b):
    return m.distributions.Beta(a.exp(), (b * 2).exp())


def _dirichlet(m, a, b):
    return m.distributions.Dirichlet(m.stack([a.exp(), b.exp(), (a - b).exp()], -1))


def _exponential(m, a, b):
    return m.distributions.Exponential(b.exp())


def _normal(m, a, b):
    return m.distributions.Normal(a, b.exp())


def _laplace(m, a, b):
    return m.distributions.Laplace(a, b.exp())


def _cauchy(m, a, b):
    return m.distributions.Cauchy(a, b.exp())


def _uniform01(m, a, b):
    """A Uniform inside [0, 1] (Beta's support) and inside [0, inf) (Gamma's)."""
    lo = a.sigmoid() * 0.4
    return m.distributions.Uniform(lo, lo + 0.2 + b.sigmoid() * 0.3)


KL_PAIRS = [(_gamma, _gamma), (_chi2, _chi2), (_chi2, _gamma), (_beta, _beta), (_dirichlet, _dirichlet),
            (_exponential, _gamma), (_gamma, _exponential), (_gamma, _normal), (_beta, _exponential),
            (_beta, _gamma), (_beta, _normal), (_uniform01, _beta), (_uniform01, _gamma), (_cauchy, _cauchy)]


@pytest.mark.parametrize("make_p,make_q", KL_PAIRS, ids=[f"{p.__name__[1:]}-{q.__name__[1:]}" for p, q in KL_PAIRS])
def test_kl_divergence(make_p, make_q, device):
    def fn(m, a1, b1, a2, b2):
        return m.distributions.kl_divergence(make_p(m, a1, b1), make_q(m, a2, b2))
    args = (rand(2, 3), rand(2, 3, low=-0.5, high=0.5), rand(2, 3), rand(2, 3, low=-0.5, high=0.5))
    check(fn, *args, device=device, atol=1e-4, rtol=1e-4, grad_atol=1e-3, grad_rtol=1e-3)


def _uniform_wide(m, a, b):
    return m.distributions.Uniform(a - 3, a + b.exp() + 3)


INFINITE_PAIRS = [(_gamma, _uniform_wide), (_gamma, _beta), (_normal, _gamma), (_normal, _beta), (_laplace, _beta),
                  (_exponential, _beta), (_beta, _uniform_wide), (_uniform_wide, _beta), (_uniform_wide, _gamma)]


@pytest.mark.parametrize("make_p,make_q", INFINITE_PAIRS,
                         ids=[f"{p.__name__[1:]}-{q.__name__[1:]}" for p, q in INFINITE_PAIRS])
def test_kl_infinite_pairs(make_p, make_q, device):
    check(lambda m, a, b: m.distributions.kl_divergence(make_p(m, a, b), make_q(m, a, b)), rand(3), rand(3),
          device=device, grad=False)


@pytest.mark.parametrize("make", [_gamma, _beta, _dirichlet], ids=["Gamma", "Beta", "Dirichlet"])
def test_expfamily_bregman_matches_closed_form(make, device):
    D = webtorch.distributions
    a1, b1 = (webtorch.tensor(rand(4), device=device) for _ in range(2))
    a2, b2 = (webtorch.tensor(rand(4), device=device) for _ in range(2))
    p, q = make(webtorch, a1, b1), make(webtorch, a2, b2)
    bregman = D.kl._kl_expfamily_expfamily(p, q)
    np.testing.assert_allclose(bregman.detach().cpu().numpy(), D.kl_divergence(p, q).cpu().numpy(), rtol=1e-3,
                               atol=1e-4)
    if make is _gamma:  # torch's Beta and Dirichlet have no _mean_carrier_measure: no generic entropy
        generic = D.ExponentialFamily.entropy(p)
        np.testing.assert_allclose(generic.detach().cpu().numpy(), p.entropy().cpu().numpy(), rtol=1e-3, atol=1e-4)


# ---- shapes, expand, repr, constraints -----------------------------------------------------------------------

def _dists(m, device=None):
    D = m.distributions
    kw = {} if m is torch else {"device": device}
    o = lambda *s: m.ones(*s, **kw)  # noqa: E731
    return [D.Gamma(o(2, 3), o(2, 3) * 2), D.Gamma(1.0, 2.0), D.Gamma(o(3), 0.5), D.Chi2(o(3) * 4), D.Chi2(2.0),
            D.Beta(o(2) * 0.5, o(2) * 2), D.Beta(2.0, 3.0), D.Dirichlet(o(2, 4)), D.Dirichlet(o(3) * 0.5),
            D.StudentT(o(3) * 4), D.StudentT(o(2, 1) * 5, o(3), 2.0), D.StudentT(3.0), D.Cauchy(o(2) * 0, 2.0),
            D.Cauchy(0.0, 1.0)]


NUMBERS_ONLY = (1, 4, 6, 11, 13)  # built from Python numbers only: their tensors are on the default device, cpu


@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
def test_shapes(sample_shape, device):
    check_shapes(zip(_dists(webtorch, device), _dists(torch)), sample_shape, device, NUMBERS_ONLY)


def test_expand(device):
    for we, te in check_expand(zip(_dists(webtorch, device), _dists(torch))):
        np.testing.assert_allclose(we.mean.cpu().numpy(), te.mean.numpy(), rtol=1e-6)


def test_repr_and_constraints(device):
    check_repr(zip(_dists(webtorch, device), _dists(torch)))


def test_exported():
    D = webtorch.distributions
    for name in ["Gamma", "Chi2", "Beta", "Dirichlet", "StudentT", "Cauchy"]:
        assert name in D.__all__ and issubclass(getattr(D, name), D.Distribution)
    assert issubclass(D.Chi2, D.Gamma) and issubclass(D.Beta, D.ExponentialFamily)
    assert not issubclass(D.StudentT, D.ExponentialFamily)


# ---- validation ------------------------------------------------------------------------------------------

def test_validation_errors(device):
    check_error(lambda m, c: m.distributions.Gamma(c, 1.0), np.array([1, -2, 3], np.float32), device=device,
                match="Expected parameter concentration (Tensor of shape (3,)) of distribution Gamma(concentration: "
                      "torch.Size([3]), rate: torch.Size([3])) to satisfy the constraint GreaterThan(lower_bound=0.0)")
    check_error(lambda m: m.distributions.Gamma(1.0, -2.0), device=device,
                match="Expected parameter rate (Tensor of shape ()) of distribution Gamma(concentration: 1.0, "
                      "rate: -2.0)")
    check_error(lambda m, df: m.distributions.Chi2(df), np.array([0.0, 1.0], np.float32), device=device,
                match="Expected parameter df (Tensor of shape (2,)) of distribution Chi2() to satisfy the constraint "
                      "GreaterThan(lower_bound=0.0)")
    check_error(lambda m, c: m.distributions.Beta(c, 1.0), np.array([0.5, -1.0], np.float32), device=device,
                match="Expected parameter concentration (Tensor of shape (2, 2)) of distribution "
                      "Dirichlet(concentration: torch.Size([2, 2]))")
    check_error(lambda m, c: m.distributions.Dirichlet(c), np.array([[1.0, 0.0], [1.0, 2.0]], np.float32),
                device=device, match="to satisfy the constraint IndependentConstraint(GreaterThan(lower_bound=0.0), 1)")
    check_error(lambda m: m.distributions.Dirichlet(m.tensor(1.0)), device=device,
                match="`concentration` parameter must be at least one-dimensional.")
    check_error(lambda m, df: m.distributions.StudentT(df, 0.0, 1.0), np.array([-1.0], np.float32), device=device,
                match="Expected parameter df (Tensor of shape (1,)) of distribution Chi2() to satisfy the constraint "
                      "GreaterThan(lower_bound=0.0)")  # as torch: the Chi2 inside is built (and checked) first


def test_value_validation_errors(device):
    check_error(lambda m, x: m.distributions.Gamma(m.ones(3), 1.0).log_prob(x), np.array([1, -1, 2], np.float32),
                device=device, match="to be within the support (GreaterThanEq(lower_bound=0.0)) of the distribution "
                                     "Gamma(concentration: torch.Size([3]), rate: torch.Size([3]))")
    check_error(lambda m, x: m.distributions.Beta(m.ones(2), 2.0).log_prob(x), np.array([0.5, 1.5], np.float32),
                device=device, match="to be within the support (Interval(lower_bound=0.0, upper_bound=1.0)) of the "
                                     "distribution Beta()")
    check_error(lambda m, x: m.distributions.Dirichlet(m.ones(3)).log_prob(x), np.array([0.5, 0.2, 0.2], np.float32),
                device=device, match="to be within the support (Simplex())")
    check_error(lambda m, x: m.distributions.Dirichlet(m.ones(3)).log_prob(x), np.array([0.5, 0.5], np.float32),
                device=device, match="The right-most size of value must match event_shape: torch.Size([2]) vs "
                                     "torch.Size([3]).")
