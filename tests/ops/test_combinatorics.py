"""cartesian_prod, combinations, tril/triu_indices, block_diag and vander against PyTorch: values, gradients,
errors."""
import numpy as np
import pytest

import webtorch
from optest import check, check_error, rand, randint


def test_cartesian_prod(device):
    check(lambda m, a, b, c: m.cartesian_prod(a, b, c), rand(3), rand(2), rand(4), device=device)
    check(lambda m, a: m.cartesian_prod(a), rand(3), device=device)
    check(lambda m, a, b: m.cartesian_prod(a, b), randint(0, 9, 3), randint(0, 9, 2), device=device)
    check_error(lambda m, a: m.cartesian_prod(a), rand(2, 2), device=device, match="Expect a 1D vector")


@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(device, r, with_replacement):
    check(lambda m, a: m.combinations(a, r=r, with_replacement=with_replacement), rand(4), device=device)


def test_combinations_errors(device):
    check_error(lambda m, a: m.combinations(a, r=-1), rand(3), device=device, match="non-negative number")
    check_error(lambda m, a: m.combinations(a), rand(3, 3), device=device, match="Expect a 1D vector")


@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (4, 6, 1), (6, 4, -2), (5, 5, 7), (5, 5, -9), (0, 3, 0),
                                            (3, 1, 0)])
def test_tril_triu_indices(device, row, col, offset):
    for name in ("tril_indices", "triu_indices"):
        check(lambda m: getattr(m, name)(row, col, offset, device=device if m is webtorch else None), device=device)
    check(lambda m: m.tril_indices(row, col, offset, dtype=m.int32, device=device if m is webtorch else None),
          device=device)


def test_tril_indices_errors():
    check_error(lambda m: m.tril_indices(3, 3, dtype=m.float32), match="not implemented for 'Float'")
    check_error(lambda m: m.triu_indices(-1, 3), match="row must be non-negative")


def test_block_diag(device):
    check(lambda m, a, b, c: m.block_diag(a, b, c), rand(2, 3), rand(1), rand(3, 2), device=device)
    check(lambda m, a, b: m.block_diag(a, b), rand(2, 2), randint(0, 5, 2, 1), device=device)
    check(lambda m: m.block_diag(m.tensor(2, device=device if m is webtorch else None), m.ones(2, 2, dtype=m.int32,
          device=device if m is webtorch else None)), device=device)
    check(lambda m: m.block_diag(), device=device)
    check_error(lambda m, a: m.block_diag(a), rand(2, 2, 2), device=device, match="Input 0 has 3 dimensions")


@pytest.mark.parametrize("N,increasing", [(None, False), (4, True), (1, False), (0, False)])
def test_vander(device, N, increasing):
    # PyTorch's own vander backward fails (its cumprod saves a view that is later written): values only
    check(lambda m, x: m.vander(x, N=N, increasing=increasing), rand(5), device=device, grad=False)
    check(lambda m, x: m.vander(x, N=N, increasing=increasing), randint(-3, 4, 3, dtype=np.int32), device=device)


def test_vander_errors(device):
    check_error(lambda m, x: m.vander(x), rand(2, 2), device=device, match="one-dimensional")
    check_error(lambda m, x: m.vander(x, N=-1), rand(2), device=device, match="N must be non-negative")
