"""View geometry on (shape, strides, offset) tuples: metadata only, no device work; and the Views the kernel
families take of their operands and results (``reshaped``, ``expanded``, ``sliced``)."""
from .graph import View


def view_strides(old_shape, old_strides, new_shape):
    """Strides that let (old_shape, old_strides) be seen as new_shape without a copy, or None
    (PyTorch's computeStride)."""
    if tuple(old_shape) == tuple(new_shape):
        return tuple(old_strides)
    numel = 1
    for s in old_shape:
        numel *= s
    if numel == 0 or not old_shape:
        st, acc = [], 1
        for s in reversed(new_shape):
            st.append(acc)
            acc *= max(s, 1)
        return tuple(reversed(st))
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def slice_geometry(shape, strides, offset, key):
    """Basic indexing (ints, slices with step > 0, None) -> (shape, strides, offset)."""
    out_shape, out_strides = [], []
    d = 0
    for k in key:
        if k is None:
            out_shape.append(1)
            out_strides.append(0)
        elif isinstance(k, slice):
            start, stop, step = k.indices(shape[d])
            n = max(0, (stop - start + step - 1) // step)
            if n:
                offset += start * strides[d]
            out_shape.append(n)
            out_strides.append(strides[d] * step)
            d += 1
        else:
            i = int(k)
            size = shape[d]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            offset += (i % size) * strides[d]
            d += 1
    out_shape.extend(shape[d:])
    out_strides.extend(strides[d:])
    return tuple(out_shape), tuple(out_strides), offset


def diagonal_geometry(shape, strides, offset, diag, dim1, dim2):
    if diag >= 0:
        n = max(0, min(shape[dim1], shape[dim2] - diag))
        if n:
            offset += diag * strides[dim2]
    else:
        n = max(0, min(shape[dim1] + diag, shape[dim2]))
        if n:
            offset -= diag * strides[dim1]
    keep = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    return (tuple(shape[d] for d in keep) + (n,), tuple(strides[d] for d in keep) + (strides[dim1] + strides[dim2],),
            offset)


def broadcast_strides(shape, strides, out_shape):
    """Strides of a (shape, strides) operand broadcast to out_shape (0 on broadcast dims)."""
    lead = len(out_shape) - len(shape)
    res = [0] * lead
    for s, st, o in zip(shape, strides, out_shape[lead:]):
        res.append(st if s == o else 0)
    return tuple(res)


def reshaped(h, shape):
    """View h as ``shape`` without a copy, or None when its strides do not allow it (as Backend.reshape_view)."""
    st = view_strides(h.shape, h.strides, tuple(shape))
    return None if st is None else View(h.st, tuple(shape), st, h.offset)


def expanded(h, shape):
    """View h broadcast to ``shape`` (stride 0 on the broadcast dims)."""
    return View(h.st, tuple(shape), broadcast_strides(h.shape, h.strides, tuple(shape)), h.offset)


def sliced(h, key):
    """View h[key] for basic indexing (ints, slices with step > 0, None)."""
    shape, strides, offset = slice_geometry(h.shape, h.strides, h.offset, key)
    return View(h.st, shape, strides, offset)
