"""Joining, splitting and repeating: cat/stack (+h/v/d/column_stack), split/chunk/unbind/tensor_split
(views), repeat/tile/repeat_interleave, flip/roll/rot90, meshgrid, broadcast_tensors, atleast_Nd.

cat fills one fresh tensor through strided copies into views of it (no concatenate primitive: a GPU
backend runs one copy kernel per input); repeat is expand + copy; the splits are views.
"""
from .. import _dtype as D
from .. import _geometry as G
from .._broadcast import broadcast_shapes
from .._tensor import Size, Tensor, _wrap
from ..autograd.graph import Node, apply_op
from ._core.dispatch import norm_dim, norm_dims, shape_arg, check_same_device, wrap
from .indexing import SliceBackward0, narrow
from ._core.inplace import view_at
from ._core.out_arg import Rule, castable, takes_out


# ---- cat / stack -------------------------------------------------------------------------------------

def _is_legacy_empty(t):
    # PyTorch skips 1-D empty tensors in cat whatever the other shapes are
    return t.dim() == 1 and t.shape[0] == 0


def _cat_shape(tensors, dim):
    ref = next((t for t in tensors if not _is_legacy_empty(t)), tensors[0])
    nd = ref.dim()
    if nd == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    dim = norm_dim(dim, nd)
    shape = list(ref.shape)
    total = 0
    for i, t in enumerate(tensors):
        if _is_legacy_empty(t):
            continue
        if t.dim() != nd:
            if t.dim() == 0:
                raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {t.dim()}")
        for d in range(nd):
            if d != dim and t.shape[d] != shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                   f"{shape[d]} but got size {t.shape[d]} for tensor number {i} in the list.")
        total += t.shape[dim]
    shape[dim] = total
    return dim, tuple(shape)


class CatBackward0(Node):
    @staticmethod
    def forward(ctx, tensors, dim, shape, dtype):
        ref = tensors[0]
        be = ref._be
        h = be.empty(shape, dtype)
        key = [slice(None)] * len(shape)
        pos = 0
        sizes = []
        for t in tensors:
            if _is_legacy_empty(t) and len(shape) != 1:
                sizes.append(None)
                continue
            n = t.shape[dim]
            key[dim] = slice(pos, pos + n, 1)
            if t.numel():
                be.copy_(be.slice(h, tuple(key)), t._data)
            sizes.append(n)
            pos += n
        ctx.meta = (dim, sizes)
        return wrap(h, ref, shape)

    @staticmethod
    def backward(ctx, g):
        dim, sizes = ctx.meta
        out, pos = [], 0
        for n in sizes:
            if n is None:
                out.append(g.new_zeros((0,)))
                continue
            out.append(narrow(g, dim, pos, n))
            pos += n
        return tuple(out)


def _tensor_list(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' must be tuple of Tensors, not {type(tensors).__name__}")
    tensors = list(tensors)
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {tensors.index(t)} in argument 0, but got "
                            f"{type(t).__name__}")
    check_same_device(*tensors)
    return tensors


# PyTorch's cat checks out= itself (a TypeError); stack writes through it
_CAT_OUT = Rule(castable, "torch.cat(): input types can't be cast to the desired output type {o}", TypeError)


@takes_out("cat", _CAT_OUT)
def cat(tensors, dim=0):
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dim, shape = _cat_shape(tensors, dim)
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = D.promote_types(dt, t.dtype)
    return apply_op(CatBackward0, tensors, dim, shape, dt)


class StackBackward0(Node):
    @staticmethod
    def forward(ctx, tensors, dim, dtype):
        shape = tuple(tensors[0].shape)
        out = shape[:dim] + (len(tensors),) + shape[dim:]
        ctx.dim = dim
        be = tensors[0]._be
        h = be.empty(out, dtype)
        key = [slice(None)] * len(out)
        for i, t in enumerate(tensors):
            key[dim] = i
            if t.numel():
                be.copy_(be.slice(h, tuple(key)), t._data)
        return wrap(h, tensors[0], out)

    @staticmethod
    def backward(ctx, g):
        return g.unbind(ctx.dim)


@takes_out("stack", _CAT_OUT)
def stack(tensors, dim=0):
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tuple(tensors[0].shape)
    for i, t in enumerate(tensors[1:], 1):
        if tuple(t.shape) != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                               f"{list(t.shape)} at entry {i}")
    dim = norm_dim(dim, len(shape) + 1)
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = D.promote_types(dt, t.dtype)
    return apply_op(StackBackward0, tensors, dim, dt)


