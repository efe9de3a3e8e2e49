"""StridedView: what the handle classes of the wasm and webgpu backends share (wasm/views.py, webgpu/handles.py).

A handle is a strided view (shape, strides, offset in elements) of a storage ``st`` that knows its dtype. Each
subclass's ``__init__`` sets these fields and its own (one Python frame per view made: ops make views per call).
"""
from .._geometry import contiguous_strides, numel


class StridedView:
    __slots__ = ("st", "shape", "strides", "offset")

    @property
    def dtype(self):
        return self.st.dtype

    @property
    def numel(self):
        return numel(self.shape)

    def is_contiguous(self):
        return self.strides == contiguous_strides(self.shape)
