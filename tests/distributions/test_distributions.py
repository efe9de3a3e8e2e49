"""webtorch.distributions against torch.distributions 2.13: values and parameter gradients of log_prob, entropy,
cdf/icdf and moments; kl_divergence; shapes; validation errors; repr; sample statistics; rsample identities."""
import math

import numpy as np
import pytest
import torch

import webtorch
from distribution_checks import check_expand, check_repr, check_shapes
from optest import check, check_error, rand, randint

N_DRAWS = 20000


def _pos(*shape):
    return rand(*shape, low=0.5, high=2.0)


def _probs(*shape):
    p = rand(*shape, low=0.05, high=1.0)
    return (p / p.sum(-1, keepdims=True)).astype(np.float32)


def _tril(m, raw, diag):
    """A lower-triangular matrix with positive diagonal, built in the library m (so gradients reach raw, diag)."""
    return raw.tril(-1) + m.diag_embed(diag.exp())


def _spd(m, raw):
    """A symmetric positive-definite matrix from raw: raw raw^T + I."""
    return raw.matmul(raw.mT) + m.eye(raw.shape[-1], device=raw.device)


# ---- values and parameter gradients ------------------------------------------------------------------------

def _univariate(d, x, u):
    return d.log_prob(x), d.entropy(), d.cdf(x), d.icdf(u), d.mean, d.variance, d.stddev, d.mode


@pytest.mark.parametrize("name", ["Normal", "Laplace"])
def test_loc_scale_families(name, device):
    check(lambda m, loc, scale, x, u: _univariate(getattr(m.distributions, name)(loc, scale), x, u),
          rand(2, 3), _pos(2, 3), rand(4, 2, 3, low=-3, high=3), rand(2, 3, low=0.05, high=0.95), device=device)


def test_loc_scale_broadcast_numbers(device):
    check(lambda m, loc, x: (m.distributions.Normal(loc, 2.0).log_prob(x), m.distributions.Laplace(0.5, loc.exp()).cdf(x)),
          rand(3), rand(5, 3), device=device)


def test_exponential(device):
    check(lambda m, rate, x, u: _univariate(m.distributions.Exponential(rate), x, u),
          _pos(2, 3), rand(4, 2, 3, low=0, high=3), rand(2, 3, low=0.05, high=0.95), device=device)


def test_uniform(device):
    def fn(m, low, high, t, u):
        d = m.distributions.Uniform(low, high)
        x = low + t * (high - low)  # inside the support
        return d.log_prob(x), d.entropy(), d.cdf(x), d.icdf(u), d.mean, d.variance, d.stddev
    check(fn, rand(2, 3, low=-2, high=-0.5), rand(2, 3, low=0.5, high=2), rand(4, 2, 3, low=0, high=0.99),
          rand(2, 3, low=0, high=1), device=device)


def test_uniform_log_prob_outside_support_is_minus_inf(device):
    check(lambda m, x: m.distributions.Uniform(0.0, 1.0, validate_args=False).log_prob(x),
          np.array([-0.5, 0.0, 0.5, 1.0, 1.5], np.float32), device=device, grad=False)


@pytest.mark.parametrize("param", ["probs", "logits"])
def test_bernoulli(param, device):
    arg = rand(2, 3, low=0.05, high=0.95) if param == "probs" else rand(2, 3, low=-3, high=3)

    def fn(m, p, x):
        d = m.distributions.Bernoulli(**{param: p})
        return d.log_prob(x), d.entropy(), d.mean, d.variance, d.probs, d.logits, d.perplexity()
    check(fn, arg, randint(0, 2, 4, 2, 3).astype(np.float32), device=device, grad_atol=1e-4)


@pytest.mark.parametrize("param", ["probs", "logits"])
def test_categorical(param, device):
    arg = rand(2, 4, low=0.05, high=1.0) if param == "probs" else rand(2, 4, low=-3, high=3)

    def fn(m, p, x):
        d = m.distributions.Categorical(**{param: p})
        return d.log_prob(x), d.entropy(), d.probs, d.logits, d.mean, d.variance, d.mode
    check(fn, arg, randint(0, 4, 5, 2), device=device)


