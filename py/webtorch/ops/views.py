"""View ops: results alias the input's storage (shared version counter); each is differentiable."""
from ..autograd.graph import Node, apply_op
from ._core.dispatch import norm_dim, shape_arg
from ._core.inplace import view_at, view_bytes
from .. import _geometry as G
from ..autograd.view_history import AsStridedBackward0
from ..autograd.sum_to import sum_to


def infer_shape(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _fmt(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _reshaped_strides(x, shape):
    """Strides of x seen as shape without a copy, or None (_geometry.view_strides)."""
    shape0, strides, _ = x._geometry_of()
    return G.view_strides(shape0, strides, shape)


class ViewBackward0(Node):
    @staticmethod
    def forward(ctx, x, shape, strides=None):
        """strides: the view's, when the caller already asked _geometry (reshape)."""
        ctx.in_shape = tuple(x.shape)
        st = strides if strides is not None else _reshaped_strides(x, shape)
        if st is None:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return view_at(x, shape, st)

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape)


class UnsafeViewBackward0(ViewBackward0):
    """reshape that had to copy: a view of the fresh contiguous copy."""


def view(self, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)) and shape[0] is not None:
        from .. import _dtype as D
        dt = D.to_dtype(shape[0])
        return view_bytes(self, dt, _dtype_view_geometry(self, dt))
    shape = infer_shape(shape_arg(shape), self.numel())
    return apply_op(ViewBackward0, self, shape)


def _dtype_view_geometry(self, dt):
    """The geometry of Tensor.view(dtype)'s result, or PyTorch's RuntimeError where self's bytes do not make one."""
    from .. import _dtype as D
    shape, strides, offset = self._geometry_of()
    old, new = self.dtype.itemsize, dt.itemsize
    if old != new:
        what = f"to view {D.scalar_type_name(self.dtype)} as {D.scalar_type_name(dt)} (different element sizes)"
        if not shape:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        r = new // old
        if r > 1 and shape[-1] % r:
            raise RuntimeError(f"self.size(-1) must be divisible by {r} {what}, but got {shape[-1]}")
        if r > 1 and offset % r:
            raise RuntimeError(f"self.storage_offset() must be divisible by {r} {what}, but got {offset}")
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        for i, s in enumerate(strides[:-1] if r > 1 else ()):
            if s % r:
                raise RuntimeError(f"self.stride({i}) must be divisible by {r} {what}, but got {s}")
    return G.view_dtype(tuple(shape), tuple(strides), offset, old, new)


def reshape(self, *shape):
    shape = infer_shape(shape_arg(shape), self.numel())
    strides = _reshaped_strides(self, shape)
    if strides is not None:
        return apply_op(ViewBackward0, self, shape, strides)
    return apply_op(UnsafeViewBackward0, self.contiguous(), shape)


def view_as(self, other):
    return view(self, tuple(other.shape))


def reshape_as(self, other):
    return reshape(self, tuple(other.shape))


class PermuteBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return view_at(x, *G.permute(*x._geometry_of(), dims))

    @staticmethod
    def backward(ctx, g):
        inv = [0] * len(ctx.dims)
        for i, d in enumerate(ctx.dims):
            inv[d] = i
        return g.permute(inv)


def permute(self, *dims):
    nd = self.dim()
    dims = tuple(norm_dim(d, nd) for d in shape_arg(dims))
    if len(dims) != nd or len(set(dims)) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to "
                           f"len(dims) = {len(dims)}" if len(dims) != nd else "permute(): duplicate dims are not allowed.")
    return apply_op(PermuteBackward0, self, dims)


class TransposeBackward0(Node):
    @staticmethod
    def forward(ctx, x, d0, d1):
        ctx.d = (d0, d1)
        return view_at(x, *G.permute(*x._geometry_of(), G.transpose_dims(x.dim(), d0, d1)))

    @staticmethod
    def backward(ctx, g):
        return g.transpose(*ctx.d)


def transpose(self, dim0, dim1):
    nd = self.dim()
    return apply_op(TransposeBackward0, self, norm_dim(dim0, nd), norm_dim(dim1, nd))


class TBackward0(Node):
    @staticmethod
    def forward(ctx, x):
        return view_at(x, *G.reverse_dims(*x._geometry_of()))

    @staticmethod
    def backward(ctx, g):
        return g.t()


def t(self):
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return apply_op(TBackward0, self)


def _T(self):
    return permute(self, tuple(reversed(range(self.dim()))))


def _mT(self):
    if self.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(self, -2, -1)


class ExpandBackward0(Node):
    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = tuple(x.shape)
        return view_at(x, *G.expand(*x._geometry_of(), shape))

    @staticmethod
    def backward(ctx, g):
        return sum_to(g, ctx.in_shape)


