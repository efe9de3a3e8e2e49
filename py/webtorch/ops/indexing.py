"""Indexing: ``Tensor.__getitem__``/``__setitem__``, select, narrow, diagonal, index, index_put.

As PyTorch's python_variable_indexing: a key's ints, slices, None and Ellipsis are applied first as one
view of the tensor (select/slice/unsqueeze, sharing storage); its tensor and list entries (bool masks
become their nonzero coordinates) then index that view with one ``index`` primitive, whose result dims
replace the indexed dims when these are adjacent and come first otherwise.
"""
from .. import _dtype as D
from .. import _geometry as G
from .._broadcast import broadcast_shapes
from .._tensor import Tensor
from ..autograd.graph import Node, apply_op
from ..autograd.grad_mode import state as _grad_state
from ._core.dispatch import norm_dim, wrap, wrap_target
from .._dtype import scalar_type_name
from ._core.inplace import view_at, write_inplace

_MASK_DTYPES = (D.bool_, D.uint8)


# ---- basic indexing: one backend slice, one view node -------------------------------------------------

def embed(g, shape, view_of):
    """Gradient of a view: zeros of the base's shape with g written into the viewed region.

    Written with copy_ into a view so that, under create_graph, the result is differentiable in g."""
    z = g.new_zeros(shape)
    view_of(z).copy_(g)
    return z


def _slice_view(t, key):
    return view_at(t, *G.slice_key(*t._geometry_of(), key))


class _BasicIndex(Node):
    @staticmethod
    def forward(ctx, x, key):
        ctx.in_shape = tuple(x.shape)
        ctx.key = key
        return _slice_view(x, key)

    @staticmethod
    def backward(ctx, g):
        key = ctx.key
        return embed(g, ctx.in_shape, lambda z: _slice_view(z, key))


# PyTorch names a basic-indexing result after the last view op it applied.
SliceBackward0 = type("SliceBackward0", (_BasicIndex,), {})
SelectBackward0 = type("SelectBackward0", (_BasicIndex,), {})
UnsqueezeBackward0 = type("UnsqueezeBackward0", (_BasicIndex,), {})
AliasBackward0 = type("AliasBackward0", (_BasicIndex,), {})


def _full_key(ndim):
    return [slice(None)] * ndim


def select(input, dim, index):
    shape = tuple(input.shape)
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = norm_dim(dim, len(shape))
    index = int(index)
    if not -shape[dim] <= index < shape[dim]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape)} at dimension {dim}")
    key = _full_key(len(shape))
    key[dim] = index % shape[dim]
    return apply_op(SelectBackward0, input, tuple(key))


def narrow(input, dim, start, length):
    shape = tuple(input.shape)
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = norm_dim(dim, len(shape))
    size = shape[dim]
    start, length = int(start), int(length)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    key = _full_key(len(shape))
    key[dim] = slice(start, start + length, 1)
    return apply_op(SliceBackward0, input, tuple(key))


class DiagonalBackward0(Node):
    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        ctx.in_shape = tuple(x.shape)
        ctx.args = (offset, dim1, dim2)
        return _diagonal_view(x, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, g):
        offset, d1, d2 = ctx.args
        return embed(g, ctx.in_shape, lambda z: _diagonal_view(z, offset, d1, d2))


def _diagonal_view(x, offset, dim1, dim2):
    return view_at(x, *G.diagonal(*x._geometry_of(), offset, dim1, dim2))


def diagonal(input, offset=0, dim1=0, dim2=1):
    nd = input.dim()
    d1, d2 = norm_dim(dim1, nd), norm_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply_op(DiagonalBackward0, input, int(offset), d1, d2)


# ---- parsing a key -----------------------------------------------------------------------------------

class _Parsed:
    """A key split into the basic view (backend slice key and the name of its last op) and the
    (view dim, integer Tensor) pairs of its advanced entries."""
    __slots__ = ("key", "name", "adv", "trivial")


def _as_index_tensor(obj, like):
    from .creation import tensor
    t = tensor(obj, device=like._device)
    if t.numel() == 0 and t.dtype.is_floating_point:
        t = t.long()
    return t


def _index_type_error(k):
    return IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                      f"indices (got {type(k).__name__})")


def index_on_device(k, self):
    """An index tensor for ``self[k]``: PyTorch takes cpu indices for a tensor on any device, others only on
    self's device."""
    if k._device == self._device:
        return k
    if k._device.type != "cpu":
        raise RuntimeError(f"indices should be either on cpu or on the same device as the indexed tensor "
                           f"({self._device})")
    return k.to(self._device)