def test_categorical_entropy_with_zero_probability(device):
    check(lambda m, p: m.distributions.Categorical(probs=p).entropy(),
          np.array([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]], np.float32), device=device)


@pytest.mark.parametrize("straight_through", [False, True])
def test_one_hot_categorical(straight_through, device):
    cls = "OneHotCategoricalStraightThrough" if straight_through else "OneHotCategorical"
    x = np.eye(4, dtype=np.float32)[randint(0, 4, 5, 2)]

    def fn(m, logits, x):
        d = getattr(m.distributions, cls)(logits=logits)
        return d.log_prob(x), d.entropy(), d.mean, d.variance, d.mode, d.probs
    check(fn, rand(2, 4, low=-2, high=2), x, device=device)


def _mvn(m, kind, loc, raw, diag):
    D = m.distributions
    if kind == "scale_tril":
        return D.MultivariateNormal(loc, scale_tril=_tril(m, raw, diag))
    if kind == "covariance_matrix":
        return D.MultivariateNormal(loc, covariance_matrix=_spd(m, raw))
    return D.MultivariateNormal(loc, precision_matrix=_spd(m, raw))


@pytest.mark.parametrize("kind", ["scale_tril", "covariance_matrix", "precision_matrix"])
def test_multivariate_normal(kind, device):
    def fn(m, loc, raw, diag, x):
        d = _mvn(m, kind, loc, raw, diag)
        return (d.log_prob(x), d.entropy(), d.mean, d.variance, d.stddev, d.scale_tril, d.covariance_matrix,
                d.precision_matrix)
    check(fn, rand(2, 3), rand(2, 3, 3), rand(2, 3, low=-0.5, high=0.5), rand(4, 2, 3, low=-2, high=2),
          device=device, atol=1e-4, rtol=1e-3, grad_atol=1e-3, grad_rtol=1e-3)


def test_multivariate_normal_broadcasts_loc_against_matrix_batch(device):
    def fn(m, loc, raw, x):
        d = m.distributions.MultivariateNormal(loc, covariance_matrix=_spd(m, raw))
        return d.log_prob(x), d.entropy(), d.rsample((2,)).shape == (2, 3, 4, 2)
    check(fn, rand(3, 1, 2), rand(4, 2, 2), rand(5, 3, 4, 2), device=device, atol=1e-4, rtol=1e-3, grad_atol=1e-3)


def test_independent(device):
    def fn(m, loc, scale, x):
        d = m.distributions.Independent(m.distributions.Normal(loc, scale), 2)
        return d.log_prob(x), d.entropy(), d.mean, d.variance, d.mode
    check(fn, rand(2, 3, 4), _pos(2, 3, 4), rand(5, 2, 3, 4), device=device)


# ---- kl_divergence -----------------------------------------------------------------------------------------

def _normal(m, a, b):
    return m.distributions.Normal(a, b.exp())


def _laplace(m, a, b):
    return m.distributions.Laplace(a, b.exp())


def _exponential(m, a, b):
    return m.distributions.Exponential(b.exp())


def _uniform(m, a, b):
    return m.distributions.Uniform(a - 3, a + b.exp() + 3)


def _bernoulli(m, a, b):
    return m.distributions.Bernoulli(logits=a * 2)


def _categorical(m, a, b):
    return m.distributions.Categorical(logits=a.unsqueeze(-1) * m.arange(3.0, device=a.device) + b.unsqueeze(-1))


def _one_hot(m, a, b):
    return m.distributions.OneHotCategorical(logits=a.unsqueeze(-1) * m.arange(3.0, device=a.device) + b.unsqueeze(-1))


def _independent(m, a, b):
    return m.distributions.Independent(_normal(m, a, b), 1)


