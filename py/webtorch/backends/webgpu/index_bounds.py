"""Range checks of index tensors on the webgpu device without a readback when the host knows the values.

An integer buffer uploaded from the host carries its (min, max) in ``Buffer.bounds`` (graph.py) until a
recorded kernel writes it; kernels that produce indices in a known range (max pooling) set it too. Only
indices computed on the device with no known range cost a small reduction and a read (a flush).
"""


def device_range(be, h):
    """(min, max) of the values of the non-empty integer view h, reduced on the device and read back."""
    return be.item(be.reduce("amin", h, None, False, h.dtype)), be.item(be.reduce("amax", h, None, False, h.dtype))


def check_index_range(be, h, n, error):
    """Raise ``error(bad_value)`` when some value of h lies outside [0, n)."""
    if not h.numel:
        return
    known = h.st.buf.bounds  # storage-wide: a bound of every view of it
    lo, hi = known if known is not None else device_range(be, h)
    if (lo < 0 or hi >= n) and known is not None:  # the storage's range may be wider than this view's
        lo, hi = device_range(be, h)
    if lo < 0 or hi >= n:
        raise error(lo if lo < 0 else hi)
