"""The wasm backend's handle: View, a strided view (shape, strides, offset in elements) of a Storage."""
from ..._geometry import contiguous_strides, numel


class View:
    __slots__ = ("st", "shape", "strides", "offset")

    def __init__(self, st, shape, strides, offset):
        self.st = st
        self.shape = shape
        self.strides = strides
        self.offset = offset

    @property
    def dtype(self):
        return self.st.dtype

    @property
    def numel(self):
        return numel(self.shape)

    @property
    def addr(self):
        """Byte address of the first element in the linear memory."""
        return self.st.addr + self.offset * self.st.dtype.itemsize

    def is_contiguous(self):
        return self.strides == contiguous_strides(self.shape)