KL_PAIRS = [(_normal, _normal), (_laplace, _laplace), (_exponential, _exponential), (_uniform, _uniform),
            (_bernoulli, _bernoulli), (_categorical, _categorical), (_one_hot, _one_hot),
            (_independent, _independent), (_exponential, _normal), (_laplace, _normal), (_normal, _laplace),
            (_uniform, _normal), (_uniform, _exponential)]


@pytest.mark.parametrize("make_p,make_q", KL_PAIRS, ids=[f"{p.__name__[1:]}-{q.__name__[1:]}" for p, q in KL_PAIRS])
def test_kl_divergence(make_p, make_q, device):
    def fn(m, a1, b1, a2, b2):
        return m.distributions.kl_divergence(make_p(m, a1, b1), make_q(m, a2, b2))
    args = (rand(2, 3), rand(2, 3, low=-0.5, high=0.5), rand(2, 3), rand(2, 3, low=-0.5, high=0.5))
    if make_q is _exponential:  # a Uniform p must lie in q's support x >= 0
        args = (args[0] + 4,) + args[1:]
    check(fn, *args, device=device, atol=1e-4, rtol=1e-4)


def test_kl_multivariate_normal(device):
    def fn(m, loc1, raw1, d1, loc2, raw2):
        p = _mvn(m, "scale_tril", loc1, raw1, d1)
        q = m.distributions.MultivariateNormal(loc2, covariance_matrix=_spd(m, raw2))
        return m.distributions.kl_divergence(p, q), m.distributions.kl_divergence(q, p)
    check(fn, rand(2, 3), rand(2, 3, 3), rand(2, 3, low=-0.5, high=0.5), rand(3), rand(3, 3),
          device=device, atol=1e-4, rtol=1e-3, grad_atol=1e-3, grad_rtol=1e-3)


@pytest.mark.parametrize("make_p,make_q", [(_normal, _uniform), (_normal, _exponential), (_laplace, _uniform),
                                           (_exponential, _uniform), (_laplace, _exponential)])
def test_kl_infinite_pairs(make_p, make_q, device):
    check(lambda m, a, b: m.distributions.kl_divergence(make_p(m, a, b), make_q(m, a, b)), rand(3), rand(3),
          device=device, grad=False)


def test_kl_infinite_where_support_is_not_covered(device):
    def fn(m, lo, p, q):
        D = m.distributions
        two = lambda x: m.stack([x, 1 - x], -1)  # noqa: E731
        return (D.kl_divergence(D.Uniform(lo, lo + 1), D.Uniform(lo + 0.5, lo + 2)),
                D.kl_divergence(D.Uniform(lo, lo + 1), D.Uniform(lo - 1, lo + 0.5)),
                D.kl_divergence(D.Uniform(lo, lo + 1), D.Uniform(lo - 1, lo + 2)),
                D.kl_divergence(D.Bernoulli(probs=p), D.Bernoulli(probs=q)),
                D.kl_divergence(D.Categorical(probs=two(p)), D.Categorical(probs=two(q))))
    check(fn, rand(4), np.array([0.0, 0.25, 1.0, 0.5], np.float32), np.array([1.0, 0.0, 1.0, 0.5], np.float32),
          device=device, grad=False)


def test_kl_unregistered_pair_raises(device):
    check_error(lambda m: m.distributions.kl_divergence(m.distributions.Categorical(logits=m.zeros(3)),
                                                         m.distributions.Normal(0.0, 1.0)),
                device=device, match="No KL(p || q) is implemented for p type Categorical and q type Normal")
    check_error(lambda m: m.distributions.kl_divergence(m.distributions.Bernoulli(0.3),
                                                         m.distributions.Exponential(1.0)),
                device=device, match="The cross KL-divergence between different exponential families")


def test_register_kl_most_specific_wins():
    D = webtorch.distributions

    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    assert float(D.kl_divergence(p, q)) == pytest.approx(float(D.kl_divergence(D.Normal(0.0, 1.0), q)))

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return webtorch.tensor(42.0)
    try:
        assert float(D.kl_divergence(p, q)) == 42.0
        assert float(D.kl_divergence(D.Normal(0.0, 1.0), q)) != 42.0
    finally:
        del D.kl._KL_REGISTRY[MyNormal, D.Normal]
        D.kl._KL_MEMOIZE.clear()


