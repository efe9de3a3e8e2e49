"""The wasm backend's handle: View, a strided view (shape, strides, offset in elements) of a Storage."""
from ..._geometry import contiguous_strides, numel


class View:
    """Immutable; ``addr`` is the byte address of the first element in the linear memory (kernels' argument)."""
    __slots__ = ("st", "shape", "strides", "offset", "addr")

    def __init__(self, st, shape, strides, offset):
        self.st = st
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self.addr = st.addr + offset * st.dtype.itemsize

    @property
    def dtype(self):
        return self.st.dtype

    @property
    def numel(self):
        return numel(self.shape)

    def is_contiguous(self):
        return self.strides == contiguous_strides(self.shape)
