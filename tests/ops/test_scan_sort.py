"""Scans (cumsum, cumprod, cummax, cummin, logcumsumexp) and sorting/searching ops against PyTorch."""
import numpy as np
import torch

import webtorch
from optest import check, check_error, rand, randint, webgpu_dtype_error

F64 = np.float64


def distinct(*shape):
    """Floats without ties (tie order of sort/topk/median indices is unspecified in PyTorch)."""
    n = int(np.prod(shape))
    return (np.random.default_rng(n).permutation(n).reshape(shape) / n - 0.5).astype(np.float32)


# ---- scans ---------------------------------------------------------------------------------------------------

def test_cumsum(device):
    check(lambda m, x: (x.cumsum(0), m.cumsum(x, -1)), rand(3, 4, 2), device=device)
    if device == "cpu":
        check(lambda m, x: x.cumsum(1, dtype=m.float64), rand(3, 4), device=device)
    check(lambda m, x: (x.cumsum(0), x.cumsum(0, dtype=m.float32)), randint(0, 5, 6), device=device)
    check(lambda m, x: x.cumsum(0), np.array([True, False, True]), device=device)
    check(lambda m, x: x.cumsum(0), rand(), device=device)


def test_cumprod(device):
    check(lambda m, x: (x.cumprod(0), m.cumprod(x, -1)), rand(3, 4, low=0.5, high=1.5), device=device)
    check(lambda m, x: x.cumprod(0), randint(1, 4, 5), device=device)


def test_cumprod_grad_with_zeros(device):
    x = np.array([[0.0, 2.0, 3.0, 0.5], [1.5, 0.0, 0.0, 4.0], [2.0, -1.0, 0.5, 0.0], [1.0, 2.0, 3.0, 4.0]],
                 dtype=np.float32)
    check(lambda m, t: (t.cumprod(1), t.cumprod(0)), x, device=device)


def test_cumsum_cumprod_float64_grads(device):
    with webgpu_dtype_error(device):
        x = rand(3, 5, dtype=F64)
        x[1, 2] = 0.0
        check(lambda m, t: (t.cumsum(1), t.cumprod(1), t.cumprod(0)), x, device=device, atol=1e-12, rtol=1e-10)


def test_cummax_cummin(device):
    x = np.array([[1.0, 3.0, 2.0, 3.0, 5.0], [4.0, 4.0, 1.0, 0.0, 0.0]], dtype=np.float32)
    out = check(lambda m, t: (t.cummax(1), m.cummin(t, 1), t.cummax(0), t.cummin(-1)), x, device=device)
    assert out[0].values is out[0][0] and repr(out[0]).startswith("torch.return_types.cummax(")
    check(lambda m, t: (t.cummax(1), t.cummin(0)), rand(4, 6), device=device)
    check(lambda m, t: (t.cummax(0), t.cummin(0)), randint(-3, 3, 7), device=device)


def test_cummax_nan(device):
    x = np.array([1.0, np.nan, 3.0, np.nan, 0.0], dtype=np.float32)
    check(lambda m, t: (t.cummax(0), t.cummin(0)), x, device=device, grad=False)


def test_logcumsumexp(device):
    check(lambda m, x: (x.logcumsumexp(0), m.logcumsumexp(x, 1)), rand(3, 4) * 3, device=device)
    x = np.array([[1000.0, -1000.0, 1000.0], [-np.inf, -np.inf, 0.0]], dtype=np.float32)
    check(lambda m, t: t.logcumsumexp(1), x, device=device, grad=False)
    check(lambda m, t: t.logcumsumexp(1), x[:1], device=device)
    check_error(lambda m, t: t.logcumsumexp(0), randint(0, 3, 4), device=device, match="not implemented for 'Long'")


def test_logcumsumexp_float64(device):
    with webgpu_dtype_error(device):
        check(lambda m, x: x.logcumsumexp(1), rand(3, 5, dtype=F64) * 4, device=device, atol=1e-12, rtol=1e-10)