def test_expfamily_bregman_kl_matches_closed_form(device):
    """The generic exponential-family KL and entropy (autograd of the log-normalizer) give the closed forms."""
    D = webtorch.distributions
    loc1, loc2 = webtorch.tensor([0.3, -1.0], device=device), webtorch.tensor([1.0, 0.5], device=device)
    p, q = D.Normal(loc1, webtorch.tensor([1.0, 2.0], device=device)), D.Normal(loc2, 1.5)
    bregman = D.kl._kl_expfamily_expfamily(p, q)
    np.testing.assert_allclose(bregman.detach().cpu().numpy(), D.kl_divergence(p, q).cpu().numpy(), rtol=1e-5)
    generic = D.ExponentialFamily.entropy(p)
    np.testing.assert_allclose(generic.detach().cpu().numpy(), p.entropy().cpu().numpy(), rtol=1e-5)


# ---- shapes ------------------------------------------------------------------------------------------------

def _dists(m, device=None):
    D = m.distributions
    kw = {} if m is torch else {"device": device}
    z = lambda *s: m.zeros(*s, **kw)  # noqa: E731
    o = lambda *s: m.ones(*s, **kw)  # noqa: E731
    return [D.Normal(z(2, 3), o(2, 3)), D.Normal(0.0, 1.0), D.Laplace(z(3), 2.0), D.Exponential(o(4)),
            D.Uniform(z(2, 1), o(2, 1)), D.Bernoulli(probs=o(3) * 0.3), D.Bernoulli(logits=0.5),
            D.Categorical(logits=z(2, 5)), D.Categorical(probs=o(4)), D.OneHotCategorical(probs=o(2, 4)),
            D.MultivariateNormal(z(2, 3), scale_tril=m.eye(3, **kw)), D.MultivariateNormal(z(3), m.eye(3, **kw)),
            D.Independent(D.Normal(z(2, 3, 4), o(2, 3, 4)), 2)]


NUMBERS_ONLY = (1, 6)  # the _dists built from Python numbers: their tensors are on the default device, cpu


@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
def test_shapes(sample_shape, device):
    check_shapes(zip(_dists(webtorch, device), _dists(torch)), sample_shape, device, NUMBERS_ONLY)


def test_expand(device):
    check_expand(zip(_dists(webtorch, device), _dists(torch)))


def test_enumerate_support(device):
    def fn(m, p):
        D = m.distributions
        return (D.Bernoulli(p).enumerate_support(), D.Bernoulli(p).enumerate_support(expand=False),
                D.Categorical(probs=p).enumerate_support(), D.OneHotCategorical(probs=p).enumerate_support(),
                D.OneHotCategorical(probs=p).enumerate_support(expand=False))
    check(fn, rand(2, 3, low=0.1, high=0.9), device=device, grad=False)


def test_modes_with_nan(device):
    check(lambda m, p, lo: (m.distributions.Bernoulli(p).mode, m.distributions.Uniform(lo, lo + 1).mode),
          np.array([0.2, 0.5, 0.7], np.float32), rand(3), device=device, grad=False)


# ---- validation ------------------------------------------------------------------------------------------

NORMAL_BAD_SCALE = ("Expected parameter scale (Tensor of shape (3,)) of distribution Normal(loc: torch.Size([3]), "
                    "scale: torch.Size([3])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid "
                    "values:\ntensor([ 1., -2.,  3.]")


