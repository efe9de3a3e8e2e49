"""Random fills and sampling: reproducibility (manual_seed, Generator), moments, bounds, dtype rules, errors."""
import math

import numpy as np
import pytest

import webtorch
from optest import check_error, webgpu_dtype_error

N = 20000


def _fills(device):
    """name -> (fill(t, generator), expected mean, expected std or None)."""
    return {
        "uniform_": (lambda t, g: t.uniform_(-2.0, 4.0, generator=g), 1.0, 6 / math.sqrt(12)),
        "normal_": (lambda t, g: t.normal_(3.0, 0.5, generator=g), 3.0, 0.5),
        "exponential_": (lambda t, g: t.exponential_(2.0, generator=g), 0.5, 0.5),
        "log_normal_": (lambda t, g: t.log_normal_(0.0, 0.5, generator=g), math.exp(0.125),
                        math.sqrt((math.exp(0.25) - 1) * math.exp(0.25))),
        "geometric_": (lambda t, g: t.geometric_(0.25, generator=g), 4.0, math.sqrt(0.75) / 0.25),
        "bernoulli_": (lambda t, g: t.bernoulli_(0.3, generator=g), 0.3, math.sqrt(0.21)),
        "random_": (lambda t, g: t.random_(10, generator=g), 4.5, math.sqrt(99 / 12)),
        "random_from_to": (lambda t, g: t.random_(-3, 3, generator=g), -0.5, math.sqrt(35 / 12)),
    }


@pytest.mark.parametrize("name", ["uniform_", "normal_", "exponential_", "log_normal_", "geometric_", "bernoulli_",
                                  "random_", "random_from_to"])
def test_fill_moments_and_reproducibility(name, device):
    fill, mean, std = _fills(device)[name]
    g = webtorch.Generator(device).manual_seed(123)
    a = fill(webtorch.zeros(N, device=device), g)
    assert a.dtype == webtorch.float32 and a.shape == (N,)
    v = a.numpy().astype(np.float64) if device == "cpu" else a.cpu().numpy().astype(np.float64)
    assert abs(v.mean() - mean) < 5 * std / math.sqrt(N) + 1e-3, (v.mean(), mean)
    assert abs(v.std() - std) < 0.05 * std, (v.std(), std)
    b = fill(webtorch.zeros(N, device=device), webtorch.Generator(device).manual_seed(123))
    assert np.array_equal(a.cpu().numpy(), b.cpu().numpy())
    c = fill(webtorch.zeros(N, device=device), webtorch.Generator(device).manual_seed(124))
    assert not np.array_equal(a.cpu().numpy(), c.cpu().numpy())


def test_manual_seed_default_generator(device):
    webtorch.manual_seed(7)
    a = webtorch.empty(100, device=device).normal_()
    b = webtorch.empty(100, device=device).uniform_()
    webtorch.manual_seed(7)
    assert np.array_equal(webtorch.empty(100, device=device).normal_().cpu().numpy(), a.cpu().numpy())
    assert np.array_equal(webtorch.empty(100, device=device).uniform_().cpu().numpy(), b.cpu().numpy())


def test_bounds_and_integer_dtypes(device):
    g = webtorch.Generator(device).manual_seed(0)
    u = webtorch.empty(N, device=device).uniform_(2.0, 3.0, generator=g).cpu().numpy()
    assert u.min() >= 2.0 and u.max() < 3.0
    e = webtorch.empty(N, device=device).exponential_(generator=g).cpu().numpy()
    assert e.min() >= 0 and np.isfinite(e).all()
    geo = webtorch.empty(N, device=device).geometric_(0.9, generator=g).cpu().numpy()
    assert geo.min() >= 1 and np.all(geo == np.round(geo))
    r = webtorch.zeros(N, dtype=webtorch.int64, device=device).random_(-5, 5, generator=g)
    assert r.dtype == webtorch.int64
    rn = r.cpu().numpy()
    assert rn.min() == -5 and rn.max() == 4
    i32 = webtorch.zeros(N, dtype=webtorch.int32, device=device).random_(generator=g).cpu().numpy()
    assert i32.min() >= 0 and i32.max() > 2 ** 30
    f = webtorch.zeros(N, device=device).random_(generator=g).cpu().numpy()
    assert f.min() >= 0 and f.max() <= 2 ** 24 and np.all(f == np.round(f))
    bl = webtorch.zeros(100, dtype=webtorch.bool, device=device).random_(generator=g).cpu().numpy()
    assert bl.dtype == np.bool_ and bl.any() and not bl.all()
    bi = webtorch.zeros(1000, dtype=webtorch.int64, device=device).bernoulli_(0.5, generator=g)
    assert bi.dtype == webtorch.int64 and set(np.unique(bi.cpu().numpy())) == {0, 1}


def test_cauchy_median(device):
    c = webtorch.empty(N, device=device).cauchy_(1.0, 2.0, generator=webtorch.Generator(device).manual_seed(3))
    v = c.cpu().numpy()
    assert abs(np.median(v) - 1.0) < 0.1
    assert abs(np.percentile(v, 75) - 3.0) < 0.2  # quartiles at median +- sigma


