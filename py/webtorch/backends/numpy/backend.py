"""Device "cpu": eager NumPy. A handle is an ndarray view of a root ndarray (its storage).

NumpyBackend is built from backends/contract.py (base.py): ``families`` names the module of plain functions that
implements each family; the handle metadata and ``as_strided`` are defined here. Context-free: the functions are
the class's static methods. No primitive runs on another backend.
"""
import functools

import numpy as np

from ... import _dtype as D
from ..base import Backend
from ..contract import FLOAT8_REFUSED, PRIMITIVES
from . import convolution, creation, elementwise, indexing, linalg, nn, optim, reduction, rng, scan_sort, transfer
from .arrays import FROM_NP, storage_dtype
from .float8 import FROM_STORAGE

# PyTorch does not warn on inf/nan producing math; neither do we (kept to the ufuncs we call).
np.seterr(all="ignore")


def _root(h):
    while isinstance(h.base, np.ndarray):
        h = h.base
    return h


def _storage(h):
    """h's storage as a C-contiguous array from its first element (what as_strided's offsets count from)."""
    root = h if h.base is None else _root(h)
    if root.flags.c_contiguous:
        return root
    # a foreign non-contiguous array shared by from_numpy: the memory it spans, from its first element
    span = 1 + sum((n - 1) * st for n, st in zip(root.shape, root.strides)) // root.itemsize if root.size else 0
    return np.lib.stride_tricks.as_strided(root, (span,), (root.itemsize,))


@functools.lru_cache(maxsize=4096)  # geometry's hot path; bounded: dynamic shapes bring new strides without end
def _element_strides(byte_strides, itemsize):
    """NumPy's byte strides in elements (computed once per (strides, itemsize): a training step repeats them)."""
    return tuple([s // itemsize for s in byte_strides])


class NumpyBackend(Backend):
    device_type = "cpu"
    families = {"creation": creation, "transfer": transfer, "elementwise": elementwise, "reduce": reduction,
                "matmul": linalg, "random": rng, "randperm": rng, "indexing": indexing, "conv": convolution,
                "unfold": convolution, "pool": convolution, "pad": convolution, "embedding": convolution,
                "optim": optim, "norm": nn, "scan_sort": scan_sort, "linalg": linalg, "checks": reduction}

    # ---- the handle family: metadata and the view primitive ------------------------------------------------------
    def geometry(self, h):
        isz = h.itemsize
        off = 0 if h.base is None else (h.__array_interface__["data"][0] - self.storage_ptr(h)) // isz
        return h.shape, _element_strides(h.strides, isz), off

    def dtype(self, h):
        return FROM_NP[h.dtype]

    def data_ptr(self, h):
        return h.__array_interface__["data"][0]

    def storage_ptr(self, h):
        return _root(h).__array_interface__["data"][0]

    def storage_nbytes(self, h):
        return _root(h).nbytes

    def as_strided(self, h, shape, stride, offset):
        return _at(h if h.base is None and h.flags.c_contiguous else _storage(h), h.dtype, shape, stride, offset)

    def view_dtype(self, h, dtype, shape, stride, offset):
        return _at(_storage(h), storage_dtype(dtype), shape, stride, offset)


def _at(storage, npdt, shape, stride, offset):
    """An ndarray of NumPy dtype npdt viewing storage's bytes at (shape, stride, offset), in npdt's elements."""
    isz = npdt.itemsize
    offset *= isz
    if offset > storage.nbytes:  # an empty view past the end (PyTorch keeps its offset): no element
        offset = 0
    v = np.ndarray(shape, npdt, storage, offset, tuple([s * isz for s in stride]))
    if 0 in stride and 0 not in shape and any(st == 0 and n > 1 for n, st in zip(shape, stride)):
        v.flags.writeable = False  # an expanded view: several elements at one address (check_writable)
    return v


def _refusing_float8(fn):
    """fn, raising PyTorch's NotImplementedError (naming the dtype and the fix) for a float8 operand: NumPy would
    refuse some (arithmetic on a structured dtype) but order others by their bytes (sort), a wrong number."""
    @functools.wraps(fn)
    def primitive(*args, **kwargs):
        for a in args:
            if type(a) is np.ndarray and a.dtype in FROM_STORAGE:
                raise D.float8_compute_error(FROM_NP[a.dtype])
        return fn(*args, **kwargs)
    return primitive


for _name, _fn in list(NumpyBackend.wiring.items()):
    if PRIMITIVES[_name].family in FLOAT8_REFUSED:
        NumpyBackend.wiring[_name] = _fn = _refusing_float8(_fn)
        setattr(NumpyBackend, _name, staticmethod(_fn))

_BACKEND = NumpyBackend()


def get_backend():
    return _BACKEND