def test_validation_errors(device):
    check_error(lambda m, s: m.distributions.Normal(m.zeros(3), s), np.array([1, -2, 3], np.float32),
                device=device, match=NORMAL_BAD_SCALE)
    check_error(lambda m, p: m.distributions.Bernoulli(probs=p), np.array([0.5, 1.5], np.float32), device=device,
                match="Expected parameter probs (Tensor of shape (2,)) of distribution Bernoulli(probs: torch.Size([2])) "
                      "to satisfy the constraint Interval(lower_bound=0.0, upper_bound=1.0)")
    check_error(lambda m, p: m.distributions.Categorical(probs=p), np.array([0.5, -0.5], np.float32),
                device=device, match="to satisfy the constraint Simplex()")
    check_error(lambda m, x: m.distributions.Categorical(logits=x), np.array([0.5, np.nan], np.float32),
                device=device, match="to satisfy the constraint IndependentConstraint(Real(), 1)")
    check_error(lambda m, lo: m.distributions.Uniform(lo, lo - 1), np.zeros(2, np.float32), device=device,
                match="Expected parameter low (Tensor of shape (2,)) of distribution Uniform(low: torch.Size([2]), "
                      "high: torch.Size([2])) to satisfy the constraint LessThan(upper_bound=tensor([-1., -1.]")
    check_error(lambda m, c: m.distributions.MultivariateNormal(m.zeros(2), covariance_matrix=c),
                np.array([[1.0, 2.0], [2.0, 1.0]], np.float32), device=device,
                match="to satisfy the constraint PositiveDefinite()")
    check_error(lambda m, c: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=c),
                np.array([[1.0, 1.0], [0.0, 1.0]], np.float32), device=device,
                match="to satisfy the constraint LowerCholesky()")
    check_error(lambda m: m.distributions.Exponential(-1.0), device=device,
                match="Expected parameter rate (Tensor of shape ()) of distribution Exponential(rate: -1.0)")


def test_value_validation_errors(device):
    check_error(lambda m, x: m.distributions.Exponential(m.ones(3)).log_prob(x), np.array([1, -1, 2], np.float32),
                device=device, match="Expected value argument (Tensor of shape (3,)) to be within the support "
                                     "(GreaterThanEq(lower_bound=0.0)) of the distribution Exponential(rate: "
                                     "torch.Size([3])), but found invalid values:")
    check_error(lambda m, x: m.distributions.Bernoulli(m.ones(3) * 0.5).log_prob(x), np.array([0, 0.5, 1], np.float32),
                device=device, match="to be within the support (Boolean())")
    check_error(lambda m, x: m.distributions.Categorical(logits=m.zeros(3)).log_prob(x), np.array([3]),
                device=device, match="to be within the support (IntegerInterval(lower_bound=0, upper_bound=2))")
    check_error(lambda m, x: m.distributions.Normal(m.zeros(3), 1.0).log_prob(x), rand(4), device=device,
                match="Value is not broadcastable with batch_shape+event_shape: torch.Size([4]) vs torch.Size([3]).")
    check_error(lambda m, x: m.distributions.MultivariateNormal(m.zeros(3), m.eye(3)).log_prob(x), rand(2),
                device=device, match="The right-most size of value must match event_shape: torch.Size([2]) vs "
                                     "torch.Size([3]).")
    check_error(lambda m: m.distributions.Normal(m.zeros(3), 1.0).log_prob([0.0]), device=device,
                match="The value argument to log_prob must be a Tensor")


def test_constructor_errors(device):
    check_error(lambda m: m.distributions.Categorical(), device=device,
                match="Either `probs` or `logits` must be specified, but not both.")
    check_error(lambda m: m.distributions.Bernoulli(0.5, 0.5), device=device,
                match="Either `probs` or `logits` must be specified, but not both.")
    check_error(lambda m: m.distributions.Categorical(logits=m.tensor(1.0)), device=device,
                match="`logits` parameter must be at least one-dimensional.")
    check_error(lambda m: m.distributions.MultivariateNormal(m.zeros(2)), device=device,
                match="Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
    check_error(lambda m: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=m.ones(2)), device=device,
                match="scale_tril matrix must be at least two-dimensional")
    check_error(lambda m: m.distributions.Independent(m.distributions.Normal(m.zeros(2), 1.0), 2), device=device,
                match="Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual 2 vs 1")
    check_error(lambda m: m.distributions.Normal("a", 1.0), device=device,
                match="Input arguments must all be instances of Number")