def _normalize_items(self, key):
    items = []
    for k in key:
        if isinstance(k, Tensor):
            k = index_on_device(k, self)
            if k.dtype.is_floating_point:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if k.dim() == 0 and k.dtype not in _MASK_DTYPES:
                k = int(k.item())  # PyTorch: a 0-dim integer tensor selects, like an int
        elif k is None or k is Ellipsis or isinstance(k, (bool, int, slice)):
            pass
        elif hasattr(k, "__index__") and not hasattr(k, "__len__"):
            k = k.__index__()  # NumPy integers
        elif isinstance(k, (list, tuple)) or (hasattr(k, "__len__") and not isinstance(k, (str, bytes))):
            k = _as_index_tensor(k, self)
            if k.dtype.is_floating_point:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        else:
            raise _index_type_error(k)
        items.append(k)
    return items


def _consumed(k):
    if k is None or k is Ellipsis or isinstance(k, bool):
        return 0
    if isinstance(k, Tensor) and k.dtype in _MASK_DTYPES:
        return k.dim()
    return 1


def _slice_bounds(k, size):
    step = 1 if k.step is None else int(k.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    start = None if k.start is None else int(k.start)
    stop = None if k.stop is None else int(k.stop)
    return slice(start, stop, step).indices(size)


def parse_key(self, key):
    if not isinstance(key, tuple):
        key = (key,)
    items = _normalize_items(self, key)
    shape = tuple(self.shape)
    nd = len(shape)
    if sum(1 for k in items if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumed(k) for k in items)
    if used > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    bkey, vshape, adv = [], [], []
    name = None
    idim = 0
    for k in items:
        if k is Ellipsis:
            for _ in range(nd - used):
                bkey.append(slice(None))
                vshape.append(shape[idim])
                idim += 1
        elif k is None or isinstance(k, bool) or (isinstance(k, Tensor) and k.dim() == 0):
            bkey.append(None)
            vshape.append(1)
            name = "UnsqueezeBackward0"
            if isinstance(k, bool):  # PyTorch indexes the new dim with [] (False) or [0] (True): a copy
                adv.append((len(vshape) - 1, self.new_zeros((1 if k else 0,), dtype=D.int64)))
            elif isinstance(k, Tensor):  # 0-dim bool: keep the new dim once (True) or not at all (False)
                adv.append((len(vshape) - 1, k.reshape(1).nonzero()[:, 0]))
        elif isinstance(k, int):
            size = shape[idim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {len(vshape)} with size {size}")
            bkey.append(k % size)
            idim += 1
            name = "SelectBackward0"
        elif isinstance(k, slice):
            size = shape[idim]
            start, stop, step = _slice_bounds(k, size)
            vshape.append(max(0, (stop - start + step - 1) // step))
            if _is_full_slice(k, size):
                bkey.append(slice(None))
            else:
                bkey.append(slice(start, stop, step))
                name = "SliceBackward0"
            idim += 1
        elif k.dtype in _MASK_DTYPES:
            msh = tuple(k.shape)
            for j, s in enumerate(msh):
                if s != shape[idim + j]:
                    raise IndexError(f"The shape of the mask {list(msh)} at index {j} does not match the shape of the "
                                     f"indexed tensor {list(vshape) + list(shape[idim:])} at index {len(vshape) + j}")
            coords = k.nonzero()
            for j in range(len(msh)):
                bkey.append(slice(None))
                vshape.append(shape[idim])
                adv.append((len(vshape) - 1, coords[:, j]))
                idim += 1
        else:
            bkey.append(slice(None))
            vshape.append(shape[idim])
            adv.append((len(vshape) - 1, k))
            idim += 1
    bkey.extend(slice(None) for _ in range(idim, nd))
    p = _Parsed()
    p.key, p.name, p.adv = tuple(bkey), name, adv
    p.trivial = name is None
    return p


def _is_full_slice(k, size):
    """PyTorch applies no view op for this slice entry of a key: written from 0 (not -size), step 1, to the end."""
    return ((k.start is None or int(k.start) == 0) and (k.step is None or int(k.step) == 1)
            and (k.stop is None or int(k.stop) >= size))


def _basic_view(self, p, single_slice=False):
    if _grad_state.enabled and self.requires_grad:
        return _view_chain(self, p.key, single_slice)
    # nothing records the graph: one backend view (the node name is never seen)
    if p.trivial and not single_slice:
        return apply_op(AliasBackward0, self, p.key)
    return apply_op(SliceBackward0 if single_slice and p.trivial else _NODES[p.name], self, p.key)


def _view_chain(x, key, single_slice):
    """x[key] for a basic key (parse_key's: ints, slices, None; full slices as ``slice(None)``) one view op at a
    time, as PyTorch's applySlicing builds the graph: a Select/Slice/Unsqueeze node per int, non-full slice and
    None, in key order (a lone slice key always slices); a key that applies none gives an alias."""
    out = x
    d = 0  # the dim of out the next entry applies to
    for i, k in enumerate(key):
        if isinstance(k, slice):
            if k == _FULL and not (single_slice and i == 0):
                d += 1
                continue
            node = SliceBackward0
        else:
            node = UnsqueezeBackward0 if k is None else SelectBackward0
        nd = out.dim()
        rest = nd - d - (k is not None)
        out = apply_op(node, out, (_FULL,) * d + (k,) + (_FULL,) * rest)
        if node is not SelectBackward0:
            d += 1
    if out is x:
        out = apply_op(AliasBackward0, x, key)
    return out


_FULL = slice(None)


_NODES = {"SliceBackward0": SliceBackward0, "SelectBackward0": SelectBackward0,
          "UnsqueezeBackward0": UnsqueezeBackward0}


def _indices_list(adv):
    """The ``indices`` argument of index/index_put: one entry per view dim up to the last indexed one."""
    out = [None] * (adv[-1][0] + 1)
    for d, t in adv:
        out[d] = t
    return tuple(out)


# ---- advanced indexing: index / index_put ------------------------------------------------------------

def _index_shape(shape, indices):
    """The shape of advanced indexing (the ``index`` primitive): the index tensors' broadcast shape replaces the
    indexed dims where those are adjacent, else comes first (NumPy's rule)."""
    dims = [d for d, t in enumerate(indices) if t is not None]
    idx = broadcast_shapes(*(tuple(indices[d].shape) for d in dims))
    if not dims:
        return tuple(shape)
    if dims == list(range(dims[0], dims[-1] + 1)):
        return tuple(shape[:dims[0]]) + idx + tuple(shape[dims[-1] + 1:])
    return idx + tuple(s for d, s in enumerate(shape) if d not in dims)


def _handles(indices):
    return tuple(None if t is None else t._data for t in indices)


def _check_broadcast(indices):
    shapes = [tuple(t.shape) for t in indices if t is not None]
    try:
        return broadcast_shapes(*shapes)
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(s)) for s in shapes)) from None


def indexed_shape(shape, indices):
    """Shape of ``x[indices]`` for x of ``shape`` (the advanced-indexing placement rule)."""
    pos = [d for d, t in enumerate(indices) if t is not None]
    bshape = _check_broadcast(indices)
    kept = [s for d, s in enumerate(shape) if d >= len(indices) or indices[d] is None]
    if pos == list(range(pos[0], pos[-1] + 1)):
        return tuple(kept[:pos[0]]) + bshape + tuple(kept[pos[0]:])
    return bshape + tuple(kept)


class IndexBackward0(Node):
    @staticmethod
    def forward(ctx, x, indices):
        ctx.in_shape = tuple(x.shape)
        ctx.indices = indices
        return wrap(x._be.index(x._data, _handles(indices)), x, _index_shape(x.shape, indices))

    @staticmethod
    def backward(ctx, g):
        gx = index_put(g.new_zeros(ctx.in_shape), ctx.indices, g, accumulate=True)
        return (gx,) + (None,) * sum(1 for t in ctx.indices if t is not None)


def prepare_indices(self, indices):
    """A tuple for the index primitives: bool/uint8 masks become their coordinates, lists become tensors."""
    out = []
    for t in indices:
        if t is None:
            out.append(None)
            continue
        if not isinstance(t, Tensor):
            t = _as_index_tensor(t, self)
        t = index_on_device(t, self)
        if t.dtype in _MASK_DTYPES:
            d = len(out)
            msh = tuple(t.shape)
            for j, s in enumerate(msh):
                if d + j >= self.dim() or s != self.shape[d + j]:
                    raise IndexError(f"The shape of the mask {list(msh)} at index {j} does not match the shape of "
                                     f"the indexed tensor {list(self.shape)} at index {d + j}")
            coords = t.nonzero()
            out.extend(coords[:, j] for j in range(len(msh)))
        elif t.dtype.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        else:
            out.append(t)
    if len(out) > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got {len(out)})")
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


