"""The one mechanism behind every in-place op.

An in-place op computes its result out of place (with autograd, ``self`` among the inputs), then
``commit`` writes it into self's storage, bumps the shared version counter, and moves autograd history:
self takes the result's grad_fn, or -- when self is a view -- its base gets a CopySlices node and self
becomes an as_strided view of the base. Every view of the storage sees the write.
"""
from ..._broadcast import broadcast_shapes
from ..._dtype import scalar_type_name
from ...autograd.graph import apply_op
from ...autograd.view_history import overlapping_elements, rebase_view
from ...autograd.grad_mode import no_grad, state
from ... import _geometry as G
from ..._geometry import is_expanded
from ..._tensor import Size, Tensor, _wrap

def not_implemented_for(kernel, dt):
    """PyTorch's error for a kernel that has no version for dtype dt."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(dt)}'")


def require_float(x, kernel):
    """Refuse a non-floating-point x as PyTorch's floating-only ``kernel`` does."""
    if not x.dtype.is_floating_point:
        raise not_implemented_for(kernel, x.dtype)


def check_castable(result_dtype, self_dtype):
    if result_dtype.category > self_dtype.category:
        raise RuntimeError(f"result type {scalar_type_name(result_dtype)} can't be cast to the desired output "
                           f"type {scalar_type_name(self_dtype)}")


def check_inplace_broadcast(self, other):
    """PyTorch's check before an op writes its broadcast result into self: other must broadcast to self's shape."""
    shape = tuple(self.shape)
    b = broadcast_shapes(shape, tuple(other.shape))
    if b != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(b)}")


def check_inplace_target(self):
    if (self._inference or (self._base is not None and self._base._inference)) and not state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
                           "clone to get a normal tensor before doing inplace update.See "
                           "https://github.com/pytorch/rfcs/pull/17 for more details.")
    if not state.enabled:
        return
    if self.requires_grad and self.grad_fn is None and self._base is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = self._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


_PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                    "single memory location. Please clone() the tensor before performing the operation.")
_INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                     "memory location. Please clone() the tensor before performing the operation.")


def check_overlap(out, inputs=(), full=False):
    """PyTorch's memory-overlap checks before a write into ``out`` (an in-place op's self, an ``out=`` tensor):
    out must not be an expanded view (several of its elements at one address), and no input may partially
    overlap it; with ``full`` (PyTorch's assert_no_overlap, used by the index/scatter ops) not even the identical
    view may. inputs may hold non-Tensors (skipped).
    Kept cheap for the hot path: only a view (``_base`` set) can be expanded -- a detached alias of one keeps the
    expanded handle, which the backends refuse to write with the same message -- and views of one storage share
    the version counter, so an input on another storage costs one identity test."""
    if out._base is not None:
        shape, strides, _ = out._geometry_of()
        if 0 in strides and is_expanded(shape, strides):
            raise RuntimeError(_INTERNAL_OVERLAP)
    version = out._version
    for t in inputs:
        if getattr(t, "_version", None) is version and _overlap_status(out, t) in (_OVERLAP_FULL if full else
                                                                                  _OVERLAP_PARTIAL):
            raise RuntimeError(_PARTIAL_OVERLAP)


_OVERLAP_PARTIAL = ("partial",)
_OVERLAP_FULL = ("partial", "full")


def _overlap_status(a, b):
    """PyTorch's get_overlap_status: "full" (the same elements in the same order), "partial", "no", or "too hard"
    when either tensor is not non-overlapping and dense (then PyTorch does not look further)."""
    if a is b:
        return "full"
    na, nb = a.numel(), b.numel()
    if na == 0 or nb == 0:
        return "no"
    be = a._be
    ha, hb = a._data, b._data
    sa, sb = a.stride(), b.stride()
    if not (_non_overlapping_and_dense(a.shape, sa) and _non_overlapping_and_dense(b.shape, sb)):
        return "too hard"
    if b._be is not be or be.storage_ptr(ha) != be.storage_ptr(hb):
        return "no"
    a0, b0 = be.data_ptr(ha), be.data_ptr(hb)
    a1, b1 = a0 + na * a.dtype.itemsize, b0 + nb * b.dtype.itemsize
    if a0 == b0 and a1 == b1:
        return "full" if sa == sb else "partial"
    return "partial" if a0 < b1 and b0 < a1 else "no"


