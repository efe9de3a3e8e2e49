"""The convolution/pooling/padding/embedding family on the webgpu device: WGSL kernels compile, forward and
backward match PyTorch, nothing takes the host fallback, and index checks need no readback when the host
knows the indices."""
import numpy as np
import pytest
import torch

import webtorch
import webtorch.nn.functional as WF
from webtorch.backends import webgpu as wg

from devices import adapter_kind
from webgpu_counts import DEFAULT, counted
from webgpu_variants import FAMILY_SHADERS, family_variants


def test_family_shaders_and_specializations_compile_on_naga():
    from webtorch.backends.webgpu import wgsl_loader
    assert set(FAMILY_SHADERS) <= set(wgsl_loader.names())
    rt = wg.get_backend().rt
    for name, spec in family_variants():
        rt.compile(name, wgsl_loader.specialize(name, **spec))


def _no_fallback(fn):
    """Run fn on the device; assert it took no host fallback. Returns fn's result."""
    out, d = counted(fn, ("host_fallbacks", "ops"))
    assert d["host_fallbacks"] == 0, d["ops"]
    return out


def _pair(*arrays, grad=True):
    """The same float32 data as torch tensors and webgpu tensors."""
    ts = [torch.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    ws = [webtorch.tensor(a, device="webgpu", requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    return ts, ws


def _close(w, t, tol=2e-4):
    a = w.detach().cpu().numpy()
    b = t.detach().numpy()
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, float(np.abs(b).max(initial=0))))


def _check_forward_backward(fn, *arrays, tol=2e-4):
    rng = np.random.default_rng(1)
    (ts, ws) = _pair(*arrays)
    ty = fn(torch, *ts)
    gy = rng.standard_normal(ty.shape).astype(np.float32)
    ty.backward(torch.tensor(gy))

    def run():
        wy = fn(webtorch, *ws)
        wy.backward(webtorch.tensor(gy, device="webgpu"))
        return wy
    wy = _no_fallback(run)
    _close(wy, ty, tol)
    for w, t in zip(ws, ts):
        if t.requires_grad:
            _close(w.grad, t.grad, tol)


def _F(m):
    return torch.nn.functional if m is torch else WF


def _rand(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


@pytest.fixture(params=["gpu", "cpu"])
def adapter(request):
    """The convolution GEMMs of a GPU (conv_igemm.wgsl) and of a CPU adapter (conv_unfold_gemm.py), each forced."""
    with adapter_kind(request.param == "cpu"):
        yield request.param


@pytest.mark.parametrize("xs, ws, kw", [
    ((2, 3, 9, 9), (4, 3, 3, 3), {}),
    ((2, 4, 9, 8), (6, 2, 3, 2), dict(stride=2, padding=1, groups=2)),
    ((3, 70, 5, 6), (80, 70, 3, 3), dict(padding=1)),                       # 64-row tiles, several row tiles
    ((8, 3, 12, 12), (5, 3, 3, 3), dict(padding=(2, 1), dilation=(2, 1))),   # split-K weight gradient
])
def test_conv2d_forward_backward(xs, ws, kw, adapter):
    _check_forward_backward(lambda m, x, w, b: _F(m).conv2d(x, w, b, **kw), _rand(*xs), _rand(*ws), _rand(ws[0]))


def test_conv1d_conv3d_and_strided_input(adapter):
    _check_forward_backward(lambda m, x, w: _F(m).conv1d(x, w, stride=3, padding=2, dilation=2),
                            _rand(2, 3, 11), _rand(5, 3, 4))
    _check_forward_backward(lambda m, x, w, b: _F(m).conv3d(x, w, b, stride=(1, 2, 1), padding=1),
                            _rand(1, 2, 5, 6, 7), _rand(3, 2, 2, 3, 2), _rand(3))
    # a permuted, sliced input is read through its strides
    _check_forward_backward(lambda m, x, w: _F(m).conv2d(x.permute(0, 3, 1, 2)[:, :, 1:, ::2], w),
                            _rand(2, 8, 9, 3), _rand(4, 3, 2, 2))


def test_conv_transpose2d_with_output_padding(adapter):
    _check_forward_backward(lambda m, x, w, b: _F(m).conv_transpose2d(x, w, b, stride=2, padding=1,
                                                                      output_padding=1, groups=2),
                            _rand(2, 4, 5, 4), _rand(4, 3, 3, 3), _rand(6))
    _check_forward_backward(lambda m, x, w: _F(m).conv_transpose2d(x, w, dilation=2, padding=2, output_padding=1),
                            _rand(1, 2, 4, 4), _rand(2, 3, 3, 3))


def test_conv_float16_runs_in_float32(adapter):
    # CI's adapter (lavapipe) has shader-f16: its absence is a missing install step, not a case to skip
    assert "shader-f16" in wg.get_backend().rt.features
    x, w = _rand(1, 2, 6, 6), _rand(3, 2, 3, 3)
    y = _no_fallback(lambda: WF.conv2d(webtorch.tensor(x, device="webgpu").half(),
                                       webtorch.tensor(w, device="webgpu").half()))
    assert y.dtype is webtorch.float16
    ref = torch.nn.functional.conv2d(torch.tensor(x).half().float(), torch.tensor(w).half().float())
    np.testing.assert_allclose(y.float().cpu().numpy(), ref.numpy(), rtol=1e-2, atol=1e-2)


def test_pooling_forward_backward():
    x = _rand(2, 3, 9, 8)
    _check_forward_backward(lambda m, x: _F(m).max_pool2d(x, 3, 2, padding=1, dilation=(1, 2), ceil_mode=True), x)
    _check_forward_backward(lambda m, x: _F(m).max_pool2d(x, 2, 1), x)  # overlapping windows share maxima
    _check_forward_backward(lambda m, x: _F(m).adaptive_max_pool2d(x, (4, 3)), x)
    _check_forward_backward(lambda m, x: _F(m).avg_pool2d(x, 3, 2, padding=1, ceil_mode=True,
                                                          count_include_pad=False), x)
    _check_forward_backward(lambda m, x: _F(m).avg_pool2d(x, 2, divisor_override=3), x)
    _check_forward_backward(lambda m, x: _F(m).max_pool1d(x[:, :, 0], 3, 2) + _F(m).avg_pool1d(x[:, :, 1], 3, 2), x)
    _check_forward_backward(lambda m, x: _F(m).max_pool3d(x[None], 2) + _F(m).avg_pool3d(x[None], 2), x)


def test_max_pool_nan_wins_and_first_maximum():
    x = np.array([[[[1.0, 3.0, 3.0, 0.0], [np.nan, 2.0, 3.0, 1.0]]]], np.float32)
    v, i = WF.max_pool2d(webtorch.tensor(x, device="webgpu"), 2, return_indices=True)
    tv, ti = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    assert i.tolist() == ti.tolist()
    np.testing.assert_array_equal(v.cpu().numpy(), tv.numpy())


def test_max_unpool_and_integer_avg_pool():
    x = _rand(1, 2, 4, 4)
    (tx,), (wx,) = _pair(x, grad=False)
    tv, ti = torch.nn.functional.max_pool2d(tx, 2, return_indices=True)
    wv, wi = WF.max_pool2d(wx, 2, return_indices=True)
    _close(_no_fallback(lambda: WF.max_unpool2d(wv, wi, 2)), torch.nn.functional.max_unpool2d(tv, ti, 2))
    xi = np.arange(-20, 30, dtype=np.int64).reshape(1, 2, 5, 5)
    ref = torch.nn.functional.avg_pool2d(torch.tensor(xi), 2, 2, padding=1).tolist()  # truncating division
    assert _no_fallback(lambda: WF.avg_pool2d(webtorch.tensor(xi, device="webgpu"), 2, 2, padding=1)).tolist() == ref
    assert WF.avg_pool2d(webtorch.tensor(xi), 2, 2, padding=1).tolist() == ref  # the cpu backend agrees


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_forward_backward(mode):
    kw = dict(value=1.5) if mode == "constant" else {}
    _check_forward_backward(lambda m, x: _F(m).pad(x, (2, 1, 1, 2), mode=mode, **kw), _rand(2, 3, 4, 5))
    _check_forward_backward(lambda m, x: _F(m).pad(x, (3, 2), mode=mode), _rand(2, 3, 4))


def test_pad_int_and_bool_values():
    xi = np.arange(12, dtype=np.int64).reshape(3, 4)
    got = _no_fallback(lambda: WF.pad(webtorch.tensor(xi, device="webgpu"), (1, 1, 0, 2), value=-7))
    assert got.tolist() == torch.nn.functional.pad(torch.tensor(xi), (1, 1, 0, 2), value=-7).tolist()
    xb = np.array([[True, False]])
    got = _no_fallback(lambda: WF.pad(webtorch.tensor(xb, device="webgpu"), (1, 0), value=1))
    assert got.tolist() == [[True, True, False]]


def test_embedding_forward_backward_repeated_indices():
    idx = np.array([[1, 4, 1, 0], [4, 4, 2, 1]], np.int64)
    w = _rand(6, 5)
    for kw in ({}, dict(padding_idx=4), dict(scale_grad_by_freq=True)):
        (tw, ti), (ww, wi) = _pair(w, idx)
        ty = torch.nn.functional.embedding(ti, tw, **kw)
        gy = _rand(*ty.shape, seed=3)
        ty.backward(torch.tensor(gy))

        def run():
            wy = WF.embedding(wi, ww, **kw)
            wy.backward(webtorch.tensor(gy, device="webgpu"))
            return wy
        _close(_no_fallback(run), ty)
        _close(ww.grad, tw.grad)


def test_embedding_renorm_in_place():
    w = _rand(6, 4) * 3
    idx = np.array([0, 2, 2, 5], np.int64)
    tw, ww = torch.tensor(w), webtorch.tensor(w, device="webgpu")
    torch.nn.functional.embedding(torch.tensor(idx), tw, max_norm=1.0, norm_type=3.0)
    _no_fallback(lambda: WF.embedding(webtorch.tensor(idx, device="webgpu"), ww, max_norm=1.0, norm_type=3.0))
    _close(ww, tw)


def test_index_checks_of_host_indices_need_no_readback():
    w = webtorch.randn(5, 3, device="webgpu")
    idx = webtorch.tensor([0, 4, 2], device="webgpu")
    webtorch.webgpu.synchronize()
    flushes = webtorch.webgpu.stats()["flushes"]
    y = WF.embedding(idx, w)
    assert webtorch.webgpu.stats()["flushes"] == flushes  # still lazy
    assert y.shape == (3, 3)
    with pytest.raises(IndexError, match="index out of range in self"):
        WF.embedding(webtorch.tensor([5], device="webgpu"), w)
    # indices written on the device lose their host bound: the kernel checks them (device_checks.py) and the
    # next read raises, with no readback of its own
    moved = idx + 3
    with pytest.raises(IndexError, match="index out of range in self"):
        WF.embedding(moved, w).sum().item()
    idx.add_(3)
    with pytest.raises(IndexError, match="index out of range in self"):
        WF.embedding(idx, w).sum().item()


def test_unfold_fold():
    _check_forward_backward(lambda m, x: _F(m).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
                            _rand(2, 3, 6, 7))
    _check_forward_backward(lambda m, c: _F(m).fold(c, (5, 6), (2, 3), padding=1, stride=2), _rand(2, 12, 9))


def test_small_cnn_training_step_is_one_submit_without_fallback(adapter):
    rng = np.random.default_rng(0)
    webtorch.manual_seed(0)
    net = webtorch.nn.Sequential(webtorch.nn.Conv2d(3, 8, 3, padding=1), webtorch.nn.ReLU(),
                                 webtorch.nn.MaxPool2d(2), webtorch.nn.Conv2d(8, 8, 3, padding=1, groups=2),
                                 webtorch.nn.AvgPool2d(2), webtorch.nn.Flatten(), webtorch.nn.Linear(32, 4))
    net.to("webgpu")
    x = webtorch.tensor(rng.standard_normal((4, 3, 8, 8)).astype(np.float32), device="webgpu")
    _, d = counted(lambda: net(x).square().mean().backward(), DEFAULT + ("ops",))
    assert d["host_fallbacks"] == 0, d["ops"]
    assert d["submits"] == 1
    assert all(p.grad is not None for p in net.parameters())