def atleast_1d(*tensors):
    return _atleast(tensors, lambda t: t.reshape(1) if t.dim() == 0 else t)


def atleast_2d(*tensors):
    def f(t):
        if t.dim() == 0:
            return t.reshape(1, 1)
        return t.unsqueeze(0) if t.dim() == 1 else t
    return _atleast(tensors, f)


def atleast_3d(*tensors):
    def f(t):
        if t.dim() == 0:
            return t.reshape(1, 1, 1)
        if t.dim() == 1:
            return t.unsqueeze(0).unsqueeze(-1)
        return t.unsqueeze(-1) if t.dim() == 2 else t
    return _atleast(tensors, f)


def _atleast(tensors, f):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return f(tensors[0])
    if len(tensors) == 1:
        tensors = tensors[0]
    return tuple(f(t) for t in tensors)


def hstack(tensors, *, out=None):
    ts = atleast_1d(*_tensor_list(tensors, "hstack"))
    return cat(ts, 0 if ts[0].dim() == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    return cat(atleast_2d(*_tensor_list(tensors, "vstack")), 0, out=out)


def dstack(tensors, *, out=None):
    return cat(atleast_3d(*_tensor_list(tensors, "dstack")), 2, out=out)


def column_stack(tensors, *, out=None):
    ts = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in _tensor_list(tensors, "column_stack")]
    return cat(ts, 1, out=out)


# ---- views: unbind, split, chunk, tensor_split ----------------------------------------------------------

def _pieces(x, dim, sizes):
    """Views of x along dim of the given sizes (consecutive)."""
    geom = x._geometry_of()
    key = [slice(None)] * x.dim()
    out, pos = [], 0
    for n in sizes:
        key[dim] = slice(pos, pos + n, 1)
        out.append(view_at(x, *G.slice_key(*geom, tuple(key))))
        pos += n
    return tuple(out)


class UnbindBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        geom = x._geometry_of()
        key = [slice(None)] * x.dim()
        out = []
        for i in range(x.shape[dim]):
            key[dim] = i
            out.append(view_at(x, *G.slice_key(*geom, tuple(key))))
        return tuple(out)

    @staticmethod
    def backward(ctx, *grads):
        return stack(grads, ctx.dim)


def unbind(input, dim=0):
    if input.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return apply_op(UnbindBackward0, input, norm_dim(dim, input.dim()))


class SplitWithSizesBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, sizes):
        ctx.dim = dim
        return _pieces(x, dim, sizes)

    @staticmethod
    def backward(ctx, *grads):
        return cat(grads, ctx.dim)


class SplitBackward0(SplitWithSizesBackward0):
    pass


def _even_sizes(n, size):
    if size == 0:
        return [0] if n == 0 else None
    return [min(size, n - i) for i in range(0, n, size)] or [0]


