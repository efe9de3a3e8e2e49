"""linalg_det, linalg_solve and linalg_inv as WGSL dispatches: one batched LU with partial pivoting each.

Each primitive is one dispatch of webgpu-shaders/linalg_lu.wgsl (one workgroup per matrix, any n: the
matrix is factored in a storage scratch buffer, never in workgroup memory) or, for n <= SMALL_N, of
linalg_lu_small.wgsl (one invocation per matrix, no barriers, the same arithmetic), reading A and B through
their strides (transposed or broadcast operands need no copy). det stays lazy. solve and inv must raise PyTorch's
LinAlgError for a singular matrix, so they read back the kernel's per-matrix info flags (batch int32: one
small readback, which flushes the queue) -- the one synchronization point of these ops. float16 computes in
float32 (conv_kernels.float_kernel).

linalg_cholesky is one dispatch of linalg_cholesky.wgsl (workgroup per matrix) or linalg_cholesky_small.wgsl
(invocation per matrix, n <= SMALL_N), factoring in place in the output; its info stays on the device (the op
layer reads it only where PyTorch raises). linalg_solve_triangular is one dispatch of linalg_trsm.wgsl (an
invocation per right-hand-side column; left=False is the transposed problem, through strides).
"""
import struct

from ... import _dtype as D
from ..._broadcast import broadcast_shapes
from ..base import _LinAlgError
from . import block_split, codegen, creation, views as view_geometry
from .block_split import Out
from .elementwise_kernels import cast, contiguous
from .kernel_launch import float_kernel, source
from .fallback import host_fallback
from ..._geometry import expand_strides, numel as _prod

_DET, _SOLVE, _INVERSE = 0, 1, 2
SMALL_N = 16  # up to this n one invocation factors a whole matrix (linalg_lu_small.wgsl)
_BATCH_DIMS = 4  # batch dims the kernel unravels (after coalescing); more take a contiguous copy first




def _batch_geometry(rec, a, b, bshape):
    """(a, b, sizes, a strides, b strides): the batch dims ``bshape`` of a and b (b may be None) coalesced to
    at most four (padded in front with size 1 / stride 0), a and b made contiguous when they do not."""
    views = [v for v in (a, b) if v is not None]
    strides = [expand_strides(v.shape[:-2], v.strides[:-2], bshape) for v in views]
    sizes, strides = codegen.coalesce(bshape, strides)
    if len(sizes) > _BATCH_DIMS:
        views = [contiguous(rec, view_geometry.expanded(v, bshape + v.shape[-2:])) for v in views]
        strides = [v.strides[:-2] for v in views]
        sizes, strides = codegen.coalesce(bshape, strides)
    pad = _BATCH_DIMS - len(sizes)
    strides = [(0,) * pad + st for st in strides] + [(0,) * _BATCH_DIMS]
    return views[0], (views[1] if b is not None else views[0]), (1,) * pad + sizes, strides[0], strides[1]


def _index_in(flat, shape, sub_shape):
    """The flat index, in ``sub_shape`` (broadcast to ``shape``), of the element at ``flat`` in ``shape``."""
    coords = []
    for s in reversed(shape):
        coords.append(flat % s)
        flat //= s
    coords.reverse()
    coords = coords[len(shape) - len(sub_shape):]
    out = 0
    for c, s in zip(coords, sub_shape):
        out = out * s + (c if s != 1 else 0)
    return out


def _raise_singular(what, info_bytes, bshape, a_shape):
    """PyTorch's LinAlgError for the first singular matrix, named by its batch element in A's own batch dims
    (as PyTorch, which factors A before broadcasting) when A is batched."""
    first = next(i for i in range(0, len(info_bytes), 4) if info_bytes[i:i + 4] != b"\0\0\0\0")
    info = struct.unpack_from("<i", info_bytes, first)[0]
    prefix = ""
    if len(a_shape) > 2:
        prefix = f"(Batch element {_index_in(first // 4, bshape, a_shape[:-2])}): "
    if what == "inv":
        raise _LinAlgError(f"linalg.inv: {prefix}The diagonal element {info} is zero, the inversion could not be "
                           "completed because the input matrix is singular.")
    raise _LinAlgError(f"torch.linalg.solve: {prefix}The solver failed because the input matrix is singular.")


def _by_matrices(rec, fn, operands, bshape, outs, name):
    """Run a batched solver in blocks of its (broadcast) batch ``bshape`` when a tensor it binds is past one
    binding (block_split.py); None when none is. ``operands``: the (..., r, c) inputs (None passes as is), seen
    expanded to the batch; ``outs``: (shape, dtype) of the results, then of the kernel's scratch, batch first."""
    dims = tuple(range(len(bshape)))
    ins = [(None if v is None else view_geometry.expanded(v, bshape + v.shape[-2:]), dims) for v in operands]
    outs = [Out(shape, dt, dims) for shape, dt in outs]
    if not block_split.needed(ins, outs, rec.limits):
        return None
    return block_split.in_blocks(rec, fn, ins, outs, bshape, name, "matrix",
                                 "smaller matrices, or fewer of them in one call")


