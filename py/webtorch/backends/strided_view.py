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


def as_matrices(a, b):
    """np.matmul's rule for 1-D operands, shared by the backends' matmul: ``a`` a row (1, k), ``b`` a column (k, 1),
    both as views; returns (a, b, dims of the product to drop afterwards, as negative indices)."""
    drop = []
    if len(a.shape) == 1:
        a = type(a)(a.st, (1,) + a.shape, (0,) + a.strides, a.offset)
        drop.append(-2)
    if len(b.shape) == 1:
        b = type(b)(b.st, b.shape + (1,), b.strides + (0,), b.offset)
        drop.append(-1)
    return a, b, drop


def dropped(r, drop):
    """The view of product ``r`` without the size-1 dims ``as_matrices`` added."""
    if not drop:
        return r
    keep = [d for d in range(len(r.shape)) if d - len(r.shape) not in drop]
    return type(r)(r.st, tuple(r.shape[d] for d in keep), tuple(r.strides[d] for d in keep), r.offset)
