"""Strided geometry: (shape, strides, offset) tuples in elements. Decides every view for every device, and the
layout of an elementwise result (``elementwise_layout``, PyTorch's TensorIterator rule).

A Tensor is a strided view over a storage (DESIGN.md): its geometry is plain data that lives on the Tensor.
Each view op computes the view's geometry here, once for all devices, and the backend only makes a handle
for (storage, offset, shape, strides) (``Backend.as_strided``). Pure functions on tuples: no Tensor, no backend.
A view function maps (shape, strides, offset, *args) to the view's (shape, strides, offset). Arguments are
already checked (dims wrapped, sizes validated) by the ops that call them.
"""
import operator


def dim_index(dim):
    """An int ``dim`` argument; a float (``dim=1.0``) is refused as PyTorch refuses it."""
    try:
        return operator.index(dim)
    except TypeError:
        raise TypeError(f"argument 'dim' must be int, not {type(dim).__name__}") from None


def norm_dim(dim, ndim):
    """``dim`` wrapped into 0..ndim-1 (a 0-dim tensor takes dims 0 and -1), or PyTorch's IndexError."""
    n = ndim if ndim > 0 else 1
    if type(dim) is not int:
        dim = dim_index(dim)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def reduced(shape, dims, keepdim):
    """The shape of a reduction of ``shape`` over ``dims`` (distinct dims; empty: every dim), those kept as size 1
    with ``keepdim``."""
    if not dims or len(dims) == len(shape):  # every dim (the common full reduction, answered first)
        return (1,) * len(shape) if keepdim else ()
    if keepdim:
        return tuple([1 if d in dims else s for d, s in enumerate(shape)])
    return tuple([s for d, s in enumerate(shape) if d not in dims])


def contiguous_strides(shape):
    """C-order strides of shape (a size-0 or size-1 dim still advances by the product of the dims after it)."""
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= s if s > 1 else 1
    return tuple(reversed(st))


def is_contiguous(shape, strides):
    """PyTorch's is_contiguous: C order, ignoring the strides of size-1 dims; any size-0 tensor is contiguous."""
    expected, dense = 1, True
    for s, t in zip(reversed(shape), reversed(strides)):
        if s == 0:
            return True
        if s != 1:
            dense = dense and t == expected
            expected *= s
    return dense


def is_expanded(shape, strides):
    """Several elements at one address through a stride-0 dim (such a view must not be written)."""
    return any(st == 0 and s > 1 for s, st in zip(shape, strides))


def view_strides(old_shape, old_strides, new_shape):
    """Strides that let (old_shape, old_strides) be seen as new_shape without a copy, or None when a new dim
    would span two non-adjacent chunks of memory (PyTorch's computeStride: reshape copies then, view raises)."""
    old_shape, new_shape = tuple(old_shape), tuple(new_shape)
    if not old_shape or numel(old_shape) == 0:
        return contiguous_strides(new_shape)
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


def permute(shape, strides, offset, dims):
    return tuple([shape[d] for d in dims]), tuple([strides[d] for d in dims]), offset


def reverse_dims(shape, strides, offset):
    """t() / .T: every dim in reverse order."""
    return tuple(shape)[::-1], strides[::-1], offset


