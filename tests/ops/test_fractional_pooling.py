"""fractional_max_pool2d/3d (functional, _with_indices, modules) against PyTorch: with explicit _random_samples
the values, indices and gradients equal torch's; with drawn samples (webtorch's stream) the shapes, the index
ranges and the windows' geometry; the errors as torch's."""
import numpy as np
import pytest
import torch

import webtorch
from devices import DEVICES
from optest import RNG, check, check_error, rand, webgpu_dtype_error


def distinct(*shape, dtype=np.float32):
    """Values without ties (max picks the same element in both libraries)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) / n - 0.5).astype(dtype).reshape(shape)


def pool(n):
    return lambda m, x, s, k, out: getattr(m.nn.functional, f"fractional_max_pool{n}d")(
        x, k, output_size=out, _random_samples=s.detach(), return_indices=True)


CASES_2D = [((2, 3, 9, 11), (2, 3), (4, 5)), ((3, 7, 7), 3, 3), ((1, 2, 10, 10), 2, (9, 1)),
            ((1, 1, 5, 6), (1, 2), (5, 5)), ((2, 1, 8, 8), 4, (1, 2))]
CASES_3D = [((2, 2, 6, 7, 8), (2, 2, 3), (3, 4, 5)), ((2, 5, 5, 5), 2, 2), ((1, 1, 4, 9, 3), (1, 3, 2), (3, 2, 1))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n,shape,k,out", [(2, *c) for c in CASES_2D] + [(3, *c) for c in CASES_3D])
def test_values_indices_and_grad_with_given_samples(device, n, shape, k, out):
    batch = 1 if len(shape) == n + 1 else shape[0]
    samples = RNG.random((batch, shape[-n - 1], n)).astype(np.float32)
    check(pool(n), distinct(*shape), samples, k, out, device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_ties_nan_and_inf_pick_as_torch(device):
    x = np.ones((1, 2, 4, 4), np.float32)  # ties: the first element of each window
    x[0, 1] = -np.inf  # all -inf: the first too
    s = np.array([[[0.3, 0.6], [0.8, 0.1]]], np.float32)
    check(pool(2), x, s, 3, (2, 2), device=device)
    y = rand(1, 1, 4, 4)
    y[0, 0, 0, 1] = y[0, 0, 1, 0] = np.nan  # the last NaN of a window wins (PyTorch's loop)
    check(pool(2), y, s[:, :1], 2, (3, 3), device=device, grad=False)


@pytest.mark.parametrize("device", DEVICES)
def test_samples_outside_unit_interval_and_extra_batch(device):
    s = (RNG.random((4, 3, 2)) * 3).astype(np.float32)
    check(pool(2), distinct(2, 3, 9, 9), s, 2, (4, 4), device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_float64_and_empty(device):
    with webgpu_dtype_error(device):
        check(pool(2), distinct(1, 2, 7, 7, dtype=np.float64), RNG.random((1, 2, 2)), 2, (3, 4), device=device)
    check(pool(2), rand(0, 2, 7, 7), rand(1, 2, 2), 2, (3, 4), device=device)
    check(pool(2), rand(1, 2, 7, 7), rand(1, 2, 2), 2, (0, 4), device=device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [2, 3])
def test_drawn_samples_shapes_and_windows(device, n):
    x = webtorch.randn(3, 4, *(12,) * n, device=device)
    fn = getattr(webtorch.nn.functional, f"fractional_max_pool{n}d")
    v, i = fn(x, 2, output_ratio=0.5, return_indices=True)
    assert tuple(v.shape) == (3, 4) + (6,) * n and i.dtype == webtorch.int64
    flat = x.flatten(2)
    assert v.tolist() == flat.gather(2, i.flatten(2)).reshape(v.shape).tolist()
    coords = np.stack(np.unravel_index(i.cpu().numpy(), (12,) * n), -1)  # (B, C, *out, n)
    for d in range(n):
        c = np.moveaxis(coords[..., d], 2 + d, -1)  # along its own output axis the windows advance
        steps = np.diff(c, axis=-1)
        assert steps.min() >= -1 and steps.max() <= 3  # window starts move by 1 or 2, the max within a window
    one = getattr(webtorch.nn.functional, f"fractional_max_pool{n}d_with_indices")(x, (2,) * n, output_size=5)
    assert isinstance(one, tuple) and tuple(one[0].shape) == (3, 4) + (5,) * n
    v2 = fn(x[0], 3, output_size=4)
    assert tuple(v2.shape) == (4,) + (4,) * n


@pytest.mark.parametrize("device", DEVICES)
def test_modules_match_torch(device):
    torch.manual_seed(0)
    s = torch.rand(2, 3, 2)
    mt = torch.nn.FractionalMaxPool2d((2, 3), output_size=(4, 3), return_indices=True, _random_samples=s)
    mw = webtorch.nn.FractionalMaxPool2d((2, 3), output_size=(4, 3), return_indices=True,
                                         _random_samples=webtorch.tensor(s.numpy(), device=device))
    assert list(mw.state_dict()) == list(mt.state_dict()) == ["_random_samples"] and repr(mw) == repr(mt)
    assert (mw.kernel_size, mw.output_size, mw.output_ratio) == (mt.kernel_size, mt.output_size, mt.output_ratio)
    x = distinct(2, 3, 8, 9)
    (vt, it), (vw, iw) = mt(torch.tensor(x)), mw(webtorch.tensor(x, device=device))
    assert vw.tolist() == vt.tolist() and iw.tolist() == it.tolist()
    m3 = webtorch.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.6, 0.7))
    assert m3.output_ratio == (0.5, 0.6, 0.7) and m3.output_size is None
    assert tuple(m3(webtorch.randn(1, 2, 10, 10, 10, device=device)).shape) == (1, 2, 5, 6, 7)


def test_module_errors_as_torch():
    for lib in (torch, webtorch):
        for args, kw, msg in [((2,), {}, "FractionalMaxPool2d requires specifying either an output size"),
                              ((2,), {"output_size": 2, "output_ratio": 0.5}, "only one of output_size"),
                              ((2,), {"output_ratio": (0.5, 1.0)}, r"output_ratio must be between 0 and 1 \(got")]:
            with pytest.raises(ValueError, match=msg):
                lib.nn.FractionalMaxPool2d(*args, **kw)
        with pytest.raises(ValueError, match="kernel_size must be greater than 0, but got 0"):
            lib.nn.FractionalMaxPool3d(0, output_ratio=0.5)


@pytest.mark.parametrize("device", DEVICES)
def test_functional_errors_as_torch(device):
    check_error(lambda m, x, s: m.nn.functional.fractional_max_pool2d(x, 2, 2, _random_samples=s.requires_grad_()),
                rand(1, 1, 5, 5), rand(1, 1, 2), device=device, match="not differentiable with respect to argument")
    f2 = lambda m, x, s, **kw: m.nn.functional.fractional_max_pool2d(x, 2, _random_samples=s, **kw)  # noqa: E731
    f3 = lambda m, x, s, **kw: m.nn.functional.fractional_max_pool3d(x, 2, _random_samples=s, **kw)  # noqa: E731
    x, s = rand(2, 3, 5, 5), rand(2, 3, 2)
    check_error(lambda m, x, s: f2(m, x, s), x, s, device=device, match="either an output_size or an output_ratio")
    check_error(lambda m, x, s: f2(m, x, None, output_ratio=(0.5, 0.5, 0.5)), x, s, device=device,
                match="output_ratio to either be a single Int or tuple of Ints")
    for x_, s_, kw, match in [
            (x, s, {"output_size": (5, 4)}, "fractional_max_pool2d(): pool height 2 too large relative to input height 5"),
            (x, s, {"output_size": (2, 5)}, "pool width 2 too large relative to input width 5"),
            (x, s, {"output_size": (2, 2, 2)}, "output_size must either be a single Int or tuple of Ints"),
            (x, rand(2, 3, 3), {"output_size": 2}, "Expect _random_samples.size(2) equals to 2; got 3."),
            (x, rand(1, 3, 2), {"output_size": 2}, "no less then input batch size"),
            (x, rand(2, 2, 2), {"output_size": 2}, "equals to input channel size"),
            (x, rand(3, 2), {"output_size": 2}, "Expect _random_samples to have 3 dimensions, got 2"),
            (rand(5, 5), rand(1, 5, 2), {"output_size": 2}, "Expected 3D or 4D tensor, but got: [5, 5]"),
            (rand(2, 0, 5, 5), rand(2, 0, 2), {"output_size": 2}, "dimension 1 being empty")]:
        check_error(lambda m, x, s: f2(m, x, s, **kw), x_, s_, device=device, match=match)
    check_error(lambda m, x, s: f3(m, x, s, output_size=(3, 4, 3)), rand(1, 1, 5, 5, 5), rand(1, 1, 3),
                device=device, match="fractional_max_pool3d_out(): pool height 2 too large relative to input height")
    check_error(lambda m, x, s: f3(m, x, s, output_size=(1, 1, 4)), rand(1, 1, 5, 5, 5), rand(1, 1, 3),
                device=device, match="pool width 2 too large relative to input width 5")  # strict in 3-d
    check_error(lambda m, x, s: f3(m, x, s, output_size=2), rand(5, 5, 5), rand(1, 5, 3), device=device,
                match="Expected 4D or 5D tensor, but got: [5, 5, 5]")
    check_error(lambda m, x, s: f2(m, x, s, output_size=2), np.ones((1, 1, 5, 5), np.int32),
                np.ones((1, 1, 2), np.int32), device=device, match="not implemented for 'Int'")
    if device == "cpu":
        check_error(lambda m, x, s: f2(m, x, s, output_size=2), x, s.astype(np.float64), device=device,
                    match="Expect _random_samples to have the same dtype as input")
