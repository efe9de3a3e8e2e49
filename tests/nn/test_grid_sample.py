"""F.affine_grid and F.grid_sample (spatial transformer networks) against PyTorch 2.13: values and both
gradients for every mode, padding mode and align_corners, in 2-D and 3-D, and PyTorch's errors."""
import itertools

import pytest
import torch

import webtorch

CASES = [(d, m, p, a) for d, m, p, a in itertools.product((2, 3), ("bilinear", "nearest", "bicubic"),
                                                          ("zeros", "border", "reflection"), (False, True))
         if not (d == 3 and m == "bicubic")]


def _close(got, want, tol):
    assert torch.allclose(torch.tensor(got.tolist(), dtype=want.dtype), want, atol=tol, rtol=tol)


@pytest.mark.parametrize("dims,mode,padding,align", CASES)
def test_grid_sample_values_and_gradients(dims, mode, padding, align, device):
    g = torch.Generator().manual_seed(hash((dims, mode, padding, align)) % 1000)
    x = torch.randn(2, 3, *([4] * dims), generator=g, requires_grad=True)
    grid = (torch.rand(2, 3, *([5] * (dims - 1)), dims, generator=g) * 3 - 1.5).requires_grad_()  # some outside
    y = torch.nn.functional.grid_sample(x, grid, mode, padding, align)
    gy = torch.randn(y.shape, generator=g)
    y.backward(gy)
    wx = webtorch.tensor(x.detach().numpy(), device=device, requires_grad=True)
    wgrid = webtorch.tensor(grid.detach().numpy(), device=device, requires_grad=True)
    wy = webtorch.nn.functional.grid_sample(wx, wgrid, mode, padding, align)
    assert tuple(wy.shape) == tuple(y.shape)
    wy.backward(webtorch.tensor(gy.numpy(), device=device))
    _close(wy, y.detach(), 1e-4)
    _close(wx.grad, x.grad, 1e-4)
    _close(wgrid.grad, grid.grad, 1e-4)


def test_grid_sample_float64_matches_closely():
    torch.manual_seed(1)
    x, grid = torch.randn(1, 2, 5, 6, dtype=torch.float64), torch.rand(1, 4, 3, 2, dtype=torch.float64) * 2 - 1
    for mode in ("bilinear", "bicubic"):
        want = torch.nn.functional.grid_sample(x, grid, mode, "reflection", False)
        got = webtorch.nn.functional.grid_sample(webtorch.tensor(x.numpy()), webtorch.tensor(grid.numpy()), mode,
                                                 "reflection", False)
        _close(got, want, 1e-12)


@pytest.mark.parametrize("size", [(2, 1, 3, 4), (2, 3, 2, 3, 4)])
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_and_its_gradient(size, align, device):
    theta = torch.randn(2, len(size) - 2, len(size) - 1, requires_grad=True)
    want = torch.nn.functional.affine_grid(theta, size, align)
    (want * torch.arange(want.numel()).reshape(want.shape)).sum().backward()
    wt = webtorch.tensor(theta.detach().numpy(), device=device, requires_grad=True)
    got = webtorch.nn.functional.affine_grid(wt, size, align)
    (got * webtorch.arange(got.numel(), device=device).reshape(got.shape)).sum().backward()
    _close(got, want.detach(), 1e-5)
    _close(wt.grad, theta.grad, 1e-3)


def test_spatial_transformer_round_trip_is_identity(device):
    x = webtorch.randn(2, 3, 5, 7, device=device)
    theta = webtorch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2, device=device)
    grid = webtorch.nn.functional.affine_grid(theta, (2, 3, 5, 7), align_corners=False)
    y = webtorch.nn.functional.grid_sample(x, grid, align_corners=False)
    assert webtorch.allclose(y, x, atol=1e-6)


def test_errors_and_warnings_as_pytorch():
    x, grid = webtorch.randn(1, 1, 3, 3), webtorch.rand(1, 2, 2, 2)
    F = webtorch.nn.functional
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(x, grid)
    cases = [
        (lambda: F.grid_sample(x, grid, mode="foo", align_corners=False), ValueError, "expected mode to be"),
        (lambda: F.grid_sample(x, grid, padding_mode="foo", align_corners=False), ValueError,
         "expected padding_mode to be 'zeros', 'border', or 'reflection'"),
        (lambda: F.grid_sample(x, webtorch.rand(1, 2, 2, 3), align_corners=False), RuntimeError,
         r"expected grid to have size 2 in last dimension, but got grid with sizes \[1, 2, 2, 3\]"),
        (lambda: F.grid_sample(x, webtorch.rand(2, 2, 2, 2), align_corners=False), RuntimeError,
         "expected grid and input to have same batch size"),
        (lambda: F.grid_sample(x.long(), grid, align_corners=False), NotImplementedError,
         "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Long'"),
        (lambda: F.grid_sample(webtorch.randn(1, 1, 2, 2, 2), webtorch.rand(1, 2, 2, 2, 3), mode="bicubic",
                               align_corners=False), RuntimeError, "bicubic interpolation only supports 4D input"),
        (lambda: F.affine_grid(webtorch.eye(2, 3)[None], (1, 1, 2), False), NotImplementedError,
         "affine_grid only supports 4D and 5D sizes"),
        (lambda: F.affine_grid(webtorch.eye(3, 3)[None], (1, 1, 2, 2), False), ValueError,
         "Expected a batch of 2D affine matrices of shape Nx2x3"),
        (lambda: F.affine_grid(webtorch.eye(2, 3)[None], (1, 1, 0, 2), False), ValueError,
         "Expected non-zero, positive output size"),
        (lambda: F.affine_grid(webtorch.eye(2, 3, dtype=webtorch.long)[None], (1, 1, 2, 2), False), ValueError,
         "Expected theta to have floating point type"),
    ]
    for call, exc, match in cases:
        with pytest.raises(exc, match=match):
            call()