def test_no_validation_when_disabled(device):
    D = webtorch.distributions
    s = webtorch.tensor([1.0, -2.0], device=device)
    d = D.Normal(webtorch.zeros(2, device=device), s, validate_args=False)
    assert d.log_prob(webtorch.zeros(2, device=device)).shape == (2,)
    D.Distribution.set_default_validate_args(False)
    try:
        D.Exponential(webtorch.tensor([-1.0], device=device)).log_prob(webtorch.tensor([-3.0], device=device))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Exponential(webtorch.tensor([-1.0], device=device))
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args(2)


def test_cholesky_failure_without_validation(device):
    # no argument check: the factorization itself reports the matrix (torch.linalg.LinAlgError, a RuntimeError)
    check_error(lambda m, c: m.distributions.MultivariateNormal(m.zeros(2), c, validate_args=False),
                np.array([[1.0, 2.0], [2.0, 1.0]], np.float32), device=device,
                match="linalg.cholesky: The factorization could not be completed because the input is not "
                      "positive-definite (the leading minor of order 2 is not positive-definite).")


# ---- repr and constraints ----------------------------------------------------------------------------------

def test_repr(device):
    # Uniform's support and arg_constraints hold its tensors, whose repr names a device other than cpu
    check_repr(zip(_dists(webtorch, device), _dists(torch)),
               lambda w: device == "cpu" or not isinstance(w, webtorch.distributions.Uniform))


def test_constraints():
    C, TC = webtorch.distributions.constraints, torch.distributions.constraints
    names = ["boolean", "one_hot", "nonnegative_integer", "positive_integer", "real", "real_vector", "positive",
             "nonnegative", "unit_interval", "simplex", "lower_triangular", "lower_cholesky", "corr_cholesky",
             "square", "symmetric", "positive_definite", "dependent"]
    for n in names:
        assert repr(getattr(C, n)) == repr(getattr(TC, n)), n
        for attr in ("is_discrete", "event_dim"):
            if n != "dependent":
                assert getattr(getattr(C, n), attr) == getattr(getattr(TC, n), attr), (n, attr)
    assert repr(C.interval(-1, 2)) == repr(TC.interval(-1, 2))
    assert repr(C.half_open_interval(0.0, upper_bound=1.0)) == repr(TC.half_open_interval(0.0, upper_bound=1.0))
    assert repr(C.independent(C.positive, 2)) == repr(TC.independent(TC.positive, 2))
    assert C.independent(C.simplex, 1).event_dim == 2
    assert C.is_dependent(webtorch.distributions.Uniform.support)
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(webtorch.zeros(1))


@pytest.mark.parametrize("name", ["real", "positive", "nonnegative", "unit_interval", "boolean", "simplex", "one_hot",
                                  "real_vector", "lower_triangular", "lower_cholesky", "positive_definite",
                                  "symmetric", "square", "corr_cholesky"])
def test_constraint_check(name, device):
    x = np.array([[[1.0, 0.0], [0.5, 1.0]], [[2.0, 1.0], [1.0, 2.0]], [[0.0, 1.0], [1.0, 0.0]],
                  [[-1.0, 0.0], [0.0, np.nan]], [[0.6, 0.0], [0.8, 0.0]], [[1.0, 0.0], [0.0, 1.0]]], np.float32)
    check(lambda m, x: getattr(m.distributions.constraints, name).check(x), x, device=device, grad=False)


# ---- sampling --------------------------------------------------------------------------------------------

def _moments(samples, dims=0):
    s = samples.double() if samples.device.type == "cpu" else samples.float()
    return s.mean(dims).cpu().numpy(), s.var(dims).cpu().numpy()


