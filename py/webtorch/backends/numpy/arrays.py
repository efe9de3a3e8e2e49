"""What the NumPy family modules share: the dtype map between webtorch and NumPy, and results as ndarrays."""
import numpy as np

from ... import _dtype as D
from .float8 import FROM_STORAGE, STORAGE

TO_NP = {
    D.bool_: np.dtype(np.bool_), D.uint8: np.dtype(np.uint8), D.int8: np.dtype(np.int8),
    D.int16: np.dtype(np.int16), D.int32: np.dtype(np.int32), D.int64: np.dtype(np.int64),
    D.uint32: np.dtype(np.uint32), D.float16: np.dtype(np.float16), D.float32: np.dtype(np.float32),
    D.float64: np.dtype(np.float64),
}
FROM_NP = {v: k for k, v in TO_NP.items()}
FROM_NP.update(FROM_STORAGE)  # float8 handles (float8.py); not in TO_NP: nothing computes in them


def npdtype(dt):
    """The NumPy dtype primitives compute in for dt."""
    r = TO_NP.get(dt)
    if r is None:
        if dt in STORAGE:
            raise D.float8_compute_error(dt)
        raise TypeError(f"dtype {dt} is not supported on device 'cpu' (NumPy has no {dt.name}); "
                        "use torch.float32 or torch.float16")
    return r


def storage_dtype(dt):
    """The NumPy dtype a handle of dt is stored in (float8: its one-byte structured dtype)."""
    r = STORAGE.get(dt)
    return npdtype(dt) if r is None else r


def as_ndarray(r):
    """r, or the 0-dim ndarray of the NumPy scalar a full reduction returns."""
    return r if type(r) is np.ndarray else np.asarray(r)


def c_order(r):
    """r in C order: the layout every primitive's fresh result has (backends/contract.py). NumPy's ufuncs and
    reductions lay a result out as their inputs are (a transposed input gives a transposed result)."""
    return r if r.flags.c_contiguous else r.copy(order="C")