def _c(count, wg):
    return -(-count // wg)


def _fits(n, k, cholesky, limits):
    """Whether one workgroup factors an n x n matrix (k right-hand columns) within one invocation's loop
    budget (limits.py): its loops run about n^3 / (3 WG) times, so past a few hundred rows the factorization
    runs on the host (counted in stats()["host_fallbacks"]) rather than come back wrong."""
    if n <= SMALL_N:
        return True
    wg = 64 if n * (n + k) <= 4096 else 256
    if cholesky:
        trips = n + 2 * _c(n * n, wg) + sum(_c(n - j, wg) + _c((n - j) ** 2, wg) for j in range(n))
    else:  # pivot search and its tree, the row swap, the elimination, then the substitution per column block
        trips = 3 * _c(n * (n + k), wg) + sum(2 * _c(n - j, wg) + 8 + 3 * _c(n, wg) + _c((n - j) * (n + k), wg)
                                              + 2 * _c(k, wg) + _c(n * k, wg) for j in range(n))
    return trips <= limits.loop_trips()


def linalg_det(rec, a):
    r = float_kernel(rec, lambda a: _lu(rec, _DET, a, None), a)
    return host_fallback(rec, "linalg_det", a) if r is None else r


def linalg_inv(rec, a):
    r = float_kernel(rec, lambda a: _lu(rec, _INVERSE, a, None), a)
    return host_fallback(rec, "linalg_inv", a) if r is None else r


def linalg_solve(rec, a, b):
    r = float_kernel(rec, lambda a, b: _lu(rec, _SOLVE, a, b), a, b)
    return host_fallback(rec, "linalg_solve", a, b) if r is None else r


def _lu(rec, mode, a, b):
    n = a.shape[-1]
    a_shape = a.shape
    if mode == _SOLVE:
        if b.shape[-2] != n:
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                               f"({n}x{n} and {b.shape[-2]}x{b.shape[-1]})")
        bshape = broadcast_shapes(a.shape[:-2], b.shape[:-2])
        k = b.shape[-1]
    else:
        bshape = tuple(a.shape[:-2])
        k = n if mode == _INVERSE else 0
    batch = _prod(bshape)
    if mode == _DET:
        out_shape = bshape
        if n == 0:
            return creation.full(rec, out_shape, 1.0, D.float32)
    else:
        out_shape = bshape + (n, k)
    if batch == 0 or (n == 0 and mode != _DET):
        return rec.new(out_shape, D.float32)
    if not _fits(n, k, False, rec.limits):
        return None  # the caller's host fallback
    name = {_DET: "linalg_det", _SOLVE: "linalg_solve", _INVERSE: "linalg_inv"}[mode]
    split = _by_matrices(rec, lambda a, b: _lu_launch(rec, mode, a, b, a.shape[:-2], out_shape[len(bshape):]),
                         (a, b), bshape, [(out_shape, D.float32), (bshape, D.int32), (bshape + (n, n), D.float32)],
                         name)
    out, info = split or _lu_launch(rec, mode, a, b, bshape, out_shape[len(bshape):])
    if mode != _DET:
        flags = rec.read(info)
        if any(flags):
            _raise_singular("inv" if mode == _INVERSE else "solve", flags, bshape, a_shape)
    return out