@pytest.mark.parametrize("make", [
    lambda D, dev: D.Normal(webtorch.tensor([-1.0, 2.0], device=dev), webtorch.tensor([0.5, 2.0], device=dev)),
    lambda D, dev: D.Laplace(webtorch.tensor([0.0, 3.0], device=dev), webtorch.tensor([1.0, 0.5], device=dev)),
    lambda D, dev: D.Exponential(webtorch.tensor([0.5, 4.0], device=dev)),
    lambda D, dev: D.Uniform(webtorch.tensor([-1.0, 2.0], device=dev), webtorch.tensor([1.0, 5.0], device=dev)),
    lambda D, dev: D.Bernoulli(probs=webtorch.tensor([0.1, 0.7], device=dev)),
    lambda D, dev: D.Bernoulli(logits=webtorch.tensor([-2.0, 1.0], device=dev)),
    lambda D, dev: D.OneHotCategorical(probs=webtorch.tensor([0.2, 0.5, 0.3], device=dev)),
], ids=["Normal", "Laplace", "Exponential", "Uniform", "Bernoulli-probs", "Bernoulli-logits", "OneHotCategorical"])
@pytest.mark.parametrize("method", ["sample", "rsample"])
def test_sample_moments(make, method, device):
    webtorch.manual_seed(0)
    d = make(webtorch.distributions, device)
    if method == "rsample" and not d.has_rsample:
        with pytest.raises(NotImplementedError):
            d.rsample()
        return
    s = getattr(d, method)((N_DRAWS,))
    assert not s.requires_grad
    mean, var = _moments(s)
    true_mean, true_var = d.mean.cpu().numpy(), d.variance.cpu().numpy()
    sd_of_mean = np.sqrt(true_var / N_DRAWS)
    np.testing.assert_array_less(np.abs(mean - true_mean), 5 * sd_of_mean + 1e-6)
    np.testing.assert_allclose(var, true_var, rtol=0.1)
    assert bool(d.support.check(s).all())


def test_categorical_sample_frequencies(device):
    webtorch.manual_seed(1)
    probs = webtorch.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], device=device)
    s = webtorch.distributions.Categorical(probs=probs).sample((N_DRAWS,))
    assert s.dtype is webtorch.int64 and tuple(s.shape) == (N_DRAWS, 2)
    freq = np.stack([(s.cpu().numpy() == k).mean(0) for k in range(3)], -1)
    np.testing.assert_allclose(freq, probs.cpu().numpy(), atol=0.015)


def test_multivariate_normal_sample_covariance(device):
    webtorch.manual_seed(2)
    cov = webtorch.tensor([[2.0, 0.8], [0.8, 1.0]], device=device)
    loc = webtorch.tensor([1.0, -1.0], device=device)
    s = webtorch.distributions.MultivariateNormal(loc, covariance_matrix=cov).sample((N_DRAWS,)).cpu().numpy()
    np.testing.assert_allclose(s.mean(0), loc.cpu().numpy(), atol=0.05)
    np.testing.assert_allclose(np.cov(s.T), cov.cpu().numpy(), atol=0.08)


def test_sample_is_reproducible_with_manual_seed(device):
    d = webtorch.distributions.Normal(webtorch.zeros(3, device=device), 1.0)
    webtorch.manual_seed(7)
    a = d.sample((4,)).cpu().numpy()
    webtorch.manual_seed(7)
    b = d.sample((4,)).cpu().numpy()
    np.testing.assert_array_equal(a, b)


# ---- rsample: fixed-noise identities and gradients ---------------------------------------------------------

def _rsample_with_noise(device, make, noise):
    """(rsample, the same draw recomputed from the noise the distribution used)."""
    webtorch.manual_seed(3)
    d = make()
    s = d.rsample((5,))
    webtorch.manual_seed(3)
    return d, s, noise(d, tuple(s.shape))


