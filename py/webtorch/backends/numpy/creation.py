"""NumPy implementations of the creation primitives of backends/contract.py (empty, full, arange, linspace, eye)."""
import numpy as np

from .arrays import npdtype


def empty(shape, dtype):
    return np.empty(shape, npdtype(dtype))


def full(shape, value, dtype):
    return np.full(shape, value, npdtype(dtype))


def arange(start, end, step, dtype):
    return np.arange(start, end, step, dtype=np.float64 if dtype.is_floating_point else np.int64).astype(
        npdtype(dtype))


def linspace(start, end, steps, dtype):
    return np.linspace(start, end, steps, dtype=np.float64).astype(npdtype(dtype))


def eye(n, m, dtype):
    return np.eye(n, m, dtype=npdtype(dtype))