def test_scan_node_names_and_inplace(device):
    x = webtorch.rand(4, device=device, requires_grad=True)
    assert x.cumsum(0).grad_fn.name() == "CumsumBackward0"
    assert x.cumprod(0).grad_fn.name() == "CumprodBackward0"
    assert x.cummax(0).values.grad_fn.name() == "CummaxBackward0"
    assert x.cummin(0).values.grad_fn.name() == "CumminBackward0"
    assert x.logcumsumexp(0).grad_fn.name() == "LogcumsumexpBackward0"
    check(lambda m, t: (t.clone().cumsum_(0), t.clone().cumprod_(1)), rand(3, 4), device=device)


def test_cumsum_double_backward(device):
    x = webtorch.rand(5, device=device, requires_grad=True, dtype=webtorch.float32)
    tx = torch.tensor(x.detach().cpu().numpy(), requires_grad=True)
    for lib, t in ((webtorch, x), (torch, tx)):
        (g,) = lib.autograd.grad((t.cumprod(0) ** 2).sum(), t, create_graph=True)
        g.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


# ---- sort / argsort / msort ------------------------------------------------------------------------------------

def test_sort(device):
    x = distinct(3, 5)
    out = check(lambda m, t: (t.sort(), t.sort(0), m.sort(t, 1, descending=True), t.sort(dim=-1, stable=True),
                              m.sort(t, descending=True, stable=True, dim=0)), x, device=device)
    assert out[0].values is out[0][0] and repr(out[0]).startswith("torch.return_types.sort(\nvalues=")


def test_sort_stable_ties_and_nan(device):
    x = np.array([2.0, 1.0, 2.0, np.nan, 1.0, 0.0, 2.0], dtype=np.float32)
    check(lambda m, t: (t.sort(stable=True), t.sort(descending=True, stable=True), t.argsort(stable=True)), x,
          device=device, grad=False)
    check(lambda m, t: (t.sort(stable=True), t.sort(descending=True, stable=True)), randint(0, 3, 9),
          device=device)
    check(lambda m, t: t.sort(), np.array([True, False, True]), device=device)


def test_argsort_msort(device):
    x = distinct(4, 3)
    check(lambda m, t: (t.argsort(), m.argsort(t, 0, descending=True), t.msort(), m.msort(t)), x, device=device)


def test_sort_float64_grad(device):
    with webgpu_dtype_error(device):
        check(lambda m, t: (t.sort(1).values * m.arange(4, dtype=m.float64), t.sort(0, descending=True)[0]),
              distinct(3, 4).astype(F64), device=device, atol=1e-12, rtol=1e-10)


# ---- topk / kthvalue / median ---------------------------------------------------------------------------------

def test_topk(device):
    x = distinct(4, 100)
    check(lambda m, t: (t.topk(3), t.topk(5, largest=False), m.topk(t, 2, dim=0), t.topk(100), t.topk(0)), x,
          device=device)
    check(lambda m, t: (t.topk(2), t.topk(3, largest=False)), distinct(3, 7), device=device)
    check(lambda m, t: t.topk(2), randint(-100, 100, 5) * 1000 + np.arange(5), device=device)
    check_error(lambda m, t: t.topk(8), distinct(7), device=device, match="selected index k out of range")


def test_kthvalue(device):
    x = distinct(3, 6)
    out = check(lambda m, t: (t.kthvalue(2), m.kthvalue(t, 1, 0), t.kthvalue(6, dim=1, keepdim=True)), x,
                device=device)
    assert repr(out[0]).startswith("torch.return_types.kthvalue(")
    check_error(lambda m, t: t.kthvalue(7), x, device=device,
                match="kthvalue(): selected number k out of range for dimension 1")


def test_median(device):
    x = distinct(3, 6)
    check(lambda m, t: (t.median(), t.median(1), m.median(t, 0, keepdim=True), t.median(-1).indices), x,
          device=device)
    check(lambda m, t: t.median(), distinct(7), device=device)
    ties = np.array([1.0, 3.0, 2.0, 2.0, 5.0, 2.0], dtype=np.float32)
    check(lambda m, t: t.median(), ties, device=device)
    check(lambda m, t: (t.median(), t.median(0)), randint(0, 100, 5) * 10 + np.arange(5), device=device)