def test_rsample_identities(device):
    W = webtorch
    loc = W.tensor([0.5, -1.0, 2.0], device=device, requires_grad=True)
    scale = W.tensor([1.0, 0.5, 3.0], device=device, requires_grad=True)
    D = W.distributions
    cases = [
        (lambda: D.Normal(loc, scale), lambda d, sh: loc + scale * W.randn(sh, device=device)),
        (lambda: D.Uniform(loc, loc + scale), lambda d, sh: loc + W.rand(sh, device=device) * scale),
        (lambda: D.Exponential(scale), lambda d, sh: W.empty(sh, device=device).exponential_() / scale),
        (lambda: D.MultivariateNormal(loc, scale_tril=W.diag(scale)),
         lambda d, sh: loc + scale * W.randn(sh, device=device)),
        (lambda: D.Independent(D.Normal(loc, scale), 1), lambda d, sh: loc + scale * W.randn(sh, device=device)),
    ]
    for make, noise in cases:
        d, s, expected = _rsample_with_noise(device, make, noise)
        np.testing.assert_allclose(s.detach().cpu().numpy(), expected.detach().cpu().numpy(), rtol=1e-5, atol=1e-6)
        g_s = W.autograd.grad(s.sum(), [p for p in (loc, scale)], allow_unused=True)
        g_e = W.autograd.grad(expected.sum(), [p for p in (loc, scale)], allow_unused=True)
        for a, b in zip(g_s, g_e):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(a.cpu().numpy(), b.cpu().numpy(), rtol=1e-5, atol=1e-5)


def test_rsample_gradients_normal(device):
    """d/dloc sum(loc + scale * eps) = n per element; d/dscale = sum(eps) = sum((x - loc) / scale)."""
    loc = webtorch.tensor([0.5, -1.0], device=device, requires_grad=True)
    scale = webtorch.tensor([2.0, 0.5], device=device, requires_grad=True)
    x = webtorch.distributions.Normal(loc, scale).rsample((100,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.cpu().numpy(), [100.0, 100.0])
    eps = ((x.detach() - loc.detach()) / scale.detach()).sum(0)
    np.testing.assert_allclose(scale.grad.cpu().numpy(), eps.cpu().numpy(), rtol=1e-4, atol=1e-4)


def test_laplace_rsample_gradient(device):
    loc = webtorch.tensor([0.5], device=device, requires_grad=True)
    scale = webtorch.tensor([2.0], device=device, requires_grad=True)
    x = webtorch.distributions.Laplace(loc, scale).rsample((50,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.cpu().numpy(), [50.0])
    np.testing.assert_allclose(scale.grad.cpu().numpy(), ((x.detach() - 0.5) / 2.0).sum(0).cpu().numpy(), rtol=1e-4)


def test_straight_through_rsample_gradient(device):
    logits = webtorch.tensor([0.1, 1.0, -0.5], device=device, requires_grad=True)
    d = webtorch.distributions.OneHotCategoricalStraightThrough(logits=logits)
    s = d.rsample((4,))
    assert set(s.detach().sum(-1).cpu().numpy().tolist()) == {1.0}
    w = webtorch.tensor([1.0, 2.0, 3.0], device=device)
    (s * w).sum().backward()
    # the gradient is that of probs (the sample's forward value is constant)
    tl = torch.tensor([0.1, 1.0, -0.5], requires_grad=True)
    (4 * (tl.softmax(-1) * torch.tensor([1.0, 2.0, 3.0]))).sum().backward()
    np.testing.assert_allclose(logits.grad.cpu().numpy(), tl.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_reinforce_style_policy_gradient(device):
    """The RL tutorial pattern: Categorical(logits).sample(), log_prob(action) * reward, backward."""
    webtorch.manual_seed(4)
    logits = webtorch.zeros(8, 4, device=device, requires_grad=True)
    d = webtorch.distributions.Categorical(logits=logits)
    a = d.sample()
    loss = -(d.log_prob(a) * 2.0).sum() - 0.01 * d.entropy().sum()
    loss.backward()
    onehot = np.eye(4)[a.cpu().numpy()]
    np.testing.assert_allclose(logits.grad.cpu().numpy(), -2.0 * (onehot - 0.25), atol=1e-6)
    assert math.isfinite(float(loss))
