"""isin against PyTorch: integer and float elements, NaN, scalars, empty and assume_unique."""
import numpy as np

from optest import check, randint


def f32(x):
    return np.asarray(x, dtype=np.float32)


def test_isin(device):
    e = randint(0, 10, 4, 5)
    check(lambda m, a, b: m.isin(a, b), e, randint(0, 10, 6), device=device)
    check(lambda m, a, b: m.isin(a, b, invert=True), e, randint(0, 10, 2, 3), device=device)
    check(lambda m, a, b: m.isin(a, b), e, np.zeros(0, np.int64), device=device)
    check(lambda m, a, b: m.isin(a, b), f32([1, 2, np.nan, 3.5]), f32([2, np.nan, 3.5]), device=device)
    check(lambda m, b: m.isin(2, b), f32([1.5, 2.0]), device=device)
    check(lambda m, a: m.isin(a, 3), e, device=device)
    check(lambda m, a, b: m.isin(a, b, assume_unique=True), e, np.arange(3), device=device)
