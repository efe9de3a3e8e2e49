"""What the NumPy family modules share: the dtype map between webtorch and NumPy, and results as ndarrays."""
import numpy as np

from ... import _dtype as D

TO_NP = {
    D.bool_: np.dtype(np.bool_), D.uint8: np.dtype(np.uint8), D.int8: np.dtype(np.int8),
    D.int16: np.dtype(np.int16), D.int32: np.dtype(np.int32), D.int64: np.dtype(np.int64),
    D.uint32: np.dtype(np.uint32), D.float16: np.dtype(np.float16), D.float32: np.dtype(np.float32),
    D.float64: np.dtype(np.float64),
}
FROM_NP = {v: k for k, v in TO_NP.items()}


def npdtype(dt):
    r = TO_NP.get(dt)
    if r is None:
        raise TypeError(f"dtype {dt} is not supported on device 'cpu' (NumPy has no {dt.name}); "
                        "use torch.float32 or torch.float16")
    return r


def as_ndarray(r):
    """r, or the 0-dim ndarray of the NumPy scalar a full reduction returns."""
    return r if type(r) is np.ndarray else np.asarray(r)


def c_order(r):
    """r in C order: the layout every primitive's fresh result has (backends/contract.py). NumPy's ufuncs and
    reductions lay a result out as their inputs are (a transposed input gives a transposed result)."""
    return r if r.flags.c_contiguous else r.copy(order="C")
