"""The wasm backend's handle: View, a strided view (shape, strides, offset in elements) of a Storage."""
from ..strided_view import StridedView


class View(StridedView):
    """Immutable; ``addr`` is the byte address of the first element in the linear memory (kernels' argument)."""
    __slots__ = ("addr",)

    def __init__(self, st, shape, strides, offset):
        self.st = st
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self.addr = st.addr + offset * st.dtype.itemsize
