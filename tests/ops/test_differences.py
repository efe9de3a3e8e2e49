"""diff, gradient, trapezoid and cumulative_trapezoid against PyTorch: values and gradients."""
import numpy as np
import pytest

from optest import check, check_error, rand, randint


def test_diff(device):
    x = rand(4, 6)
    check(lambda m, t: m.diff(t), x, device=device)
    check(lambda m, t: t.diff(n=2, dim=0), x, device=device)
    check(lambda m, t, p, a: m.diff(t, dim=1, prepend=p, append=a), x, rand(4, 2), rand(4, 1), device=device)
    check(lambda m, t: m.diff(t, n=8), x, device=device)
    check(lambda m, t: m.diff(t, n=0), x, device=device)
    check(lambda m, t: m.diff(t), randint(0, 9, 5), device=device)
    check(lambda m, t: m.diff(t > 0), x, device=device)
    check_error(lambda m, t: m.diff(t[0, 0]), x, device=device, match="at least one-dimensional")
    check_error(lambda m, t: m.diff(t, n=-1), x, device=device, match="order must be non-negative")


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(device, edge_order):
    x = rand(5, 6)
    check(lambda m, t: m.gradient(t, edge_order=edge_order), x, device=device)
    check(lambda m, t: m.gradient(t, spacing=0.5, dim=1, edge_order=edge_order), x, device=device)
    check(lambda m, t: m.gradient(t, spacing=[2.0, 0.25], edge_order=edge_order), x, device=device)
    coords = np.cumsum(rand(6, low=0.2, high=1.5)).astype(np.float32)
    check(lambda m, t, c: m.gradient(t, spacing=(c,), dim=1, edge_order=edge_order), x, coords, device=device,
          grad=False)
    check(lambda m, t: m.gradient(t, edge_order=edge_order), randint(0, 9, 7), device=device)
    check_error(lambda m, t: m.gradient(t, edge_order=3), x, device=device, match="edge_order=1 and edge_order=2")
    check_error(lambda m, t: m.gradient(t, edge_order=2), rand(2), device=device, match="at least edge_order+1")


def test_trapezoid(device):
    y = rand(3, 6)
    check(lambda m, t: m.trapezoid(t), y, device=device)
    check(lambda m, t: m.trapezoid(t, dx=0.5, dim=0), y, device=device)
    check(lambda m, t, x: m.trapezoid(t, x), y, np.sort(rand(6)), device=device)
    check(lambda m, t, x: m.trapz(t, x, dim=1), y, np.sort(rand(3, 6), axis=1), device=device)
    check(lambda m, t: m.trapz(t, dx=2.0), y, device=device)
    check(lambda m, t: m.cumulative_trapezoid(t), y, device=device)
    check(lambda m, t: m.cumulative_trapezoid(t, dx=0.3, dim=0), y, device=device)
    check(lambda m, t, x: m.cumulative_trapezoid(t, x), y, np.sort(rand(6)), device=device)


def test_gradient_of_two_elements_and_dtypes(device):
    check(lambda m, x: m.gradient(x), rand(2, 3), device=device)
    check(lambda m, x: m.gradient(x, spacing=[m.tensor([0.0, 1.5], device=x.device), m.tensor([0.0, 1.0, 3.0], device=x.device)]),
          rand(2, 3), device=device)
    check_error(lambda m, x: m.gradient(x), randint(0, 9, 2, 3).astype(np.uint8), device=device,
                match="does not support uint8")
    check_error(lambda m, x: m.gradient(x > 0.5), rand(2, 3), device=device, match="with two bool tensors")