def _lu_launch(rec, mode, a, b, bshape, matrix_shape):
    """(out (bshape + matrix_shape), info (bshape) int32) of one LU dispatch over the batch ``bshape``."""
    n = a.shape[-1]
    k = b.shape[-1] if mode == _SOLVE else (n if mode == _INVERSE else 0)
    batch = _prod(bshape)
    a, b, sizes, a_bst, b_bst = _batch_geometry(rec, a, b, bshape)
    out = rec.new(bshape + matrix_shape, D.float32)
    work = rec.new((batch, n, n), D.float32)
    info = rec.new(bshape, D.int32)
    params = struct.pack("<24I", batch, n, k, 0, a.offset, a.strides[-2], a.strides[-1], 0,
                         b.offset, b.strides[-2], b.strides[-1], 0, *sizes, *a_bst, *b_bst)
    if n <= SMALL_N:
        name, groups = "linalg_lu_small", codegen.grid(-(-batch // 64), rec.limits)
        src = source(name, MODE=f"{mode}u")
    else:
        name, groups = "linalg_lu", codegen.grid(batch, rec.limits)
        src = source(name, MODE=f"{mode}u", WG=f"{64 if n * (n + k) <= 4096 else 256}u")
    reads = [a.st.buf] if b.st.buf is a.st.buf else [a.st.buf, b.st.buf]
    rec.record_kernel(name, src, params, groups,
                      [a.st.buf, b.st.buf, work.st.buf, out.st.buf, info.st.buf], reads,
                      [out.st.buf, work.st.buf, info.st.buf])
    return out, info


def linalg_cholesky(rec, a, upper):
    if a.dtype is D.float16:  # float_kernel's rule, but only L is cast back: info stays int32
        low, info = _cholesky(rec, cast(rec, a, D.float32), upper)
        return cast(rec, low, D.float16), info
    return _cholesky(rec, a, upper)


def linalg_solve_triangular(rec, a, b, upper, left, unitriangular):
    if b.dtype is not a.dtype:  # the result takes A's dtype
        b = cast(rec, b, a.dtype)
    r = float_kernel(rec, lambda a, b: _trsm(rec, a, b, upper, left, unitriangular), a, b)
    return host_fallback(rec, "linalg_solve_triangular", a, b, upper, left, unitriangular) if r is None else r


def _cholesky(rec, a, upper):
    n = a.shape[-1]
    bshape = tuple(a.shape[:-2])
    batch = _prod(bshape)
    if batch == 0:
        return rec.new(a.shape, D.float32), rec.new(bshape, D.int32)
    if n == 0:
        return rec.new(a.shape, D.float32), creation.full(rec, bshape, 0, D.int32)
    if not _fits(n, 0, True, rec.limits):
        return host_fallback(rec, "linalg_cholesky", a, upper)
    split = _by_matrices(rec, lambda a: _cholesky(rec, a, upper), (a,), bshape,
                         [(a.shape, D.float32), (bshape, D.int32)], "linalg_cholesky")
    if split is not None:
        return split
    a, _, sizes, a_bst, _ = _batch_geometry(rec, a, None, bshape)
    rs, cs = a.strides[-2], a.strides[-1]
    if upper:  # U^T U = A from A's upper triangle: L L^T = A^T from A^T's lower one, and U = L^T
        rs, cs = cs, rs
    out = rec.new(bshape + (n, n), D.float32)
    info = rec.new(bshape, D.int32)
    params = struct.pack("<20I", batch, n, 0, 0, a.offset, rs, cs, 0, *((1, n) if upper else (n, 1)), 0, 0,
                         *sizes, *a_bst)
    if n <= SMALL_N:
        name, groups = "linalg_cholesky_small", codegen.grid(-(-batch // 64), rec.limits)
        src = source(name)
    else:
        name, groups = "linalg_cholesky", codegen.grid(batch, rec.limits)
        src = source(name, WG=f"{64 if n * n <= 4096 else 256}u")
    rec.record_kernel(name, src, params, groups, [a.st.buf, out.st.buf, info.st.buf], [a.st.buf],
                      [out.st.buf, info.st.buf])
    return out, info


def _trsm(rec, a, b, upper, left, unitriangular):
    n = a.shape[-1]
    bshape = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out_shape = bshape + tuple(b.shape[-2:])
    k = b.shape[-1] if left else b.shape[-2]
    batch = _prod(bshape)
    if batch * n * k == 0:
        return rec.new(out_shape, D.float32)
    if n + n * (n + 1) // 2 > rec.limits.loop_trips():  # one invocation substitutes a whole column
        return None  # the caller's host fallback
    split = _by_matrices(rec, lambda a, b: _trsm(rec, a, b, upper, left, unitriangular), (a, b), bshape,
                         [(out_shape, D.float32)], "linalg_solve_triangular")
    if split is not None:
        return split
    a, b, sizes, a_bst, b_bst = _batch_geometry(rec, a, b, bshape)
    ars, acs = a.strides[-2], a.strides[-1]
    brs, bcs = b.strides[-2], b.strides[-1]
    xrs, xcs = k, 1
    if not left:  # X A = B as A^T X^T = B^T: every matrix read and written transposed
        ars, acs, brs, bcs, xrs, xcs, upper = acs, ars, bcs, brs, 1, n, not upper
    out = rec.new(out_shape, D.float32)
    params = struct.pack("<28I", batch, n, k, int(upper) | int(unitriangular) << 1, a.offset, ars, acs, 0,
                         b.offset, brs, bcs, 0, xrs, xcs, 0, 0, *sizes, *a_bst, *b_bst)
    reads = [a.st.buf] if b.st.buf is a.st.buf else [a.st.buf, b.st.buf]
    rec.record_kernel("linalg_trsm", source("linalg_trsm"), params, codegen.grid(-(-batch * k // 64), rec.limits),
                      [a.st.buf, b.st.buf, out.st.buf], reads, [out.st.buf])
    return out
