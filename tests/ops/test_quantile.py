"""quantile and nanquantile against PyTorch: every interpolation, NaN handling, errors."""
import numpy as np
import pytest

from optest import check, check_error, rand, randint


def f32(x):
    return np.asarray(x, dtype=np.float32)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile(device, interpolation):
    x = rand(4, 7)
    kw = dict(interpolation=interpolation)
    check(lambda m, t: m.quantile(t, 0.3, **kw), x, device=device)
    check(lambda m, t: m.quantile(t, 0.5, dim=1, keepdim=True, **kw), x, device=device)
    check(lambda m, t, q: m.quantile(t, q, dim=0, **kw), x, f32([0.0, 0.25, 0.5, 1.0]), device=device, grad=False)
    check(lambda m, t, q: t.quantile(q.detach(), dim=-1, **kw), x, f32([0.1, 0.9]), device=device)
    check(lambda m, t: m.quantile(t, 0.75, keepdim=True, **kw), x, device=device)


def test_quantile_nan(device):
    x = rand(3, 6)
    x[0, 2] = np.nan
    x[2, :] = np.nan
    for name in ("quantile", "nanquantile"):
        check(lambda m, t: getattr(m, name)(t, 0.4, dim=1), x, device=device, grad=False)
        check(lambda m, t, q: getattr(m, name)(t, q, dim=1, keepdim=True), x, f32([0.2, 0.6]), device=device,
              grad=False)
        check(lambda m, t: getattr(m, name)(t, 0.4), x, device=device, grad=False)
    check(lambda m, t: m.nanquantile(t, 0.4, dim=1), rand(3, 6), device=device)


def test_quantile_errors(device):
    check_error(lambda m, t: m.quantile(t, 0.5), randint(0, 3, 4), device=device, match="either float or double")
    check_error(lambda m, t: m.quantile(t, 1.5), rand(3), device=device, match="range [0, 1] but got 1.5")
    check_error(lambda m, t, q: m.quantile(t, q), rand(3), f32([1.5]), device=device, match="q values must be")
    check_error(lambda m, t, q: m.quantile(t, q), rand(3), f32([[0.5]]), device=device, match="scalar or 1D")
    check_error(lambda m, t: m.quantile(t, 0.5, interpolation="foo"), rand(3), device=device, match="but got foo")
    check_error(lambda m, t: m.quantile(t, 0.5), rand(0), device=device, match="must be non-empty")
    check_error(lambda m, t: m.quantile(t, 0.5, dim=2), rand(3, 3), device=device, match="Dimension out of range")


def test_quantile_q_dtype_error():
    check_error(lambda m, t, q: m.quantile(t, q), rand(3), np.array([0.5]), match="same dtype as the input")
