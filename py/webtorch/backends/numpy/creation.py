"""NumPy implementations of the creation primitives of backends/contract.py (empty, full, arange, linspace, eye)."""
import numpy as np

from .arrays import npdtype, storage_dtype
from .float8 import STORAGE, encode


def empty(shape, dtype):
    return np.empty(shape, storage_dtype(dtype))


def full(shape, value, dtype):
    if dtype in STORAGE:
        return encode(np.full(shape, value, np.float32), dtype)
    return np.full(shape, value, npdtype(dtype))


def arange(start, end, step, dtype):
    return np.arange(start, end, step, dtype=np.float64 if dtype.is_floating_point else np.int64).astype(
        npdtype(dtype))


def linspace(start, end, steps, dtype):
    return np.linspace(start, end, steps, dtype=np.float64).astype(npdtype(dtype))


def eye(n, m, dtype):
    if dtype in STORAGE:
        return encode(np.eye(n, m, dtype=np.float32), dtype)
    return np.eye(n, m, dtype=npdtype(dtype))
