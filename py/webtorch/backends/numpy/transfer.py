"""NumPy implementations of the primitives that move values between the host, dtypes and devices (backends/contract.py):
from_flat, from_buffer, from_numpy, to_numpy, to_bytes, tolist, item, known_range, to_other."""
import numpy as np

from .arrays import FROM_NP, npdtype
from .float8 import FROM_STORAGE, STORAGE, decode, encode


def from_flat(values, shape, dtype):
    if dtype in STORAGE:  # Python numbers are doubles; c10 rounds a double to float8 through float32
        return encode(np.array(values, dtype=np.float64), dtype).reshape(shape)
    return np.array(values, dtype=npdtype(dtype)).reshape(shape)


def from_buffer(buf, shape, dtype):
    if dtype in STORAGE:
        return np.frombuffer(buf, dtype=STORAGE[dtype]).copy().reshape(shape)
    nd = npdtype(dtype).newbyteorder("<")
    return np.frombuffer(buf, dtype=nd).astype(npdtype(dtype)).reshape(shape)


def from_numpy(array, copy):
    if array.dtype not in FROM_NP:
        if array.dtype.kind == "f" and array.dtype.itemsize == 8:
            array = array.astype(np.float64)
        else:
            raise TypeError(f"can't convert np.ndarray of type numpy.{array.dtype}. The only supported types "
                            "are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return np.array(array, order="C") if copy else array


def to_numpy(h):
    return h


def to_bytes(h):
    a = np.ascontiguousarray(h)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return a.tobytes()


def tolist(h):
    return (decode(h) if h.dtype in FROM_STORAGE else h).tolist()


def item(h):
    if h.dtype in FROM_STORAGE:
        h = decode(h)
    return h.reshape(()).item() if h.ndim else h.item()


def known_range(h):
    return None  # reading host memory is as cheap as keeping bounds


def to_other(h, target):
    # (np.ascontiguousarray would turn a 0-dim array into shape (1,))
    return target.from_numpy(np.array(h, order="C", copy=True), copy=True)