def expand(self, *sizes):
    sizes = shape_arg(sizes)
    nd = self.dim()
    if len(sizes) < nd:
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(self.shape)}}}, size={list(sizes)}): the number of "
                           f"sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({nd})")
    lead = len(sizes) - nd
    shape = self.shape
    out = []
    for i, s in enumerate(sizes):
        cur = shape[i - lead] if i >= lead else 1
        if s == -1:
            if i < lead:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   "non-existing dimension 0")
            s = cur
        elif cur != 1 and cur != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(self.shape)}")
        out.append(s)
    out = tuple(out)
    if out == tuple(shape):
        return self if not self.requires_grad else apply_op(ExpandBackward0, self, out)
    return apply_op(ExpandBackward0, self, out)


def expand_as(self, other):
    return expand(self, tuple(other.shape))


def broadcast_to(input, *size):
    return expand(input, tuple(shape_arg(size)))


class SqueezeBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims):
        ctx.in_shape = tuple(x.shape)
        return view_at(x, *G.squeeze(*x._geometry_of(), dims))

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape)


class SqueezeBackward1(SqueezeBackward0):
    pass


class SqueezeBackward2(SqueezeBackward0):
    pass


class UnsqueezeBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return view_at(x, *G.unsqueeze(*x._geometry_of(), dim))

    @staticmethod
    def backward(ctx, g):
        return g.squeeze(ctx.dim)


def squeeze(self, dim=None):
    nd = self.dim()
    if dim is None:
        return apply_op(SqueezeBackward0, self, frozenset(range(nd)))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = frozenset(norm_dim(d, nd) for d in dims)
    return apply_op(SqueezeBackward1 if isinstance(dim, int) else SqueezeBackward2, self, dims)


def unsqueeze(self, dim):
    return apply_op(UnsqueezeBackward0, self, norm_dim(dim, self.dim() + 1))


def flatten(self, start_dim=0, end_dim=-1):
    nd = self.dim()
    s, e = norm_dim(start_dim, nd), norm_dim(end_dim, nd)   # a 0-dim input takes dims -1 and 0 only
    if nd == 0:
        return reshape(self, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shape = tuple(self.shape)
    return reshape(self, shape[:s] + (G.numel(shape[s:e + 1]),) + shape[e + 1:])


def unflatten(self, dim, sizes):
    shape = tuple(self.shape)
    dim = norm_dim(dim, len(shape))
    sizes = infer_shape(tuple(sizes), shape[dim])
    return reshape(self, shape[:dim] + sizes + shape[dim + 1:])


def ravel(self):
    return reshape(self, (-1,))


def as_strided(self, size, stride, storage_offset=None):
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)} (use flip() for a reversed order)")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    off = self.storage_offset() if storage_offset is None else int(storage_offset)
    if off < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {off}")
    need = G.extent(size, stride, off)
    avail = self._be.storage_nbytes(self._data) // self.dtype.itemsize
    if need > avail:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and "
                           f"itemsize {self.dtype.itemsize} requiring a storage size of {need * self.dtype.itemsize} "
                           f"are out of bounds for storage of size {avail * self.dtype.itemsize}")
    if self.requires_grad:
        from ..autograd.grad_mode import state
        if state.enabled:
            return _as_strided_grad(self, size, stride, off)
    return view_at(self, size, stride, off)


def _as_strided_grad(self, size, stride, off):
    node = AsStridedBackward0()
    node.meta = (tuple(self.shape), (size, stride, off - self.storage_offset()), self.dtype, self.device)
    from ..autograd.graph import attach
    return attach(node, [self], view_at(self, size, stride, off))


def movedim(self, source, destination):
    nd = self.dim()
    src = [norm_dim(d, nd) for d in ((source,) if isinstance(source, int) else source)]
    dst = [norm_dim(d, nd) for d in ((destination,) if isinstance(destination, int) else destination)]
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(nd) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(self, tuple(order))


def unfold(self, dimension, size, step):
    """Tensor.unfold: every window of ``size`` elements along ``dimension``, ``step`` apart, as a new last dim
    (a view; its gradient adds up where windows overlap, through as_strided's)."""
    nd = self.dim()
    d = norm_dim(dimension, nd)
    n = self.shape[d] if nd else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return self.as_strided(*G.unfold(*self._geometry_of(), d, size, step))


METHODS = {
    "unfold": unfold, "view": view, "reshape": reshape, "view_as": view_as, "reshape_as": reshape_as, "permute": permute,
    "transpose": transpose, "swapaxes": transpose, "swapdims": transpose, "t": t, "expand": expand,
    "expand_as": expand_as, "broadcast_to": broadcast_to, "squeeze": squeeze, "unsqueeze": unsqueeze,
    "flatten": flatten, "unflatten": unflatten, "ravel": ravel, "as_strided": as_strided,
    "movedim": movedim, "moveaxis": movedim,
}
PROPERTIES = {"T": _T, "mT": _mT}
FUNCTIONS = {k: v for k, v in METHODS.items()
             if k not in ("unfold", "view", "view_as", "reshape_as", "expand", "expand_as")}
