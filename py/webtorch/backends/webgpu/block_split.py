"""Template-kernel primitives over tensors past one binding, run in blocks of their independent work.

The product, elementwise, reduction, embedding and index families bind windows of a large storage and address
them relative to the window (binding_windows.py); so do softmax / log_softmax (and so cross_entropy) and layer_norm,
over blocks of rows (softmax_norm_kernels._row_blocks; here only when a block's kept dims do not coalesce, and to
refuse a row too large), batch_norm, as reductions and elementwise passes, and randperm, in chunks of its sort. The
other row and plane families -- convolutions and F.unfold/F.fold, pooling, pad, scans and sorts, linalg's batched
solvers -- are independent along some axes instead: the samples of a convolution, the planes of a pooling, the
matrices of a batch. ``in_blocks`` runs such a primitive once per block of those
axes, each block small enough that every tensor it touches fits one binding: a block's slice of an input stored past a
binding is copied into a fresh storage (the copy is an elementwise kernel, which windows), the primitive runs on
the blocks as it would on small tensors, and each block's results are copied into their place in the full
outputs (or summed, for a gradient that reduces over the split axis, as a convolution's weight gradient over
samples). A block halves along its outermost axis first, so the blocks are as few and as large as fit.

The cost beside the kernels: one extra read and write of each large operand (the block copies), and one submit
per block (each block's work is submitted before the next is recorded, so the next reuses its temporaries: the
memory beside the full results is one block's, not every block's). A block of one index along every axis that still
does not fit -- one softmax row of 40 million classes -- is refused with OutOfMemoryError naming the op, the sizes,
the limit and what to try (a scan's long rows are segmented instead: scan_sort_kernels._long_rows).
"""
from ..._geometry import numel
from . import binding_windows
from .dtypes import DEVICE_ITEMSIZE
from .handles import View
from .runtime import OutOfMemoryError


class Out:
    """One result of a split primitive: its full ``shape``, ``dtype`` (the widest it may take: float16 results are
    computed in float32, so an element counts at least four bytes), ``dims`` (per axis: the dim of the result
    along it, or None) and ``combine``: "place" (each block writes its part) or "sum" (every block computes all
    of it; the parts add up). A scratch tensor the kernel
    makes inside (an im2col buffer) is an Out too, never returned: the blocks are sized so it fits."""
    __slots__ = ("shape", "itemsize", "dims", "combine")

    def __init__(self, shape, dtype, dims, combine="place"):
        self.shape, self.dims, self.combine = tuple(shape), tuple(dims), combine
        self.itemsize = max(DEVICE_ITEMSIZE[dtype], 4)


def kept_axes(shape, dim):
    """(axes, dims) of a primitive working along ``dim`` row by row: every other dim is an independent axis."""
    kept = tuple(d for d in range(len(shape)) if d != dim)
    return tuple(shape[d] for d in kept), kept


def _block_numel(shape, dims, box):
    sizes = list(shape)
    for d, (a, b) in zip(dims, box):
        if d is not None:
            sizes[d] = b - a
    return numel(sizes)


def _in_bytes(v, dims, box):
    """Bytes a block's slice of input v takes in the fresh storage it is copied into (float16 is computed in
    float32, so a slice counts at least four bytes an element)."""
    return _block_numel(v.shape, dims, box) * max(DEVICE_ITEMSIZE[v.dtype], 4)


def _too_big(ins, outs, box, limit):
    """The (bytes, shape) of the first tensor a block ``box`` would bind past ``limit``, or None."""
    for v, dims in ins:
        if type(v) is View and binding_windows.is_big(v.st.buf):
            n = _in_bytes(v, dims, box)
            if n > limit - binding_windows.ALIGN:
                return n, v.shape
    for o in outs:
        n = _block_numel(o.shape, o.dims, box) * o.itemsize
        if n > limit:
            return n, o.shape
    return None


def _boxes(name, what, ins, outs, axes, hint, limits):
    """Boxes ((start, stop) per axis) whose blocks fit one binding (of the device's ``limits``) each, in order."""
    limit = limits.binding_size()
    out, stack = [], [tuple((0, n) for n in axes)]
    while stack:
        box = stack.pop()
        over = _too_big(ins, outs, box, limit)
        if over is None:
            out.append(box)
            continue
        ax = next((i for i, (a, b) in enumerate(box) if b - a > 1), None)
        if ax is None:
            nbytes, shape = over
            raise OutOfMemoryError(
                f"{name}: one {what} of a tensor of shape {tuple(shape)} takes {nbytes:,} bytes, past this adapter's "
                f"maxStorageBufferBindingSize ({limit:,} bytes), and this kernel splits its launch only between "
                f"{what}s; use {hint}, or torch.float16 where the adapter supports it")
        a, b = box[ax]
        m = a + (b - a) // 2
        stack.append(box[:ax] + ((m, b),) + box[ax + 1:])
        stack.append(box[:ax] + ((a, m),) + box[ax + 1:])
    return out


def _narrow(v, dims, box):
    for d, (a, b) in zip(dims, box):
        if d is not None:
            v = binding_windows.narrowed(v, d, a, b)
    return v


def _block_input(rec, v, dims, box):
    """Input v's part in block ``box``: a view of v (its storage fits one binding), or a fresh copy of it."""
    if type(v) is not View:
        return v
    part = _narrow(v, dims, box)
    if not binding_windows.is_big(v.st.buf):
        return part
    return rec.ew("copy", [part], v.dtype, v.dtype, part.shape)


def needed(ins, outs, limits):
    """True when some input's storage or some result is past one binding of the device whose ``limits``
    (limits.py) are given (the primitive runs in blocks)."""
    limit = limits.binding_size()
    return any(type(v) is View and v.st.buf.nbytes > limit for v, _ in ins) or \
        any(numel(o.shape) * o.itemsize > limit for o in outs)


def in_blocks(rec, fn, ins, outs, axes, name, what, hint):
    """``fn(*inputs)`` (a tuple of results, or one) computed block by block along ``axes`` (sizes of the
    independent axes): ``ins`` are (value, dims) pairs -- a View narrowed along ``dims`` (per axis: its dim, or
    None to pass it whole), or any other argument passed as is --; ``outs`` the Outs, the returned results first
    (in fn's order; a result fn gives as None stays None), then scratch tensors. ``name``, ``what`` (the unit a
    launch splits between: "row", "sample") and ``hint`` (what to try) word the refusal of a unit too large."""
    full = [None] * len(outs)
    single = False
    boxes = _boxes(name, what, ins, outs, axes, hint, rec.limits)
    for k, box in enumerate(boxes):
        if k:  # submit the blocks before: their temporaries return to the pool for this block to reuse
            rec.flush()
        res = fn(*(_block_input(rec, v, dims, box) for v, dims in ins))
        single = not isinstance(res, tuple)
        for i, (r, o) in enumerate(zip((res,) if single else res, outs)):
            if r is None:
                continue
            if o.combine == "sum":
                full[i] = r if full[i] is None else rec.ew("add", [full[i], r], r.dtype, r.dtype, r.shape)
                continue
            if full[i] is None:
                full[i] = rec.new(o.shape, r.dtype)
            rec.ew("copy", [r], r.dtype, r.dtype, r.shape, out=_narrow(full[i], o.dims, box))
    return full[0] if single else tuple(full[:len(res)])
