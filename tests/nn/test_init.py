"""nn.init against PyTorch: gains, fans, error messages, and the distributions each initializer draws."""
import math

import numpy as np
import pytest
import torch

import webtorch
from webtorch.nn import init


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


@pytest.mark.parametrize("args", [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
                                  ("leaky_relu", 0.2), ("leaky_relu", 1), ("selu",), ("conv_transpose2d",)])
def test_calculate_gain(args):
    assert init.calculate_gain(*args) == pytest.approx(torch.nn.init.calculate_gain(*args))


@pytest.mark.parametrize("args", [("softmax",), ("leaky_relu", True), ("leaky_relu", "x")])
def test_calculate_gain_errors(args):
    with pytest.raises(ValueError) as t_info:
        torch.nn.init.calculate_gain(*args)
    with pytest.raises(ValueError) as w_info:
        init.calculate_gain(*args)
    assert str(w_info.value) == str(t_info.value)


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (6, 4, 3, 2), (2, 3, 1, 1, 4)])
def test_fans(shape):
    assert init._calculate_fan_in_and_fan_out(webtorch.empty(shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


def _same_error(fn):
    with pytest.raises(Exception) as t_info:
        fn(torch)
    with pytest.raises(type(t_info.value)) as w_info:
        fn(webtorch)
    assert str(w_info.value) == str(t_info.value)


@pytest.mark.parametrize("case", range(6))
def test_errors_match_torch(case):
    fns = [
        lambda m: m.nn.init.xavier_uniform_(m.empty(3)),
        lambda m: m.nn.init.kaiming_normal_(m.empty(3, 4), mode="fan_avg"),
        lambda m: m.nn.init.eye_(m.empty(3, 4, 5)),
        lambda m: m.nn.init.dirac_(m.empty(3, 4)),
        lambda m: m.nn.init.dirac_(m.empty(3, 4, 3), groups=2),
        lambda m: m.nn.init.orthogonal_(m.empty(3)),
    ]
    _same_error(fns[case])


def _moments(fn, shape, n_draws=1):
    x = np.concatenate([_np(fn(webtorch.empty(shape))).ravel() for _ in range(n_draws)])
    return x.mean(), x.std(), x.min(), x.max()


def test_uniform_and_normal(device):
    x = _np(init.uniform_(webtorch.empty(200, 100, device=device), -2.0, 3.0))
    assert x.min() >= -2.0 and x.max() <= 3.0 and abs(x.mean() - 0.5) < 0.05
    assert abs(x.std() - 5 / math.sqrt(12)) < 0.03
    x = _np(init.normal_(webtorch.empty(200, 100, device=device), 1.5, 0.5))
    assert abs(x.mean() - 1.5) < 0.02 and abs(x.std() - 0.5) < 0.02


def test_generator_reproducible():
    g1 = webtorch.Generator().manual_seed(3)
    g2 = webtorch.Generator().manual_seed(3)
    a = init.kaiming_uniform_(webtorch.empty(4, 5), generator=g1)
    b = init.kaiming_uniform_(webtorch.empty(4, 5), generator=g2)
    np.testing.assert_array_equal(_np(a), _np(b))


@pytest.mark.parametrize("name,kw,shape", [
    ("xavier_uniform_", {}, (300, 200)),
    ("xavier_uniform_", {"gain": 2.0}, (64, 32, 3, 3)),
    ("xavier_normal_", {}, (300, 200)),
    ("kaiming_uniform_", {}, (300, 200)),
    ("kaiming_uniform_", {"a": math.sqrt(5)}, (64, 32, 3, 3)),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, (300, 200)),
    ("kaiming_normal_", {}, (300, 200)),
    ("kaiming_normal_", {"a": 0.1, "mode": "fan_out", "nonlinearity": "leaky_relu"}, (64, 32, 3, 3)),
    ("trunc_normal_", {}, (300, 200)),
    ("trunc_normal_", {"mean": 1.0, "std": 0.5, "a": 0.5, "b": 2.0}, (300, 200)),
    ("normal_", {"std": 0.02}, (300, 200)),
])
def test_distribution_matches_torch(name, kw, shape):
    w = _np(getattr(init, name)(webtorch.empty(shape), **kw))
    t = getattr(torch.nn.init, name)(torch.empty(shape), **kw).numpy().astype(np.float64)
    n = w.size
    assert abs(w.mean() - t.mean()) < 6 * t.std() / math.sqrt(n)
    assert abs(w.std() - t.std()) < 0.03 * t.std()
    if "uniform" in name or name == "trunc_normal_":
        # same bounds: both reach close to them, neither goes past
        lo, hi = t.min(), t.max()
        span = hi - lo
        assert w.min() >= lo - 1e-3 * span and w.max() <= hi + 1e-3 * span
        assert w.min() <= lo + 1e-2 * span and w.max() >= hi - 1e-2 * span
    if name == "trunc_normal_":
        a, b = kw.get("a", -2.0), kw.get("b", 2.0)
        assert w.min() >= a and w.max() <= b


def test_constant_zeros_ones_eye():
    t = init.constant_(webtorch.empty(2, 3), 0.25)
    assert np.all(_np(t) == 0.25)
    assert not np.any(_np(init.zeros_(webtorch.ones(3))))
    assert np.all(_np(init.ones_(webtorch.zeros(3))) == 1)
    np.testing.assert_array_equal(_np(init.eye_(webtorch.empty(3, 5))), np.eye(3, 5))


@pytest.mark.parametrize("shape,groups", [((4, 4, 3), 1), ((6, 4, 3, 3), 1), ((8, 2, 3, 3), 2), ((4, 6, 2, 3, 3), 1),
                                          ((6, 3, 5), 3), ((2, 4, 4, 4), 1)])
def test_dirac_matches_torch(shape, groups):
    np.testing.assert_array_equal(_np(init.dirac_(webtorch.empty(shape), groups)),
                                  torch.nn.init.dirac_(torch.empty(shape), groups).numpy())


def test_dirac_conv_is_identity():
    conv = webtorch.nn.Conv2d(3, 3, 3, padding=1, bias=False)
    init.dirac_(conv.weight)
    x = webtorch.randn(1, 3, 5, 5)
    np.testing.assert_allclose(_np(conv(x)), _np(x), atol=1e-6)


@pytest.mark.parametrize("shape,gain", [((6, 6), 1.0), ((5, 9), 1.0), ((9, 5), 2.0), ((4, 2, 3, 3), 1.0)])
def test_orthogonal(shape, gain):
    t = init.orthogonal_(webtorch.empty(shape), gain=gain)
    q = _np(t).reshape(shape[0], -1)
    rows, cols = q.shape
    gram = q @ q.T if rows <= cols else q.T @ q
    np.testing.assert_allclose(gram, gain ** 2 * np.eye(min(rows, cols)), atol=2e-5)


def test_orthogonal_is_haar_distributed():
    # the entries of a Haar-random orthogonal n x n matrix have variance 1/n and mean 0
    x = np.concatenate([_np(init.orthogonal_(webtorch.empty(16, 16))).ravel() for _ in range(40)])
    assert abs(x.mean()) < 0.01 and abs(x.var() - 1 / 16) < 0.005


def test_sparse():
    t = _np(init.sparse_(webtorch.empty(10, 40), sparsity=0.3, std=0.5))
    assert np.all((t == 0).sum(0) == 3)
    nz = t[t != 0]
    assert abs(nz.std() - 0.5) < 0.1


def test_zero_element_kaiming_warns():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(webtorch.empty(0, 3))


def test_init_does_not_record_autograd():
    p = webtorch.nn.Parameter(webtorch.empty(3, 4))
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.kaiming_normal_, init.trunc_normal_,
               init.orthogonal_, init.zeros_, init.ones_, init.eye_):
        out = fn(p)
        assert out is p and p.grad_fn is None and p.requires_grad and p.is_leaf
