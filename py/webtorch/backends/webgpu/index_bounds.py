"""Host-known value ranges of integer buffers: index checks on them need no device-side check.

An integer buffer carries its (min, max, dtype) in ``Buffer.bounds`` (handles.py) when the host knows them: set at
upload, by creation ops with known values (full, arange, randperm), by kernels whose results lie in a known
range (arg reductions, max pooling's indices, range-checked indices) and carried through casts and gathers
(the values of x[idx] are values of x); any other recorded write clears it. Indices computed on the device
with no known range are checked by the kernels themselves (device_checks.py), never by a readback.

Kernels address with 32-bit words: an int64 index reaches them narrowed to int32 (index_kernels.index32, or read through
its low words) only after its range was checked (an int64 value past int32 fails the device check), never
truncated silently.
"""
from ... import _dtype as D


def keep_bounds(out, bounds):
    """Record that every value of the freshly written view ``out`` lies in ``bounds`` ((min, max) or None).
    Call after recording the node that writes it (recording clears the buffer's bounds). The bounds hold for
    out's dtype only (a view(dtype) of the buffer reads other values)."""
    out.st.buf.bounds = None if bounds is None else (int(bounds[0]), int(bounds[1]), out.st.dtype)


def known_bounds(buf, dtype):
    """(min, max) of Buffer buf's values read as dtype when the host knows them, else None."""
    b = buf.bounds
    return b[:2] if b is not None and b[2] is dtype else None


# integer dtypes whose buffers may carry host-known bounds (index tensors)
BOUNDED = (D.int32, D.int64)