def test_median_nan(device):
    x = np.array([[1.0, np.nan, 0.0, 5.0], [2.0, 1.0, 3.0, 0.0]], dtype=np.float32)
    check(lambda m, t: (t.median(), t.median(1), t.nanmedian(), t.nanmedian(1)), x, device=device, grad=False)
    check(lambda m, t: (t.nanmedian(1).values, t.nanmedian()), x, device=device)


def test_median_node_names(device):
    x = webtorch.tensor(distinct(3, 4), device=device, requires_grad=True)
    assert x.median().grad_fn.name() == "MedianBackward0"
    assert x.median(1).values.grad_fn.name() == "MedianBackward1"
    assert x.nanmedian().grad_fn.name() == "NanmedianBackward0"
    assert x.kthvalue(2).values.grad_fn.name() == "KthvalueBackward0"
    assert x.topk(2).values.grad_fn.name() == "TopkBackward0"
    assert x.sort().values.grad_fn.name() == "SortBackward0"
    assert x.msort().grad_fn.name() == "SortBackward0"


# ---- unique / searchsorted / bucketize ----------------------------------------------------------------------------

def test_unique(device):
    x = np.array([[3, 1, 3], [2, 1, 7]], dtype=np.int64)
    check(lambda m, t: (m.unique(t), t.unique(return_inverse=True), m.unique(t, return_counts=True),
                        m.unique(t, return_inverse=True, return_counts=True)), x, device=device)
    check(lambda m, t: (m.unique(t, dim=0, return_inverse=True, return_counts=True), m.unique(t, dim=1)),
          np.array([[1, 2, 1], [3, 4, 3], [1, 2, 1]], dtype=np.int64), device=device)
    check(lambda m, t: t.unique(), np.array([0.5, -1.0, 0.5, 2.0], dtype=np.float32), device=device, grad=False)


def test_searchsorted(device):
    seq = np.array([1.0, 2.0, 2.0, 4.0, 7.0], dtype=np.float32)
    v = np.array([[0.0, 2.0, 5.0], [7.0, 8.0, 2.5]], dtype=np.float32)
    check(lambda m, s, x: (m.searchsorted(s, x), m.searchsorted(s, x, right=True), m.searchsorted(s, x, side="right"),
                           m.searchsorted(s, 2.0), m.searchsorted(s, x, out_int32=True)), seq, v, device=device,
          grad=False)
    seq2 = np.sort(rand(3, 6), axis=1)
    check(lambda m, s, x: (m.searchsorted(s, x), m.searchsorted(s, x, right=True)), seq2, rand(3, 4), device=device,
          grad=False)
    check(lambda m, s, x: m.searchsorted(s, x), seq, np.array([1, 3, 9], dtype=np.int64), device=device, grad=False)
    perm = np.array([2, 0, 1], dtype=np.int64)
    check(lambda m, s, x, p: m.searchsorted(s, x, sorter=p), np.array([3.0, 1.0, 2.0], np.float32),
          np.array([1.5, 2.5], np.float32), perm, device=device, grad=False)
    check_error(lambda m, s, x: m.searchsorted(s, x), rand(2, 3), rand(3, 2), device=device,
                match="boundaries tensor should be 1 dimension or the first N-1 dimensions")


def test_bucketize(device):
    bounds = np.array([1.0, 3.0, 5.0, 7.0], dtype=np.float32)
    x = np.array([[0.5, 3.0, 6.0], [9.0, 1.0, 5.0]], dtype=np.float32)
    check(lambda m, t, b: (m.bucketize(t, b), m.bucketize(t, b, right=True), m.bucketize(t, b, out_int32=True)),
          x, bounds, device=device, grad=False)
    check(lambda m, b: m.bucketize(4.0, b), bounds, device=device, grad=False)
