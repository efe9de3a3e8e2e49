"""histc, bincount and histogram against PyTorch: values, the data-range edges, errors."""
import numpy as np
import torch

import webtorch
from optest import check, check_error, rand, randint


def f32(x):
    return np.asarray(x, dtype=np.float32)


def test_histc(device):
    x = rand(200, low=-2, high=3)
    check(lambda m, t: m.histc(t, bins=7, min=-1, max=2), x, device=device, grad=False)
    check(lambda m, t: m.histc(t), x, device=device, grad=False)
    check(lambda m, t: t.histc(5), x, device=device, grad=False)
    # values on the edges and at max, a constant input (range widened by 1 each way)
    check(lambda m, t: m.histc(t, bins=4, min=0, max=4), f32([0, 1, 2, 3, 4, 4.5, -0.1]), device=device, grad=False)
    check(lambda m, t: m.histc(t, bins=3), f32([1, 1]), device=device, grad=False)
    check(lambda m, t: m.histc(t, bins=3, min=2, max=2), f32([1, 2, 3]), device=device, grad=False)


def test_histc_data_range_edges_as_torch(device):
    # the range taken from the data: edges rounded as torch's linspace, so elements on an edge count alike
    import torch
    for seed in range(40):
        x = np.random.default_rng(seed).uniform(-2, 3, 200).astype(np.float32)
        ours = webtorch.histc(webtorch.tensor(x, device=device)).cpu().numpy()
        assert np.array_equal(ours, torch.histc(torch.tensor(x)).numpy()), seed


def test_histc_errors(device):
    check_error(lambda m, t: m.histc(t, bins=0), rand(3), device=device, match="bins must be > 0")
    check_error(lambda m, t: m.histc(t, min=2, max=1), rand(3), device=device, match="max must be larger than min")
    check_error(lambda m, t: m.histc(t), randint(0, 3, 4), device=device, match="not implemented for 'Long'")


def test_histogram(device):
    x = rand(100, low=-2, high=3)
    check(lambda m, t: m.histogram(t, bins=6), x, device=device, grad=False)
    check(lambda m, t: m.histogram(t, 4, range=(-1.0, 1.0)), x, device=device, grad=False)
    check(lambda m, t, w: m.histogram(t, bins=5, weight=w, density=True), x, rand(100, low=0, high=1),
          device=device, grad=False)
    check(lambda m, t, e: m.histogram(t, e), x, f32([-2, -0.5, 0, 2.5]), device=device, grad=False)
    check(lambda m, t: m.histogram(t, bins=4), f32([1, 1]), device=device, grad=False)
    r = webtorch.histogram(webtorch.tensor(x, device=device), bins=3)
    assert type(r).__name__ == "histogram" and r.hist.shape == (3,) and r.bin_edges.shape == (4,)


def test_bincount(device):
    x = randint(0, 7, 50)
    check(lambda m, t: m.bincount(t), x, device=device)
    check(lambda m, t: t.bincount(minlength=12), x, device=device)
    check(lambda m, t, w: m.bincount(t, weights=w), x, rand(50), device=device, grad=False)
    check(lambda m, t, w: m.bincount(t, w), x, rand(50).astype(np.float64), device=device, grad=False) \
        if device == "cpu" else None
    check(lambda m, t, w: m.bincount(t, weights=w.int()), x, randint(0, 5, 50), device=device, grad=False) \
        if device == "cpu" else None
    check(lambda m, t: m.bincount(t, minlength=3), np.zeros(0, np.int64), device=device)


def test_bincount_errors(device):
    check_error(lambda m, t: m.bincount(t), f32([1, 2]), device=device, match="not implemented for 'Float'")
    check_error(lambda m, t: m.bincount(t), np.array([-1, 2]), device=device, match="non-negative integral")
    check_error(lambda m, t: m.bincount(t), np.array([[1]]), device=device, match="non-negative integral")
    check_error(lambda m, t, w: m.bincount(t, w), np.array([1, 2]), rand(3), device=device, match="same length")
    check_error(lambda m, t: m.bincount(t, minlength=-1), np.array([1, 2]), device=device, match=">= 0")


def test_histogram_default_bins_empty_and_non_finite(device):
    check(lambda m, x: m.histogram(x), rand(3, 4), device=device, grad=False)
    check(lambda m, x: m.histogram(x, 4), rand(0), device=device, grad=False)   # no data: range [0, 1]
    check_error(lambda m, x: m.histogram(x, 3), np.array([0.5, np.nan, 1.0], np.float32), device=device,
                match="range [nan, nan] is not finite")
    check_error(lambda m, x: m.histogram(x, 3, range=(0.0, float("inf"))), rand(4), device=device, match="not finite")
