"""grouped_mm: one matrix product per group, the groups cut along one dimension by cumulative offsets (mixture-of-
experts layers). Composed of slices, matmul and cat, so autograd and every device come with them."""
from .. import _dtype as D
from .creation import zeros
from .shape import cat, stack
from . import publish

_FLOATS = (D.float32, D.bfloat16, D.float16)


def _check(mat_a, mat_b, offs, bias, out_dtype):
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if m.dim() not in (2, 3):
            raise RuntimeError(f"{name} has to be 2 or 3d")
        if m.dtype not in _FLOATS:
            raise RuntimeError(f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got "
                               f"{D.scalar_type_name(m.dtype)}")
        # PyTorch's kernel reads rows through 16-byte aligned strides
        if any(st != 1 and (st * m.dtype.itemsize) % 16 for st in m.stride()):
            raise RuntimeError("strides should be multiple of 16 bytes")
    if mat_a.dtype is not mat_b.dtype:
        raise RuntimeError(f"grouped_mm: mat_a and mat_b must have one dtype, got {mat_a.dtype} and {mat_b.dtype}")
    if mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    if (offs is None) != (mat_a.dim() == 3 and mat_b.dim() == 3):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d")
    if offs is not None and offs.dtype is not D.int32:
        raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype is not mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")


def _groups(offs, count, extent):
    """(start, end) of each group from the cumulative ``offs``; a group that ends before it starts is empty."""
    ends = offs.tolist()
    if len(ends) != count:
        raise RuntimeError("matrix batch sizes have to match")
    spans, start = [], 0
    for g, end in enumerate(ends):
        if not 0 <= end <= extent:
            raise RuntimeError(f"grouped_mm: offs[{g}] = {end} is outside the grouped dimension's 0..{extent}")
        spans.append((start, max(start, end)))
        start = end
    return spans


def _fill_gaps(pieces, spans, extent, blank):
    """The pieces in order along the grouped dimension, with ``blank(n)`` for the n rows no group covers (PyTorch
    leaves them unwritten; here they are zeros)."""
    out, at = [], 0
    for (start, end), piece in zip(spans, pieces):
        if start > at:
            out.append(blank(start - at))
        out.append(piece)
        at = max(at, end)
    if at < extent:
        out.append(blank(extent - at))
    return out


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """Grouped matrix products. 2d x 3d: rows offs[g-1]:offs[g] of mat_a times mat_b[g]; 3d x 2d: mat_a[g] times
    columns offs[g-1]:offs[g] of mat_b; 2d x 2d: a (groups, M, N) result, one product per slice offs[g-1]:offs[g] of
    the contraction dimension; 3d x 3d (no offs): a batched product."""
    _check(mat_a, mat_b, offs, bias, out_dtype)
    kw = {"dtype": mat_a.dtype, "device": mat_a.device}
    if offs is None:
        if mat_a.shape[0] != mat_b.shape[0]:
            raise RuntimeError("matrix batch sizes have to match")
        return mat_a @ mat_b
    if mat_a.dim() == 2 and mat_b.dim() == 3:
        m, n = mat_a.shape[0], mat_b.shape[2]
        spans = _groups(offs, mat_b.shape[0], m)
        pieces = [mat_a[s:e] @ mat_b[g] for g, (s, e) in enumerate(spans)]
        return cat(_fill_gaps(pieces, spans, m, lambda k: zeros(k, n, **kw)), 0)
    if mat_a.dim() == 3:
        m, n = mat_a.shape[1], mat_b.shape[1]
        spans = _groups(offs, mat_a.shape[0], n)
        pieces = [mat_a[g] @ mat_b[:, s:e] for g, (s, e) in enumerate(spans)]
        return cat(_fill_gaps(pieces, spans, n, lambda k: zeros(m, k, **kw)), 1)
    spans = _groups(offs, offs.numel(), mat_a.shape[1])
    return stack([mat_a[:, s:e] @ mat_b[s:e] for s, e in spans])


FUNCTIONAL = {"grouped_mm": grouped_mm}

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its tables become public now
