"""Dropout family (statistics, exact mask reuse in backward, channel-wise patterns, edge cases, errors),
scaled_dot_product_attention, F.linear and F.bilinear against PyTorch."""
import math
import warnings

import numpy as np
import pytest

import webtorch
from optest import check, check_error, rand

Fw = webtorch.nn.functional


def _x(*shape, device, low=0.5, high=1.5):
    """Strictly positive input, so a zero in the output means 'dropped'."""
    return webtorch.tensor(rand(*shape, low=low, high=high), device=device, requires_grad=True)


# ---- dropout ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_statistics_and_mask_reuse(p, device):
    webtorch.manual_seed(1)
    x = _x(100, 200, device=device)
    y = Fw.dropout(x, p)
    assert y.grad_fn.name() == "MulBackward0"
    xn, yn = x.detach().cpu().numpy(), y.detach().cpu().numpy()
    kept = yn != 0
    assert abs(1 - kept.mean() - p) < 0.01
    np.testing.assert_allclose(yn[kept], xn[kept] / (1 - p), rtol=1e-6)
    y.backward(webtorch.ones_like(y))
    np.testing.assert_allclose(x.grad.cpu().numpy(), kept / (1 - p), rtol=1e-6)


def test_dropout_is_reproducible_with_manual_seed(device):
    x = _x(50, 40, device=device)
    webtorch.manual_seed(7)
    a = Fw.dropout(x, 0.5).detach().cpu().numpy()
    webtorch.manual_seed(7)
    b = Fw.dropout(x, 0.5).detach().cpu().numpy()
    c = Fw.dropout(x, 0.5).detach().cpu().numpy()
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_dropout_edge_cases(device):
    check(lambda m, x: (m.nn.functional.dropout(x, 0.0), m.nn.functional.dropout(x, 1.0),
                        m.nn.functional.dropout(x, 0.7, training=False), m.dropout(x, 1.0, True),
                        m.nn.functional.dropout2d(x.reshape(2, 3, 2, 1), 1.0),
                        m.nn.functional.alpha_dropout(x, 0.5), m.nn.functional.alpha_dropout(x, 1.0, True)),
          rand(3, 4), device=device)
    check(lambda m, x: m.nn.functional.dropout(x, 0.5), np.zeros((0, 3), dtype=np.float32), device=device)


def test_dropout_errors(device):
    for fn in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"):
        for p in (-0.1, 1.5):
            check_error(lambda m, x: getattr(m.nn.functional, fn)(x, p), rand(2, 3, 4), device=device,
                        match=f"dropout probability has to be between 0 and 1, but got {p}")
    check_error(lambda m, x: m.nn.functional.dropout1d(x), rand(2, 3, 4, 5), device=device,
                match="dropout1d: Expected 2D or 3D input, but received a 4D input.")


def test_dropout_inplace(device):
    webtorch.manual_seed(3)
    x = _x(40, 50, device=device)
    y = x * 1
    z = Fw.dropout(y, 0.4, inplace=True)
    assert z is y and y._version[0] > 0
    kept = y.detach().cpu().numpy() != 0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), kept / 0.6, rtol=1e-6)


@pytest.mark.parametrize("fn,shape,batched", [("dropout1d", (8, 30, 5), True), ("dropout1d", (30, 5), False),
                                              ("dropout2d", (8, 30, 3, 3), True),
                                              ("dropout3d", (8, 30, 2, 2, 2), True),
                                              ("dropout3d", (30, 2, 2, 2), False)])
def test_channel_dropout_drops_whole_channels(fn, shape, batched, device):
    webtorch.manual_seed(5)
    x = _x(*shape, device=device)
    y = getattr(Fw, fn)(x, 0.5)
    yn = y.detach().cpu().numpy()
    per_channel = yn.reshape(((shape[0] * shape[1],) if batched else (shape[0],)) + (-1,))
    zero = (per_channel == 0).all(-1)
    assert ((per_channel != 0).all(-1) | zero).all()
    assert 0.3 < zero.mean() < 0.7
    y.backward(webtorch.ones_like(y))
    np.testing.assert_allclose(x.grad.cpu().numpy(), (yn != 0) * 2.0, rtol=1e-6)


def test_dropout2d_warnings(device):
    x = _x(2, 3, 4, device=device)
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input to dropout2d"):
        Fw.dropout2d(x)
    with pytest.warns(UserWarning, match="dropout2d: Received a 2-D input to dropout2d, which is deprecated"):
        Fw.dropout2d(x.reshape(6, 4))


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_keeps_selu_statistics(feature, device):
    webtorch.manual_seed(11)
    p = 0.3
    x = webtorch.randn(200, 64, 8, device=device, requires_grad=True)
    fn = Fw.feature_alpha_dropout if feature else Fw.alpha_dropout
    y = fn(x, p, training=True)
    y.sum().backward()
    yn, xn, gn = y.detach().cpu().numpy(), x.detach().cpu().numpy(), x.grad.cpu().numpy()
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    dropped = gn == 0  # the backward reuses the forward's mask: gradient a where kept, 0 where dropped
    np.testing.assert_allclose(gn[~dropped], a, rtol=1e-6)
    np.testing.assert_allclose(yn[dropped], -alpha * a * (1 - p), rtol=1e-5)
    np.testing.assert_allclose(yn[~dropped], xn[~dropped] * a + alpha * a * p, rtol=1e-5, atol=1e-6)
    assert abs(dropped.mean() - p) < 0.02
    assert abs(yn.mean()) < 0.05 and abs(yn.std() - 1) < 0.05
    if feature:
        d = dropped.reshape(200 * 64, 8)
        assert (d.all(-1) | ~d.any(-1)).all()


