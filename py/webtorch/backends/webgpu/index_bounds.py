"""Range checks of index tensors on the webgpu device without a readback when the host knows the values.

An integer buffer carries its (min, max) in ``Buffer.bounds`` (graph.py) when the host knows them: set at
upload, by creation ops with known values (full, arange, randperm), by kernels whose results lie in a known
range (arg reductions, max pooling's indices) and carried through casts and gathers (the values of x[idx]
are values of x); any other recorded write clears it. Only indices computed on the device with no known
range cost a small reduction and a read (a flush).

Kernels address with 32-bit words: an int64 index tensor is narrowed to int32 (``index32``) only after its
range was checked against the indexed size, so no index is ever truncated silently.
"""
from ... import _dtype as D


def device_range(be, h):
    """(min, max) of the values of the non-empty integer view h, reduced on the device and read back."""
    return be.item(be.reduce("amin", h, None, False, h.dtype)), be.item(be.reduce("amax", h, None, False, h.dtype))


def index_range(be, h, lo_ok, hi_ok):
    """(min, max) bounds of the non-empty integer view h: the storage's known bounds when they lie inside
    [lo_ok, hi_ok] (no readback; they bound every view of the storage), else h's exact range read back."""
    known = h.st.buf.bounds
    if known is not None and lo_ok <= known[0] and known[1] <= hi_ok:
        return known
    return device_range(be, h)


def check_index_range(be, h, n, error):
    """Raise ``error(bad_value)`` when some value of h lies outside [0, n)."""
    if not h.numel:
        return
    lo, hi = index_range(be, h, 0, n - 1)
    if lo < 0 or hi >= n:
        raise error(lo if lo < 0 else hi)


def keep_bounds(out, bounds):
    """Record that every value of the freshly written view ``out`` lies in ``bounds`` ((min, max) or None).
    Call after recording the node that writes it (recording clears the buffer's bounds)."""
    out.st.buf.bounds = None if bounds is None else (int(bounds[0]), int(bounds[1]))


def fits_int32(be, terms):
    """Whether sums of values of integer views -- ``terms``: (view or Python int, count of its values in a sum) --
    are known to fit int32 (host-known bounds, else each view's range read back): then an int64 computation may
    run through an int32 kernel exactly (its result widened back)."""
    total = 0
    for h, count in terms:
        if isinstance(h, int):
            total += abs(h) * count
        elif h.numel:
            lo, hi = index_range(be, h, -(1 << 31) + 1, (1 << 31) - 1)
            total += max(-lo, hi) * count
    return total <= (1 << 31) - 1


def index32(be, h):
    """The int32 view a kernel binds for the range-checked integer index view h (int64: one narrowing cast to
    its low words, exact because the values were checked to lie within a 32-bit size)."""
    return be.cast(h, D.int32) if h.dtype is D.int64 else h
