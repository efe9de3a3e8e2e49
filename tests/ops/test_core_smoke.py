"""The core path end to end: arithmetic, reductions, matmul, views, autograd against PyTorch."""
import numpy as np
import pytest

from optest import check, check_error, rand


def test_binary_broadcast(device):
    check(lambda m, x, y: x * y + y - x / (y.abs() + 1), rand(3, 4), rand(4), device=device)


def test_scalar_promotion(device):
    check(lambda m, x: (x * 2, 2 - x, x / 2, x ** 2, 2 ** x), rand(5), device=device)


def test_int_true_division(device):
    import numpy as np
    check(lambda m, x: x / 2, np.arange(6, dtype=np.int64), device=device, grad=False)


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "neg",
                                "rsqrt", "erf", "log1p", "expm1", "reciprocal", "atan"])
def test_unary(op, device):
    check(lambda m, x: getattr(m, op)(x), rand(4, 3, low=0.1, high=2.0), device=device)


def test_sum_mean_dims(device):
    check(lambda m, x: (x.sum(), x.sum(1), x.sum((0, 2), keepdim=True), x.mean(-1), x.mean()), rand(2, 3, 4),
          device=device)


def test_matmul_shapes(device):
    check(lambda m, a, b: m.matmul(a, b), rand(2, 3, 4), rand(4, 5), device=device)
    check(lambda m, a, b: a @ b, rand(3, 4), rand(4), device=device)
    check(lambda m, a, b: m.bmm(a, b), rand(2, 3, 4), rand(2, 4, 5), device=device)
    check(lambda m, b, a, c: m.addmm(b, a, c), rand(5), rand(3, 4), rand(4, 5), device=device)


def test_views(device):
    check(lambda m, x: (x.view(6, 2), x.reshape(2, -1), x.permute(2, 0, 1), x.transpose(0, 1).reshape(-1),
                        x.unsqueeze(1).squeeze(1), x.flatten(1), x.t() if x.dim() == 2 else x.mT),
          rand(2, 3, 2), device=device)


def test_mm_shape_error(device):
    check_error(lambda m, a, b: m.mm(a, b), rand(2, 3), rand(4, 5), device=device,
                match="mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")


def test_broadcast_error(device):
    check_error(lambda m, a, b: a + b, rand(2, 3), rand(4), device=device,
                match="The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1")


def test_assorted_ops_smoke(device):
    # one comparison each for ops whose own suites sit elsewhere, so that a regression shows in the core path too
    x = rand(3, 4)
    check(lambda m, t: m.aminmax(t, dim=1), x, device=device, grad=False)
    check(lambda m, t: m.nan_to_num(t / 0), x, device=device, grad=False)
    check(lambda m, a, b: m.logaddexp(a, b), x, rand(3, 4), device=device)
    check(lambda m, a, b: m.hypot(a, b), x, rand(3, 4), device=device)
    check(lambda m, t: m.rot90(t, 1, (0, 1)), x, device=device)
    check(lambda m, t: m.take_along_dim(t, m.argsort(t, dim=1), dim=1), x, device=device)
    check(lambda m, t: m.count_nonzero(t > 0, dim=0), x, device=device)
    check(lambda m, t, b: m.bucketize(t, b), x, np.asarray([-0.5, 0, 0.5], dtype=np.float32), device=device)
