"""Views of webgpu handles for the kernel families: _geometry decides each view, this only wraps it in a View."""
from ... import _geometry as G
from .handles import View


def reshaped(h, shape):
    """View h as ``shape`` without a copy, or None when its strides do not allow it (as Backend.reshape_view)."""
    st = G.view_strides(h.shape, h.strides, tuple(shape))
    return None if st is None else View(h.st, tuple(shape), st, h.offset)


def expanded(h, shape):
    """View h broadcast to ``shape`` (stride 0 on the broadcast dims)."""
    return View(h.st, *G.expand(h.shape, h.strides, h.offset, tuple(shape)))


def sliced(h, key):
    """View h[key] for basic indexing (ints, slices with step > 0, None)."""
    return View(h.st, *G.slice_key(h.shape, h.strides, h.offset, key))