def transpose_dims(ndim, d0, d1):
    perm = list(range(ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return tuple(perm)


def expand_strides(shape, strides, out_shape):
    """Strides of (shape, strides) broadcast to out_shape (new leading dims and broadcast dims get stride 0)."""
    lead = len(out_shape) - len(shape)
    res = [0] * lead
    for s, st, o in zip(shape, strides, out_shape[lead:]):
        res.append(st if s == o else 0)
    return tuple(res)


def expand(shape, strides, offset, out_shape):
    return out_shape, expand_strides(shape, strides, out_shape), offset


def squeeze(shape, strides, offset, dims):
    """Drop the size-1 dims among dims."""
    keep = [d for d, s in enumerate(shape) if not (s == 1 and d in dims)]
    return tuple([shape[d] for d in keep]), tuple([strides[d] for d in keep]), offset


def unsqueeze(shape, strides, offset, dim):
    """Insert a size-1 dim at dim; its stride is what PyTorch gives it (the extent of the dims after it)."""
    shape = tuple(shape)
    st = 1 if dim >= len(shape) else shape[dim] * strides[dim]
    return shape[:dim] + (1,) + shape[dim:], strides[:dim] + (st,) + strides[dim:], offset


def slice_key(shape, strides, offset, key):
    """Basic indexing: key is a complete tuple of ints (in range), slices with step > 0 and None (a new dim, with
    unsqueeze's stride). An empty slice still starts at its (clamped) start, as PyTorch's does."""
    out_shape, out_strides = [], []
    d = 0
    for k in key:
        if k is None:
            out_shape.append(1)
            out_strides.append(shape[d] * strides[d] if d < len(shape) else 1)
        elif isinstance(k, slice):
            start, stop, step = k.indices(shape[d])
            n = max(0, (stop - start + step - 1) // step)
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


def diagonal(shape, strides, offset, diag, dim1, dim2):
    """The diag-th diagonal of the (dim1, dim2) planes as a new last dim."""
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


def unfold(shape, strides, offset, dim, size, step):
    """Windows of size elements along dim, step apart, as a new last dim (a 0-dim tensor is one window)."""
    shape = tuple(shape)
    if not shape:
        return (size,), (1,), offset
    n = (shape[dim] - size) // step + 1
    return (shape[:dim] + (n,) + shape[dim + 1:] + (size,),
            strides[:dim] + (strides[dim] * step,) + strides[dim + 1:] + (strides[dim],), offset)


def view_dtype(shape, strides, offset, old_itemsize, new_itemsize):
    """The geometry of the same bytes as elements of new_itemsize (Tensor.view(dtype), ATen's rule): the last dim's
    size and every other stride and the offset scale by the size ratio, the last stride stays 1 (the op checked that
    it is 1 and, for a bigger element, that the last size, the other strides and the offset divide by the ratio)."""
    if old_itemsize == new_itemsize:
        return shape, strides, offset
    if old_itemsize > new_itemsize:
        r = old_itemsize // new_itemsize
        return shape[:-1] + (shape[-1] * r,), tuple(s * r for s in strides[:-1]) + (1,), offset * r
    r = new_itemsize // old_itemsize
    return shape[:-1] + (shape[-1] // r,), tuple(s // r for s in strides[:-1]) + (1,), offset // r


def extent(shape, strides, offset):
    """Elements of storage a view needs: one past its last element (0 when it has none)."""
    if not all(shape):
        return 0
    return offset + 1 + sum((s - 1) * st for s, st in zip(shape, strides))


def coalesce(shape, stride_lists):
    """Merge dims that all operands walk contiguously; drop size-1 dims. Returns (shape, stride_lists)."""
    dims = [(s, [st[d] for st in stride_lists]) for d, s in enumerate(shape) if s != 1]
    if not dims:
        return (), [() for _ in stride_lists]
    out = [dims[0]]
    for s, sts in dims[1:]:
        ps, psts = out[-1]
        if all(p == q * s for p, q in zip(psts, sts)):
            out[-1] = (ps * s, sts)
        else:
            out.append((s, sts))
    return tuple(s for s, _ in out), [tuple(o[1][k] for o in out) for k in range(len(stride_lists))]


def is_non_overlapping_and_dense(shape, strides):
    """PyTorch's is_non_overlapping_and_dense: the elements fill a block of memory exactly, in some dim order."""
    return dense_in_order(shape, strides, sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: strides[d]))


def dense_in_order(shape, strides, order):
    """Whether the elements fill a block of memory exactly with the dims ``order`` lists laid out innermost first
    (size-1 dims' strides ignored, as PyTorch does)."""
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


_CHANNELS_LAST = (1, 3, 2, 0)  # PyTorch's channels_last of a 4-D geometry, innermost dim first


def _sorted_dims(shape, stride_lists):
    """TensorIterator's dim order (fastest first): an insertion sort of the dims, where the first operand whose
    strides tell two dims apart decides (a broadcast dim, stride 0 here, tells nothing; equal strides put the
    longer dim outside)."""
    nd = len(shape)

    def should_swap(d0, d1):
        for st in stride_lists:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def elementwise_layout(shape, operands):
    """The layout of an elementwise result of ``shape`` (broadcast) as PyTorch's TensorIterator lays it out, from
    ``operands``, the geometries ((shape, strides, ...)) of the tensor operands in argument order. None for C order
    (the layout of every backend's fresh result); else (dims, strides): the result's dims from the slowest to the
    fastest (it is C-contiguous when permuted so) and its strides.

    Operands all of ``shape``: all contiguous give C order, all channels-last (4-D) channels-last, all
    non-overlapping and dense with one stride list that stride list. Otherwise the dims are ordered by the
    operands' strides (_sorted_dims) and the result is contiguous in that order. A result with no element is
    C-ordered here."""
    nd = len(shape)
    if nd < 2 or not all(shape):
        return None
    if all(tuple(o[0]) == shape for o in operands):
        if all(is_contiguous(o[0], o[1]) for o in operands):
            return None
        if nd == 4 and all(dense_in_order(o[0], o[1], _CHANNELS_LAST) for o in operands):
            n, c, h, w = shape
            return (0, 2, 3, 1), (h * w * c, 1, w * c, c)
        first = tuple(operands[0][1])
        if all(tuple(o[1]) == first for o in operands[1:]) and is_non_overlapping_and_dense(shape, first):
            return tuple(sorted(range(nd), key=lambda d: -first[d] if shape[d] > 1 else 0)), first
    perm = _sorted_dims(shape, [expand_strides(o[0], o[1], shape) for o in operands])
    if perm == list(range(nd - 1, -1, -1)):
        return None
    strides, acc = [0] * nd, 1
    for d in perm:
        strides[d] = acc
        acc *= shape[d]
    return tuple(perm[::-1]), tuple(strides)
