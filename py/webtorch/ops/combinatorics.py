"""Index and product constructions: cartesian_prod, combinations, tril_indices/triu_indices, block_diag, vander.

Index tensors are built on the device from arange/repeat_interleave (only per-row counts are computed in
Python); values are then picked with differentiable indexing, so gradients flow as in PyTorch.
"""
import itertools

from .. import _dtype as D
from .creation import arange, tensor, zeros
from .._dtype import scalar_type_name
from .shape import cat, stack, meshgrid
from . import publish


def _check_1d(t):
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors):
    for t in tensors:
        _check_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], dim=1)


def combinations(input, r=2, with_replacement=False):
    _check_1d(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty((0,))
    n = input.shape[0]
    # the index table depends on (n, r) only
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = [i for c in pick(range(n), r) for i in c]
    return input[tensor(rows, dtype=D.int64, device=input.device).reshape(-1, r)]


def _tri_indices(name, row, col, offset, dtype, device, lower):
    if dtype is None:
        dtype = D.int64
    if dtype not in (D.int64, D.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name(dtype)}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    # per row: the first column and the number of columns (PyTorch's order: row-major)
    if lower:
        firsts = [0] * row
        counts = [max(0, min(i + offset + 1, col)) for i in range(row)]
    else:
        firsts = [min(col, max(0, i + offset)) for i in range(row)]
        counts = [col - f for f in firsts]
    total = sum(counts)
    if total == 0:
        return zeros((2, 0), dtype=dtype, device=device)
    starts, acc = [], 0
    for c, f in zip(counts, firsts):
        starts.append(f - acc)
        acc += c
    rows = arange(row, dtype=D.int64, device=device).repeat_interleave(
        tensor(counts, dtype=D.int64, device=device), output_size=total)
    cols = arange(total, dtype=D.int64, device=device) + tensor(starts, dtype=D.int64, device=device)[rows]
    return stack([rows, cols]).to(dtype)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices("triu_indices", row, col, offset, dtype, device, False)


def block_diag(*tensors):
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, 1) if t.dim() == 0 else (t.reshape(1, -1) if t.dim() == 1 else t))
    if not mats:
        return zeros((1, 0))
    dtype = D.result_type(*tensors)  # 0-dim inputs promote as PyTorch's result_type says
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        h, w = m.shape
        parts = [m.to(dtype)]
        if left:
            parts.insert(0, m.new_zeros((h, left), dtype=dtype))
        if width - left - w:
            parts.append(m.new_zeros((h, width - left - w), dtype=dtype))
        rows.append(cat(parts, dim=1) if len(parts) > 1 else parts[0])
        left += w
    return cat(rows, dim=0)


def vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = D.promote_types(x.dtype, D.int64)
    if n == 0:
        return x.new_empty((x.shape[0], 0), dtype=dtype)
    # PyTorch's construction: a running product of [1, x, x, ...] (so integers widen to int64 like cumprod)
    ones = x.new_ones((x.shape[0], 1), dtype=dtype)
    if n == 1:
        result = ones
    else:
        result = cat([ones, x.to(dtype).unsqueeze(1).expand(x.shape[0], n - 1)], dim=1).cumprod(dim=1)
    return result if increasing else result.flip(1)


FUNCTIONS = {"cartesian_prod": cartesian_prod, "combinations": combinations, "tril_indices": tril_indices,
             "triu_indices": triu_indices, "block_diag": block_diag, "vander": vander}

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its tables become public now