def test_torch_namespace_dropouts(device):
    webtorch.manual_seed(2)
    x = _x(30, 20, device=device)
    for fn in (webtorch.dropout, webtorch.feature_dropout, webtorch.alpha_dropout, webtorch.feature_alpha_dropout):
        assert fn(x, 0.5, False) is x
        y = fn(x, 0.5, True)
        assert tuple(y.shape) == (30, 20) and y.requires_grad
    y = x * 1
    assert webtorch.dropout_(y, 0.5, True) is y


# ---- attention ------------------------------------------------------------------------------------------------

def sdpa(m):
    return m.nn.functional.scaled_dot_product_attention


def test_sdpa_basic(device):
    check(lambda m, q, k, v: sdpa(m)(q, k, v), rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 6), device=device)
    check(lambda m, q, k, v: sdpa(m)(q, k, v, scale=0.3), rand(2, 2, 3, 4), rand(2, 2, 5, 4), rand(2, 2, 5, 6),
          device=device)

def test_sdpa_float64():
    check(lambda m, q, k, v: sdpa(m)(q, k, v), rand(2, 3, 4).astype(np.float64), rand(2, 5, 4).astype(np.float64),
          rand(2, 5, 6).astype(np.float64), device="cpu", atol=1e-10, rtol=1e-9)  # float64 is a cpu dtype


def test_sdpa_causal(device):
    check(lambda m, q, k, v: sdpa(m)(q, k, v, is_causal=True), rand(2, 2, 4, 3), rand(2, 2, 4, 3),
          rand(2, 2, 4, 5), device=device)
    check(lambda m, q, k, v: sdpa(m)(q, k, v, is_causal=True), rand(1, 3, 4), rand(1, 6, 4), rand(1, 6, 2),
          device=device)


def test_sdpa_masks(device):
    bool_mask = rand(3, 5) > -0.3
    bool_mask[:, 0] = True
    float_mask = rand(2, 1, 3, 5)
    check(lambda m, q, k, v: sdpa(m)(q, k, v, attn_mask=m.tensor(bool_mask, device=q.device)), rand(2, 2, 3, 4), rand(2, 2, 5, 4),
          rand(2, 2, 5, 6), device=device)
    check(lambda m, q, k, v, fm: sdpa(m)(q, k, v, attn_mask=fm), rand(2, 2, 3, 4), rand(2, 2, 5, 4),
          rand(2, 2, 5, 6), float_mask, device=device)


def test_sdpa_fully_masked_row_gives_zeros(device):
    mask = np.ones((3, 5), dtype=bool)
    mask[1] = False
    fmask = np.zeros((3, 5), dtype=np.float32)
    fmask[2] = -np.inf
    check(lambda m, q, k, v: (sdpa(m)(q, k, v, attn_mask=m.tensor(mask, device=q.device)), sdpa(m)(q, k, v, attn_mask=m.tensor(fmask, device=q.device))),
          rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 6), device=device)


def test_sdpa_gqa(device):
    check(lambda m, q, k, v: sdpa(m)(q, k, v, enable_gqa=True), rand(1, 4, 3, 2), rand(1, 2, 5, 2), rand(1, 2, 5, 3),
          device=device)


def test_sdpa_dropout(device):
    check(lambda m, q, k, v: sdpa(m)(q, k, v, dropout_p=1.0), rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 6),
          device=device)
    webtorch.manual_seed(0)
    q, k = webtorch.randn(1, 64, 8, device=device), webtorch.randn(1, 64, 8, device=device)
    v = webtorch.ones(1, 64, 1, device=device)
    out = sdpa(webtorch)(q, k, v, dropout_p=0.5).cpu().numpy()
    assert abs(out.mean() - 1.0) < 0.15 and out.std() > 0.05  # rows sum to 1 in expectation, not exactly


def test_sdpa_errors(device):
    check_error(lambda m, q: sdpa(m)(q, q, q, attn_mask=m.ones(3, 3, dtype=m.bool, device=q.device), is_causal=True), rand(2, 3, 4),
                device=device, match="Explicit attn_mask should not be set when is_causal=True")
    check_error(lambda m, q, v: sdpa(m)(q, q, v), rand(2, 3, 4), rand(2, 3, 4).astype(np.float16), device=device,
                match="Expected query, key, and value to have the same dtype")
    check_error(lambda m, q, k: sdpa(m)(q, k, k, enable_gqa=True), rand(1, 4, 3, 2), rand(1, 3, 5, 2),
                device=device, match="Number of heads in key and value must divide the number of heads in")


# ---- linear / bilinear ------------------------------------------------------------------------------------------

def test_linear(device):
    out = check(lambda m, x, w, b: m.nn.functional.linear(x, w, b), rand(4, 3), rand(5, 3), rand(5), device=device)
    assert out.grad_fn.name() == "AddmmBackward0"
    check(lambda m, x, w, b: (m.nn.functional.linear(x, w, b), m.nn.functional.linear(x, w)), rand(2, 4, 3),
          rand(5, 3), rand(5), device=device)
    check(lambda m, x, w: m.nn.functional.linear(x, w), rand(3), rand(5, 3), device=device)


def test_bilinear(device):
    check(lambda m, a, b, w, bias: m.nn.functional.bilinear(a, b, w, bias), rand(4, 3), rand(4, 2), rand(5, 3, 2),
          rand(5), device=device)
    check(lambda m, a, b, w: m.nn.functional.bilinear(a, b, w), rand(2, 4, 3), rand(2, 4, 2), rand(5, 3, 2),
          device=device)


def test_no_warning_leak_from_fused_ops(device):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Fw.dropout(_x(3, 3, device=device), 0.5)
        sdpa(webtorch)(_x(1, 2, 2, device=device), _x(1, 2, 2, device=device), _x(1, 2, 2, device=device))
