"""Host-known value ranges of integer buffers: index checks on them need no device-side check.

An integer buffer carries its (min, max) in ``Buffer.bounds`` (graph.py) when the host knows them: set at
upload, by creation ops with known values (full, arange, randperm), by kernels whose results lie in a known
range (arg reductions, max pooling's indices, range-checked indices) and carried through casts and gathers
(the values of x[idx] are values of x); any other recorded write clears it. Indices computed on the device
with no known range are checked by the kernels themselves (device_checks.py), never by a readback.

Kernels address with 32-bit words: an int64 index reaches them narrowed to int32 (``index32``, or read through
its low words) only after its range was checked (an int64 value past int32 fails the device check), never
truncated silently.
"""
from ... import _dtype as D


def keep_bounds(out, bounds):
    """Record that every value of the freshly written view ``out`` lies in ``bounds`` ((min, max) or None).
    Call after recording the node that writes it (recording clears the buffer's bounds)."""
    out.st.buf.bounds = None if bounds is None else (int(bounds[0]), int(bounds[1]))


def _value_range(be, h):
    """(min, max) of the non-empty integer view h: its storage's known bounds, else reduced on the device and
    read back (only int64 scatters and pooling of computed values need it, to stay on the device)."""
    known = h.st.buf.bounds
    if known is not None:
        return known
    return (be.item(be.reduce("amin", h, None, False, h.dtype)),
            be.item(be.reduce("amax", h, None, False, h.dtype)))


def fits_int32(be, terms):
    """Whether sums of values of integer views -- ``terms``: (view or Python int, count of its values in a sum) --
    are known to fit int32 (host-known bounds, else each view's range read back): then an int64 computation may
    run through an int32 kernel exactly (its result widened back)."""
    total = 0
    for h, count in terms:
        if isinstance(h, int):
            total += abs(h) * count
        elif h.numel:
            lo, hi = _value_range(be, h)
            total += max(-lo, hi) * count
    return total <= (1 << 31) - 1


def index32(be, h):
    """The int32 view a kernel binds for the range-checked integer index view h (int64: one narrowing cast to
    its low words, exact because the values were checked to lie within a 32-bit size)."""
    return be.cast(h, D.int32) if h.dtype is D.int64 else h