def split(tensor, split_size_or_sections, dim=0):
    if tensor.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = norm_dim(dim, tensor.dim())
    n = tensor.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {dim}), but got split_sizes={sizes}")
        return apply_op(SplitWithSizesBackward0, tensor, dim, sizes)
    size = int(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    sizes = _even_sizes(n, size)
    if sizes is None:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
    return apply_op(SplitBackward0, tensor, dim, sizes)


def split_with_sizes(input, split_sizes, dim=0):
    return split(input, list(split_sizes), dim)


def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    n = input.shape[norm_dim(dim, input.dim())]
    if n == 0:
        return split(input, [0] * chunks, dim)
    return split(input, -(-n // chunks), dim)


def unsafe_chunk(input, chunks, dim=0):
    return chunk(input, chunks, dim)


def tensor_split(input, indices_or_sections, dim=0):
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = norm_dim(dim, input.dim())
    n = input.shape[dim]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        # PyTorch reads the indices on the cpu; indices on the input's own device are read here too (one readback)
        if ios._device.type not in ("cpu", input._device.type):
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be on cpu, but it's on "
                               f"{ios._device} (move it with .cpu())")
        if ios.dtype is not D.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{ios.dtype}")
        if ios.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {ios.dim()} dims")
        ios = ios.item() if ios.dim() == 0 else ios.tolist()
    if isinstance(ios, (list, tuple)):
        bounds = [0] + [min(max(int(i) if int(i) >= 0 else int(i) + n, 0), n) for i in ios] + [n]
    else:
        k = int(ios)
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(n, k)
        bounds = [0]
        for i in range(k):
            bounds.append(bounds[-1] + q + (1 if i < r else 0))
    key = [slice(None)] * input.dim()
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        key[dim] = slice(a, max(a, b), 1)
        out.append(apply_op(SliceBackward0, input, tuple(key)))
    return tuple(out)


def _split_dim(input, ios, dim, name, min_dims):
    if input.dim() < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    if isinstance(ios, int) and input.shape[dim] % ios:
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {ios}!")
    return tensor_split(input, ios, dim)


def hsplit(input, indices_or_sections):
    return _split_dim(input, indices_or_sections, 0 if input.dim() == 1 else 1, "hsplit", 1)


def vsplit(input, indices_or_sections):
    return _split_dim(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    return _split_dim(input, indices_or_sections, 2, "dsplit", 3)


# ---- repeating -------------------------------------------------------------------------------------------

class RepeatBackward0(Node):
    @staticmethod
    def forward(ctx, x, repeats):
        lead = len(repeats) - x.dim()
        shape = (1,) * lead + tuple(x.shape)
        ctx.meta = (tuple(x.shape), shape, repeats)
        inter = []
        big = []
        for r, s in zip(repeats, shape):
            inter += [1, s]
            big += [r, s]
        be = x._be
        v = be.reshape_view(x._data, tuple(inter))
        if v is None:
            v = be.reshape_view(be.contiguous(x._data), tuple(inter))
        h = be.contiguous(be.expand(v, tuple(big)))
        out = tuple(r * s for r, s in zip(repeats, shape))
        return wrap(be.reshape_view(h, out), x, out)

    @staticmethod
    def backward(ctx, g):
        in_shape, shape, repeats = ctx.meta
        split = []
        for r, s in zip(repeats, shape):
            split += [r, s]
        g = g.reshape(split).sum(tuple(range(0, len(split), 2)))
        return g.reshape(in_shape)


def repeat(self, *sizes):
    sizes = shape_arg(sizes)
    if len(sizes) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {list(sizes)}")
    return apply_op(RepeatBackward0, self, sizes)


def tile(input, dims):
    dims = shape_arg((dims,)) if not isinstance(dims, int) else (dims,)
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + tuple(dims)
    return repeat(input, dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:  # torch.repeat_interleave(repeats): each index i repeated repeats[i] times
        from .creation import arange
        reps = input
        return repeat_interleave(arange(reps.numel(), device=reps.device), reps, 0)
    x = input.reshape(-1) if dim is None else input
    dim = 0 if dim is None else norm_dim(dim, x.dim())
    if isinstance(repeats, Tensor) and repeats.numel() == 1 and repeats.dim() <= 1:
        repeats = int(repeats.item())
    if isinstance(repeats, int):
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        shape = tuple(x.shape)
        big = shape[:dim + 1] + (repeats,) + shape[dim + 1:]
        out = shape[:dim] + (shape[dim] * repeats,) + shape[dim + 1:]
        return x.unsqueeze(dim + 1).expand(big).contiguous().view(out)
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.shape[0] != x.shape[dim]:
        raise RuntimeError("repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{repeats.shape[0]} and input.size({dim}) = {x.shape[dim]}")
    if repeats.numel() and int(repeats.min().item()) < 0:
        raise RuntimeError("repeats can not be negative")
    from .creation import arange
    # row i of (arange(max) < repeats[:, None]) has repeats[i] ones: its nonzero rows list each i that often
    top = int(repeats.max().item()) if repeats.numel() else 0
    mask = arange(top, device=x.device).unsqueeze(0) < repeats.to(x.device).unsqueeze(1)
    return x.index_select(dim, mask.nonzero()[:, 0])


# ---- flip / roll / rot90 -----------------------------------------------------------------------------

class FlipBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return wrap(x._be.flip(x._data, dims), x, x.shape)

    @staticmethod
    def backward(ctx, g):
        return g.flip(ctx.dims)


def flip(input, *dims):
    dims = shape_arg(dims) if dims else ()
    nd = input.dim()
    return apply_op(FlipBackward0, input, norm_dims(dims, nd) if dims else ())


def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input):
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class RollBackward0(Node):
    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.meta = (shifts, dims)
        be = x._be
        if not dims:  # roll the flattened elements
            flat = be.reshape_view(be.contiguous(x._data), (x.numel(),))
            return wrap(be.reshape_view(_roll_handle(be, flat, (x.numel(),), shifts[0], 0), tuple(x.shape)), x,
                        x.shape)
        h = x._data
        for s, d in zip(shifts, dims):
            h = _roll_handle(be, h, x.shape, s, d)
        return wrap(h if h is not x._data else be.contiguous(h), x, x.shape)

    @staticmethod
    def backward(ctx, g):
        shifts, dims = ctx.meta
        return g.roll(tuple(-s for s in shifts), dims if dims else None)


def _roll_handle(be, h, shape, shift, dim):
    """h (of ``shape``) rolled by shift along dim, as two strided copies into a fresh handle."""
    n = shape[dim]
    if n == 0 or shift % n == 0:
        return h
    s = shift % n
    out = be.empty(shape, be.dtype(h))
    key = [slice(None)] * len(shape)

    def part(a, b):
        key[dim] = slice(a, b, 1)
        return tuple(key)
    be.copy_(be.slice(out, part(s, n)), be.slice(h, part(0, n - s)))
    be.copy_(be.slice(out, part(0, s)), be.slice(h, part(n - s, n)))
    return out


def roll(input, shifts, dims=None):
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return apply_op(RollBackward0, input, shifts, ())
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return apply_op(RollBackward0, input, shifts, tuple(norm_dim(d, input.dim()) for d in dims))


class Rot90Backward0(Node):
    @staticmethod
    def forward(ctx, x, k, dims):
        ctx.meta = (k, dims)
        d0, d1 = dims
        be = x._be
        if k == 1:
            return new_view_fresh(x, be.flip(x._data, (d1,)), d0, d1)
        if k == 2:
            return wrap(be.flip(x._data, (d0, d1)), x, x.shape)
        if k == 3:
            return new_view_fresh(x, be.flip(x._data, (d0,)), d0, d1)
        return wrap(be.contiguous(x._data), x, x.shape)

    @staticmethod
    def backward(ctx, g):
        k, dims = ctx.meta
        return g.rot90(-k, dims)


def new_view_fresh(x, h, d0, d1):
    """A fresh handle h of x's shape with dims d0 and d1 swapped (a transposed view of new storage)."""
    geom = G.permute(x.shape, G.contiguous_strides(x.shape), 0, G.transpose_dims(x.dim(), d0, d1))
    return _wrap(x._be.as_strided(h, *geom), x._be, x._device, (Size(geom[0]),) + geom[1:])


def rot90(input, k=1, dims=(0, 1)):
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = (norm_dim(d, input.dim()) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return apply_op(Rot90Backward0, input, k % 4, (d0, d1))


# ---- broadcasting helpers ---------------------------------------------------------------------------------

def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


def meshgrid(*tensors, indexing="ij"):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    check_same_device(*tensors)
    ts = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    n = len(ts)
    out = []
    for i, t in enumerate(ts):
        view = t.reshape(tuple(shape[i] if j == i else 1 for j in range(n)))
        out.append(view.expand(shape))
    if swap:  # PyTorch: the ij-grids of the swapped inputs, handed back in the input order
        out[0], out[1] = out[1], out[0]
    return tuple(out)


FUNCTIONS = {
    "cat": cat, "concat": cat, "concatenate": cat, "stack": stack, "hstack": hstack, "vstack": vstack,
    "row_stack": vstack, "dstack": dstack, "column_stack": column_stack,
    "atleast_1d": atleast_1d, "atleast_2d": atleast_2d, "atleast_3d": atleast_3d,
    "unbind": unbind, "split": split, "split_with_sizes": split_with_sizes, "chunk": chunk,
    "unsafe_chunk": unsafe_chunk, "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit,
    "dsplit": dsplit, "tile": tile, "repeat_interleave": repeat_interleave, "flip": flip,
    "fliplr": fliplr, "flipud": flipud, "roll": roll, "rot90": rot90, "broadcast_tensors": broadcast_tensors,
    "meshgrid": meshgrid,
}
METHODS = {
    "unbind": unbind, "split": split, "split_with_sizes": split_with_sizes, "chunk": chunk,
    "unsafe_chunk": unsafe_chunk, "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit,
    "dsplit": dsplit, "repeat": repeat, "tile": tile, "repeat_interleave": repeat_interleave, "flip": flip,
    "fliplr": fliplr, "flipud": flipud, "roll": roll, "rot90": rot90,
}
