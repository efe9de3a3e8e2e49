"""interpolate (every mode) and adaptive average pooling with NaN and ±inf in the input and in the upstream gradient,
against PyTorch: each output reads only the taps PyTorch's CPU kernel reads, zero-weight taps included (an inf beside
a tap of weight 0 gives NaN, an inf no tap reads stays out), forward and backward; plus PyTorch's index rules that
decide which taps those are (nearest's equal/doubled-size shortcut, bicubic's same-size gradient copy)."""
import numpy as np
import pytest
import torch

import webtorch
from optest import assert_close, check

INF, NAN = float("inf"), float("nan")


def nonfinite(*shape, seed=0):
    """Random values with inf at the first element, -inf at the last, NaN and inf in the middle."""
    a = np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)
    flat = a.reshape(-1)
    flat[0], flat[-1], flat[flat.size // 2], flat[flat.size // 3] = INF, -INF, NAN, INF
    return a


def F(m):
    return m.nn.functional


_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}
CASES = []
for n, spatial in ((1, (5,)), (2, (5, 4)), (3, (3, 4, 3))):
    for mode in ("nearest", "nearest-exact", _LINEAR[n], "area") + (("bicubic",) if n == 2 else ()):
        corners = (False, True) if mode in ("linear", "bilinear", "trilinear", "bicubic") else (None,)
        for ac in corners:
            for kw in ({"size": tuple(2 * s + 1 for s in spatial)}, {"size": spatial}, {"size": (2,) * n},
                       {"scale_factor": 2.0}, {"scale_factor": 0.6}, {"scale_factor": 2.3},
                       {"scale_factor": 1.2, "recompute_scale_factor": True}):
                if mode == "area" and "scale_factor" in kw and kw["scale_factor"] > 1:
                    continue
                CASES.append(((2, 3) + spatial, dict(kw, mode=mode, align_corners=ac)))


def _id(case):
    shape, kw = case
    return f"{len(shape) - 2}d-" + "-".join(f"{k}={v}" for k, v in kw.items() if v is not None)


@pytest.mark.parametrize("shape,kw", CASES, ids=[_id(c) for c in CASES])
def test_interpolate_nonfinite(device, shape, kw):
    check(lambda m, x: F(m).interpolate(x, **kw), nonfinite(*shape), device=device)


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("out", [1, 2, 3, 4, 7])
def test_adaptive_avg_pool_nonfinite(device, n, out):
    fn = f"adaptive_avg_pool{n}d"
    check(lambda m, x: getattr(F(m), fn)(x, out), nonfinite(2, 3, *(5, 4, 6)[:n]), device=device)
    check(lambda m, x: getattr(F(m), fn)(x, out), nonfinite(3, *(6, 5, 4)[:n], seed=1), device=device)


def _grad_with_nonfinite_upstream(lib, device, fn, x, seed):
    xt = lib.tensor(x, device=device, requires_grad=True) if lib is webtorch else torch.tensor(x, requires_grad=True)
    y = fn(lib, xt)
    g = nonfinite(*y.shape, seed=seed)
    y.backward(lib.tensor(g, device=device) if lib is webtorch else torch.tensor(g))
    return xt.grad


BACKWARD_CASES = [c for c in CASES if c[1]["mode"] != "area"][::3] + [
    ((2, 3, 5, 4), {"size": (5, 4), "mode": "bicubic", "align_corners": False}),   # PyTorch copies this gradient
    ((2, 3, 3), {"scale_factor": 2.3, "mode": "nearest"}),                        # its doubled-size shortcut
    ((2, 3, 3, 3, 3), {"scale_factor": 2.3, "mode": "nearest"}),
    ((2, 3, 7, 6), {"size": (3, 4), "mode": "area"}),
]


@pytest.mark.parametrize("shape,kw", BACKWARD_CASES, ids=[_id(c) for c in BACKWARD_CASES])
def test_interpolate_backward_nonfinite_gradient(device, shape, kw):
    """An inf or NaN in the upstream gradient reaches exactly the inputs PyTorch's backward kernel adds it to."""
    x = np.random.default_rng(3).uniform(-1, 1, shape).astype(np.float32)
    def fn(m, t):
        return F(m).interpolate(t, **kw)
    ours = _grad_with_nonfinite_upstream(webtorch, device, fn, x, seed=4)
    assert_close(ours, _grad_with_nonfinite_upstream(torch, None, fn, x, seed=4), 1e-5, 1e-4, "grad")


@pytest.mark.parametrize("n", [1, 2, 3])
def test_adaptive_avg_pool_backward_nonfinite_gradient(device, n):
    x = np.random.default_rng(5).uniform(-1, 1, (2, 3) + (7, 5, 6)[:n]).astype(np.float32)
    def fn(m, t):
        return getattr(F(m), f"adaptive_avg_pool{n}d")(t, 3)
    ours = _grad_with_nonfinite_upstream(webtorch, device, fn, x, seed=6)
    assert_close(ours, _grad_with_nonfinite_upstream(torch, None, fn, x, seed=6), 1e-5, 1e-4, "grad")


def test_nearest_index_rules(device):
    # PyTorch's 2-d nearest forward and every nearest backward take output index // 2 when the size doubles and the
    # index itself when it stays, whatever the scale factor; its 1-d and 3-d forwards use the scale factor
    for shape in ((1, 2, 3), (1, 2, 3, 3), (1, 2, 3, 3, 3)):
        for sf in (2.3, 1.2):
            check(lambda m, x: F(m).interpolate(x, scale_factor=sf, mode="nearest"),
                  np.arange(np.prod(shape), dtype=np.float32).reshape(shape), device=device)


def test_resample_grad_fn_names(device):
    x = webtorch.tensor(np.ones((1, 2, 4, 4), np.float32), device=device, requires_grad=True)
    y = F(webtorch).interpolate(x, scale_factor=2, mode="bilinear")
    g = webtorch.ones_like(y, requires_grad=True)
    (gx,) = webtorch.autograd.grad(y, x, g, create_graph=True)
    assert type(gx.grad_fn).__name__ == "UpsampleBilinear2DBackwardBackward0"
    # double backward: the gradient of the gradient w.r.t. the upstream gradient is the forward map again
    check(lambda m, x, g: m.autograd.grad(F(m).interpolate(x, scale_factor=2, mode="bilinear"), x, g,
                                          create_graph=True)[0],
          nonfinite(1, 2, 3, 3), np.random.default_rng(7).uniform(-1, 1, (1, 2, 6, 6)).astype(np.float32),
          device=device)


@pytest.mark.parametrize("n,size", [(1, 0), (2, (0, 3)), (3, (2, 0, 2))])
def test_adaptive_avg_pool_to_empty_output(device, n, size):
    # an output_size of 0 gives an empty result; its backward raises PyTorch's RuntimeError
    fn = f"adaptive_avg_pool{n}d"
    x = np.random.default_rng(8).uniform(-1, 1, (2, 3) + (5,) * n).astype(np.float32)
    check(lambda m, x: getattr(F(m), fn)(x, size), x, device=device, grad=False)
    y = getattr(F(webtorch), fn)(webtorch.tensor(x, device=device, requires_grad=True), size)
    with pytest.raises(RuntimeError, match="Expected grad_output to have non-zero size for non-batch dimensions"):
        y.sum().backward()