def _non_overlapping_and_dense(shape, strides):
    """PyTorch's is_non_overlapping_and_dense: some permutation of the dims is contiguous (size-1 dims ignored)."""
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    expected = 1
    for st, n in sorted((st, n) for n, st in zip(shape, strides) if n > 1):
        if st != expected:
            return False
        expected *= n
    return True


def overlaps_itself(self):
    """True when self is a view some of whose elements share one address without being expanded (an unfold
    window view, an as_strided view with small strides). Sure answers only where cheap: a view whose dims, sorted by
    stride, each step past everything the smaller ones span, cannot overlap; any other view counts as overlapping,
    which costs only speed (the sequential path computes the same result for a view that does not overlap)."""
    if self._base is None:
        return False
    shape, strides, _ = self._geometry_of()
    span = 0
    for st, n in sorted((abs(st), n) for n, st in zip(shape, strides) if n > 1):
        if st == 0:
            return False  # expanded: check_overlap refuses the write
        if st <= span:
            return True
        span += (n - 1) * st
    return False


def write_sequentially(method, self, args, kwargs, keep_dim=None):
    """Run the in-place ``method`` on an overlapping view one slice at a time, in C order, recursively down to
    slices that do not overlap themselves: each element is then computed from memory as the elements before it
    left it, as PyTorch's element loops do (``t.unfold(0, 2, 1).add_(1)`` adds 1 twice to each shared element).
    Tensor arguments are sliced alongside (broadcast to self's shape); ``keep_dim``, the dim a scan runs along,
    is never sliced. Slices are narrowed, not selected, so dim arguments keep their meaning.
    When a gradient is recorded, the slices are written without history and the view takes PyTorch's history of
    one write (view_history.overlapping_elements): the op applied to the view's old elements, its result the
    written view."""
    if state.enabled and _records(self, args, kwargs):
        return _overlapping_write(self, lambda old: method(old, *args, **kwargs),
                                  lambda: write_sequentially(method, self, args, kwargs, keep_dim))
    shape = tuple(self.shape)
    dim = next((d for d, n in enumerate(shape) if n > 1 and d != keep_dim), None)
    if dim is None:  # only keep_dim is left, and a dim overlapping itself alone has stride 0: never reached
        raise RuntimeError(_INTERNAL_OVERLAP)

    def part(a, i):
        return a.expand(shape).narrow(dim, i, 1) if isinstance(a, Tensor) and a.dim() > 0 else a

    for i in range(shape[dim]):
        piece = self.narrow(dim, i, 1)
        piece_args = [part(a, i) for a in args]
        piece_kwargs = {k: part(v, i) for k, v in kwargs.items()}
        if overlaps_itself(piece):
            write_sequentially(method, piece, piece_args, piece_kwargs, keep_dim)
        else:
            method(piece, *piece_args, **piece_kwargs)
    return self


def _overlapping_write(self, op, write):
    """An in-place op on ``self``, an internally overlapping view, whose gradient is recorded: ``write()`` writes
    the values without history; ``op(target)`` runs the op with history on a fresh target, the view's elements
    (view_history.overlapping_elements), and self takes that history as PyTorch's one write (CopySlices)."""
    # the history first: what it saves of the operands (the view itself, in v.mul_(v)) is at their versions
    # before the write, so backward refuses them as PyTorch does
    result = op(apply_op(*overlapping_elements(self)))
    with no_grad():
        write()
    node = result.grad_fn
    for item in node._saved if type(node._saved) is tuple else ():
        # a result the op saved is the written view in PyTorch (an element shared by windows written once
        # per window): it takes those values, under the version the node saved
        if item is not None and item[0].grad_fn is node:
            item[0]._be.copy_(item[0]._data, self._data)
    rebase_view(self, result)
    return self