def test_bernoulli_tensor_p(device):
    p = webtorch.tensor([0.0, 1.0, 0.25, 0.75], device=device).expand(N, 4).contiguous()
    g = webtorch.Generator(device).manual_seed(1)
    s = webtorch.bernoulli(p, generator=g)
    assert s.dtype == webtorch.float32 and s.shape == (N, 4)
    m = s.cpu().numpy().mean(0)
    assert m[0] == 0 and m[1] == 1 and abs(m[2] - 0.25) < 0.02 and abs(m[3] - 0.75) < 0.02
    s2 = webtorch.bernoulli(p, 0.5, generator=g).cpu().numpy()
    assert abs(s2.mean() - 0.5) < 0.02
    z = webtorch.zeros(N, device=device).bernoulli_(webtorch.full((N,), 0.2, device=device), generator=g)
    assert abs(z.cpu().numpy().mean() - 0.2) < 0.02
    a = p.bernoulli(generator=webtorch.Generator(device).manual_seed(9)).cpu().numpy()
    b = p.bernoulli(generator=webtorch.Generator(device).manual_seed(9)).cpu().numpy()
    assert np.array_equal(a, b)


def test_multinomial(device):
    g = webtorch.Generator(device).manual_seed(5)
    w = webtorch.tensor([1.0, 0.0, 3.0, 4.0], device=device)
    s = webtorch.multinomial(w, N, replacement=True, generator=g)
    assert s.dtype == webtorch.int64 and s.shape == (N,)
    freq = np.bincount(s.cpu().numpy(), minlength=4) / N
    np.testing.assert_allclose(freq, [0.125, 0.0, 0.375, 0.5], atol=0.015)
    no_rep = webtorch.multinomial(w.expand(500, 4).contiguous(), 3, generator=g).cpu().numpy()
    assert no_rep.shape == (500, 3)
    assert all(len(set(r)) == 3 and 1 not in r for r in no_rep)
    # first draw of a draw without replacement follows the weights
    freq1 = np.bincount(webtorch.multinomial(w.expand(N, 4).contiguous(), 1, generator=g).cpu().numpy().ravel(),
                        minlength=4) / N
    np.testing.assert_allclose(freq1, [0.125, 0.0, 0.375, 0.5], atol=0.015)
    # zero-weight categories come last once the others are used up (as PyTorch)
    assert webtorch.multinomial(webtorch.tensor([1.0, 0.0, 0.0], device=device), 2, generator=g).tolist() == [0, 1]
    a = webtorch.multinomial(w, 10, True, generator=webtorch.Generator(device).manual_seed(2))
    b = w.multinomial(10, True, generator=webtorch.Generator(device).manual_seed(2))
    assert a.tolist() == b.tolist()


def test_random_errors(device):
    z = np.zeros(3, dtype=np.float32)
    check_error(lambda m, t: t.uniform_(2, 1), z, device=device,
                match="uniform_ expects to return a [from, to) range, but found from=2 > to=1")
    check_error(lambda m, t: t.normal_(0, -1), z, device=device, match="normal expects std >= 0.0, but found std -1")
    check_error(lambda m, t: t.bernoulli_(1.5), z, device=device,
                match="bernoulli_ expects p to be in [0, 1], but got p=1.5")
    check_error(lambda m, t: t.geometric_(0), z, device=device, match="geometric_ expects p to be in (0, 1)")
    check_error(lambda m, t: t.exponential_(-1), z, device=device, match="exponential_ expects lambda > 0.0")
    check_error(lambda m, t: t.cauchy_(0, -1), z, device=device, match="cauchy_ expects sigma > 0.0")
    check_error(lambda m, t: t.log_normal_(0, -1), z, device=device, match="log_normal_ expects std > 0.0")
    check_error(lambda m, t: t.uniform_(), np.zeros(3, np.int64), device=device,
                match="\"check_uniform_bounds\" not implemented for 'Long'")
    check_error(lambda m, t: t.normal_(), np.zeros(3, np.int64), device=device, match="not implemented for 'Long'")
    check_error(lambda m, t: m.bernoulli(t), np.array([2.0], np.float32), device=device)
    check_error(lambda m, t: m.multinomial(t, 4), np.array([1.0, 0, 2], np.float32), device=device,
                match="cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    check_error(lambda m, t: m.multinomial(t, 1, True), np.zeros(3, np.float32), device=device,
                match="invalid multinomial distribution (sum of probabilities <= 0)")
    check_error(lambda m, t: m.multinomial(t, 1), np.array([-1.0, 2, 0], np.float32), device=device,
                match="probability tensor contains either `inf`, `nan` or element < 0")
    check_error(lambda m, t: t.random_(3, 3), z, device=device,
                match="random_ expects 'from' to be less than 'to', but got from=3 >= to=3")


def test_fill_autograd_rules(device):
    leaf = webtorch.zeros(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        leaf.uniform_()
    with webtorch.no_grad():
        leaf.normal_()
    x = webtorch.ones(3, device=device, requires_grad=True)
    y = x * 2
    y.uniform_()
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_fill_returns_self_and_float64(device):
    with webgpu_dtype_error(device):
        t = webtorch.zeros(N, dtype=webtorch.float64, device=device)
        assert t.normal_(generator=webtorch.Generator().manual_seed(0)) is t
        assert t.dtype == webtorch.float64 and abs(t.numpy().std() - 1) < 0.05