def index(self, indices):
    """``aten::index``: ``self[indices]`` for a sequence of index tensors (None: the whole dim)."""
    indices = prepare_indices(self, indices)
    if not indices:
        return apply_op(AliasBackward0, self, tuple(_full_key(self.dim())))
    _check_broadcast(indices)
    return apply_op(IndexBackward0, self, indices)


class IndexPutBackward0(Node):
    @staticmethod
    def forward(ctx, x, indices, values, accumulate, inplace=False):
        ctx.indices = indices
        ctx.accumulate = accumulate
        ctx.values_tensor = isinstance(values, Tensor)
        h = x._data if inplace else x._be.contiguous(x._data)
        x._be.index_put_(h, _handles(indices), values._data if isinstance(values, Tensor) else values, accumulate)
        return wrap_target(h, x, inplace)

    @staticmethod
    def backward(ctx, g):
        gx = g if ctx.accumulate else index_put(g, ctx.indices, 0)
        n_idx = sum(1 for t in ctx.indices if t is not None)
        gv = (index(g, ctx.indices),) if ctx.values_tensor else ()
        return (gx,) + (None,) * n_idx + gv


def _put_args(self, indices, values):
    indices = prepare_indices(self, indices)
    if not indices:
        raise IndexError("index_put_: at least one index tensor is required")
    ishape = indexed_shape(tuple(self.shape), indices)
    if isinstance(values, Tensor):
        if values.dtype is not self.dtype:
            raise RuntimeError("Index put requires the source and destination dtypes match, got "
                               f"{scalar_type_name(self.dtype)} for the destination and "
                               f"{scalar_type_name(values.dtype)} for the source.")
        if values._device != self._device:
            values = values.to(self._device)
        try:
            ok = broadcast_shapes(tuple(values.shape), ishape) == ishape
        except RuntimeError:
            ok = False
        if not ok:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                               f"indexing result of shape {list(ishape)}")
    elif not isinstance(values, (bool, int, float)):
        raise TypeError(f"index_put(): values must be a Tensor or a number, got {type(values).__name__}")
    return indices, values