def _records(self, args, kwargs):
    """True when an in-place op on self with these arguments records a gradient."""
    return any(isinstance(a, Tensor) and a.requires_grad for a in (self, *args, *kwargs.values()))


def commit(self, result, inputs=()):
    """Write result into self (same shape; dtype cast) and transfer autograd history. Returns self.
    inputs: the op's operands, checked for memory overlap with self (check_overlap) before the write."""
    check_inplace_target(self)
    check_overlap(self, inputs)
    return store(self, result)


def store(self, result):
    """commit after its checks were made (by a caller that checks before computing result)."""
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                           f"{list(result.shape)}")
    if result._data is not self._data:
        self._be.copy_(self._data, result._data)
    self._version[0] += 1
    if state.enabled and result.requires_grad:
        if self._base is None:
            self.grad_fn = result.grad_fn
            self._out_nr = result._out_nr
            self.requires_grad = True
        else:
            rebase_view(self, result)
    return self


def write_inplace(self, node_cls, *args, inputs=(), full=False):
    """Run a writing op whose forward fills self's own storage (``forward(ctx, self, *args, inplace=True)``
    returns a Tensor around ``self._data``), then commit. For ops whose backward needs no old value of
    self: this skips commit's copy of an out-of-place result. inputs, full: the operands to check for memory
    overlap with self before anything is written (check_overlap)."""
    check_inplace_target(self)
    check_overlap(self, inputs, full)
    if self._base is not None and state.enabled and _records(self, args, {}) and overlaps_itself(self):
        return _overlapping_write(self, lambda old: store(old, apply_op(node_cls, old, *args, inplace=True)),
                                  lambda: store(self, apply_op(node_cls, self, *args, inplace=True)))
    return store(self, apply_op(node_cls, self, *args, inplace=True))


def view_at(src, shape, strides, offset=None):
    """A Tensor viewing src's storage at (shape, strides, offset) (offset: src's own when None), the geometry
    decided by _geometry; it shares src's version counter and base."""
    if offset is None:
        offset = src.storage_offset()
    t = _wrap(src._be.as_strided(src._data, shape, strides, offset), src._be, src._device,
              (Size(shape), strides, offset), dtype=src.dtype)
    t._version = src._version
    t._base = src._base if src._base is not None else src
    t._view_version = src._version[0]
    return t


def view_bytes(src, dtype, geom):
    """Tensor.view(dtype): a Tensor viewing src's bytes as dtype at geom (shape, strides, offset in dtype's
    elements). As PyTorch's, not differentiable and no autograd view (no grad_fn, no base, never requires grad),
    but it shares src's storage and version counter."""
    shape, strides, offset = geom
    t = _wrap(src._be.view_dtype(src._data, dtype, shape, strides, offset), src._be, src._device,
              (Size(shape), strides, offset), dtype=dtype)
    t._version = src._version
    return t


def resize_storage(self, shape):
    """resize_ without its autograd check (PyTorch's kernels resize an ``out=`` tensor below autograd)."""
    if tuple(self.shape) == shape:
        return self
    be, h = self._be, self._data
    n = G.numel(shape)
    off = self.storage_offset()
    avail = be.storage_nbytes(h) // self.dtype.itemsize - off
    strides = G.contiguous_strides(shape)
    if n <= avail:
        self._set_handle(be.as_strided(h, shape, strides, off), (shape, strides, off))
    else:
        old = be.as_strided(h, (avail,), (1,), off)
        new = be.empty((n,), self.dtype)
        be.copy_(be.as_strided(new, (avail,), (1,), 0), old)
        self._set_handle(be.as_strided(new, shape, strides, 0), (shape, strides, 0))
    return self
