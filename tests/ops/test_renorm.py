"""renorm against PyTorch: values, gradients, errors."""
import pytest

from optest import check, check_error, rand


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 0.5), (3.0, -1, 2.0), (2, 1, 100.0)])
def test_renorm(device, p, dim, maxnorm):
    check(lambda m, t: m.renorm(t, p, dim, maxnorm), rand(4, 5, low=-2, high=2), device=device)
    check(lambda m, t: t.clone().renorm_(p, dim, maxnorm), rand(3, 2, 4), device=device)


def test_renorm_errors(device):
    check_error(lambda m, t: m.renorm(t, -1, 0, 1), rand(3, 3), device=device, match="non-positive-norm")
    check_error(lambda m, t: m.renorm(t, 2, 0, -1), rand(3, 3), device=device, match="maxnorm to be >= 0")