def index_put(input, indices, values, accumulate=False):
    indices, values = _put_args(input, indices, values)
    return apply_op(IndexPutBackward0, input, indices, values, accumulate)


def index_put_(self, indices, values, accumulate=False):
    indices, values = _put_args(self, indices, values)
    return write_inplace(self, IndexPutBackward0, indices, values, accumulate, inputs=(values, *indices), full=True)


# ---- __getitem__ / __setitem__ -----------------------------------------------------------------------

def getitem(self, key):
    p = parse_key(self, key)
    if not p.adv:
        return _basic_view(self, p, single_slice=isinstance(key, slice))
    view = self if p.trivial else _basic_view(self, p)
    indices = _indices_list(p.adv)
    _check_broadcast(indices)
    return apply_op(IndexBackward0, view, indices)


def _strip_leading_ones(v, ndim):
    """PyTorch drops a value's leading size-1 dims beyond the target's rank before broadcasting it."""
    shape = tuple(v.shape)
    k = 0
    while len(shape) - k > ndim and shape[k] == 1:
        k += 1
    return v.reshape(shape[k:]) if k else v


def setitem(self, key, value):
    p = parse_key(self, key)
    if isinstance(value, Tensor):
        if value._device != self._device or value.dtype is not self.dtype:
            value = value.to(self._device, self.dtype)
    elif not isinstance(value, (bool, int, float)):
        from .creation import tensor
        value = tensor(value, dtype=self.dtype, device=self._device)
    if not p.adv:
        view = _basic_view(self, p)
        if isinstance(value, Tensor):
            value = _strip_leading_ones(value, view.dim())
            view.copy_(value.expand(tuple(view.shape)))
        else:
            view.fill_(value)
        return
    view = self if p.trivial else _basic_view(self, p)
    indices = _indices_list(p.adv)
    if isinstance(value, Tensor):
        value = _strip_leading_ones(value, len(indexed_shape(tuple(view.shape), indices)))
    index_put_(view, indices, value)


METHODS = {"select": select, "narrow": narrow, "diagonal": diagonal, "index_put": index_put,
           "index_put_": index_put_}
FUNCTIONS = dict(METHODS)
FUNCTIONS.pop("index_put_")
DUNDERS = {"__getitem__": getitem, "__setitem__": setitem}
