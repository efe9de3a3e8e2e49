"""Sparse COO tensors (layout torch.sparse_coo): what embedding(sparse=True) gradients and the optimizers that take
them (SGD, Adagrad, SparseAdam) need, composed of dense Tensor ops so they run on every device.

A sparse tensor keeps two dense tensors on one device: ``indices`` (sparse_dim, nnz) int64 and ``values``
(nnz, *dense shape). Entries may repeat an index (they add up) until ``coalesce()`` sorts and sums them. Ops this
module does not give raise NotImplementedError naming the layout and the way out (``to_dense()``): never a number
computed as if the tensor were dense.
"""
from .. import _dtype as D
from .._layout import sparse_coo
from .._tensor import Size, Tensor, _no_history, _parse_to
from .._torch_function import _disabled_torch_function_impl
from ..autograd.grad_mode import state as _grad_state
from ._core.dispatch import check_same_device
from .shape import cat, stack


_NO_GRAD = ("sparse COO tensors that require grad are not supported in webtorch (they are gradients, not leaves): "
            "differentiate a dense tensor, e.g. the values before sparse_coo_tensor(...).to_dense()")


def _refused(name):
    def refuse(self, *args, **kwargs):
        raise NotImplementedError(f"{name} is not supported on sparse COO tensors (layout=torch.sparse_coo) in "
                                  "webtorch: convert with .to_dense() first, or work on .coalesce().values()")
    refuse.__name__ = name
    return refuse


class SparseCOOTensor(Tensor):
    """A Tensor of layout torch.sparse_coo (made by torch.sparse_coo_tensor, Tensor.to_sparse, or as the gradient of
    embedding(sparse=True)). Its own dense parts: ``_indices()``, ``_values()``."""

    # the dense storage every other Tensor has: an op written for dense tensors that reaches it fails clearly
    _data = property(_refused("this operation"))
    # a layout, not a subclass in PyTorch's sense: ops take part as a plain tensor does (no __torch_function__)
    __torch_function__ = _disabled_torch_function_impl

    # -- layout and metadata -------------------------------------------------------------------------
    @property
    def is_sparse(self):
        return True

    @property
    def layout(self):
        return sparse_coo

    @property
    def data(self):
        return self.detach()

    @data.setter
    def data(self, other):
        # (Module.to moves a sparse .grad this way: the tensor object stays, its parts are replaced)
        if not isinstance(other, SparseCOOTensor):
            raise RuntimeError("the .data of a sparse COO tensor can only be set to a sparse COO tensor; assign "
                               "the dense tensor itself instead")
        self._ind, self._val, self._coalesced, self._geom = other._ind, other._val, other._coalesced, other._geom
        self._be, self._device, self.dtype = other._be, other._device, other.dtype

    def requires_grad_(self, requires_grad=True):
        if requires_grad:
            raise NotImplementedError(_NO_GRAD)
        return self

    def sparse_dim(self):
        return self._ind.shape[0]

    def dense_dim(self):
        return self._val.dim() - 1

    def _nnz(self):
        return self._ind.shape[1]

    def _indices(self):
        return self._ind

    def _values(self):
        return self._val

    def indices(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._ind

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._val

    def is_coalesced(self):
        return self._coalesced

    def is_contiguous(self, *, memory_format=None):
        return False

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return "torch.sparse." + D.tensor_type_name(self.dtype)
        return self.to(D.to_dtype(dtype))

    def __repr__(self, *, tensor_contents=None):
        # each part as a dense tensor prints, its lines shifted to where it starts
        pad = " " * len("tensor(")
        ind = repr(self._ind.cpu())[len("tensor("):-1].replace(", dtype=torch.int64", "")
        ind = ind.replace("\n", "\n" + " " * len("tensor(indices="))
        val = repr(self._val.cpu())[len("tensor("):-1].replace("\n", "\n" + pad + " " * len("values="))
        extra = "" if self.dtype is D.get_default_dtype() else f", dtype={self.dtype}"
        where = "" if self._device.type == "cpu" else f", device='{self._device}'"
        return (f"tensor(indices=tensor({ind}),\n{pad}values=tensor({val}),\n{pad}size={tuple(self.shape)}, "
                f"nnz={self._nnz()}{extra}{where}, layout=torch.sparse_coo)")

    # -- copies and moves ----------------------------------------------------------------------------
    def coalesce(self):
        """The same tensor with each index once, sorted, its values summed (self when already coalesced)."""
        if self._coalesced:
            return self
        flat = _flat_index(self._ind, self.shape)
        where, inverse = flat.unique(sorted=True, return_inverse=True)
        values = self._val.new_zeros((where.shape[0],) + tuple(self._val.shape[1:]))
        values.index_add_(0, inverse, self._val)
        return make_sparse(_unflatten(where, self.shape[:self.sparse_dim()]), values, self.shape, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        out = self._val.new_zeros(tuple(self.shape), dtype=dtype)
        return out.index_put_(tuple(self._ind), self._val.to(out.dtype), accumulate=True)

    def to_sparse(self, *args, **kwargs):
        return self

    def clone(self, *, memory_format=None):
        return make_sparse(self._ind.clone(), self._val.clone(), self.shape, self._coalesced)

    def detach(self):
        return make_sparse(self._ind, self._val, self.shape, self._coalesced)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = self.clone()
        return memo[id(self)]

    def to(self, *args, **kwargs):
        dev, dt, copy, _ = _parse_to(self, *args, **kwargs)
        if (dev is None or dev == self._device) and (dt is None or dt is self.dtype) and not copy:
            return self
        ind = self._ind if dev is None else self._ind.to(dev, copy=copy)
        return make_sparse(ind, self._val.to(dev, dt, copy=copy), self.shape, self._coalesced)

    def cpu(self, memory_format=None):
        return self.to("cpu")

    # -- in place ------------------------------------------------------------------------------------
    def _replace(self, other):
        self._ind, self._val, self._coalesced = other._ind, other._val, other._coalesced
        self._version[0] += 1
        return self

    def zero_(self):
        empty = self._ind.new_zeros((self.sparse_dim(), 0))
        return self._replace(make_sparse(empty, self._val.new_zeros((0,) + tuple(self._val.shape[1:])), self.shape, True))

    def add_(self, other, *, alpha=1):
        if not isinstance(other, SparseCOOTensor):
            raise RuntimeError("add_(sparse, dense) is not supported: the sum is dense; use dense.add_(sparse) "
                               "or sparse.to_dense().add_(dense)")
        return self._replace(add(self, other, alpha=alpha))

    def mul_(self, other):
        self._val = self._val * _scalar_operand(other, "mul_")
        self._version[0] += 1
        return self

    def div_(self, other):
        self._val = self._val / _scalar_operand(other, "div_")
        self._version[0] += 1
        return self

    __iadd__ = add_
    __imul__ = mul_
    __itruediv__ = div_

    # -- arithmetic ----------------------------------------------------------------------------------
    def add(self, other, *, alpha=1):
        return add(self, other, alpha=alpha)

    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        return add(other, self)

    def sub(self, other, *, alpha=1):
        return add(self, other, alpha=-alpha)

    def __sub__(self, other):
        return add(self, other, alpha=-1)

    def __rsub__(self, other):
        return add(other, self, alpha=-1)

    def neg(self):
        return make_sparse(self._ind, -self._val, self.shape, self._coalesced)

    __neg__ = neg

    def mul(self, other):
        return make_sparse(self._ind, self._val * _scalar_operand(other, "mul"), self.shape, self._coalesced)

    __mul__ = __rmul__ = mul

    def div(self, other):
        return make_sparse(self._ind, self._val / _scalar_operand(other, "div"), self.shape, self._coalesced)

    __truediv__ = div

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        return sparse_sum(self, dim, dtype=dtype)


def _scalar_operand(other, op):
    """A number or 0-dim dense tensor scaling every value; anything else is refused (the product of a sparse
    tensor and a dense one of more elements is not a scaling)."""
    if isinstance(other, Tensor) and (other.is_sparse or other.dim() != 0):
        raise NotImplementedError(f"{op} of a sparse COO tensor (layout=torch.sparse_coo) by a "
                                  f"{'sparse' if other.is_sparse else 'non-scalar'} tensor is not supported in "
                                  "webtorch: multiply by a number, or convert with .to_dense() first")
    return other


def make_sparse(indices, values, shape, coalesced):
    """A SparseCOOTensor of checked parts (indices (sparse_dim, nnz) int64, values (nnz, *dense shape))."""
    t = object.__new__(SparseCOOTensor)
    t._ind, t._val, t._coalesced = indices, values, coalesced
    t._geom = (Size(shape), (), 0)
    t._be = values._be
    t._device = values._device
    t.dtype = values.dtype
    return _no_history(t)


def _refuse_dense_methods():
    """Every Tensor method SparseCOOTensor does not give (the ops' methods, item, numpy, view, ...) raises
    NotImplementedError on a sparse tensor; metadata that holds for both layouts stays."""
    keep = {"__new__", "__init__", "__hash__", "__repr__", "__str__", "__len__", "__format__", "__class__",
            "__reduce_ex__", "size", "dim", "ndimension", "numel", "nelement", "element_size", "get_device",
            "is_floating_point", "is_complex", "is_signed", "is_inference", "detach_",
            "shape", "ndim", "itemsize", "device", "is_cuda", "is_cpu", "is_webgpu", "is_mps", "is_xpu",
            "is_quantized", "is_meta", "grad", "is_leaf", "retains_grad", "output_nr", "_version_counter",
            "_geometry_of", "as_subclass", "float", "double", "half", "bfloat16", "int", "long", "short", "char",
            "byte", "bool", "type_as", "webgpu", "cuda", "__deepcopy__"}
    own = vars(SparseCOOTensor)
    for name, attr in list(vars(Tensor).items()):
        if name in keep or name in own or not (callable(attr) or isinstance(attr, property)):
            continue
        if isinstance(attr, (staticmethod, classmethod)) or type(attr).__name__ == "member_descriptor":
            continue
        setattr(SparseCOOTensor, name, property(_refused(name)) if isinstance(attr, property) else _refused(name))


# -- index arithmetic over the sparse dims -----------------------------------------------------------------
def _flat_index(indices, shape):
    """Each entry's position in the C-order flattening of the sparse dims (1-D int64)."""
    flat = indices[0]
    for j in range(1, indices.shape[0]):
        flat = flat * shape[j] + indices[j]
    return flat


def _unflatten(flat, sparse_shape):
    """The (sparse_dim, n) indices of C-order positions ``flat`` in ``sparse_shape``."""
    rows = []
    for size in reversed(tuple(sparse_shape)[1:]):
        rows.append(flat % size)
        flat = flat // size
    rows.append(flat)
    return stack(rows[::-1]) if len(rows) > 1 else flat.unsqueeze(0)


# -- construction ----------------------------------------------------------------------------------------
def _as_tensor(x, dtype, device):
    from .creation import tensor
    if isinstance(x, Tensor):
        if x.is_sparse:
            raise TypeError("sparse_coo_tensor(): indices and values must be dense (strided) tensors")
        return x.to(device=device, dtype=dtype)
    return tensor(x, dtype=dtype, device=device)


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """torch.sparse_coo_tensor: a sparse COO tensor with ``values[i]`` at ``indices[:, i]`` (repeats add up).

    Example::

        >>> s = torch.sparse_coo_tensor([[0, 2, 0]], torch.ones(3, 2), (4, 2))
        >>> s.to_dense()[0]   # tensor([2., 2.])
    """
    if requires_grad:
        raise NotImplementedError(_NO_GRAD)
    if device is None:  # where a given tensor is (values first), else the default device
        device = next((x.device for x in (values, indices) if isinstance(x, Tensor)), None)
    values = _as_tensor(values, dtype, device)
    ind = _as_tensor(indices, None, values.device)
    if ind.dtype.is_floating_point or ind.dtype is D.bool_:
        raise RuntimeError(f"indices must be an int64 tensor, got {ind.dtype}")
    ind = ind.to(D.int64)
    if ind.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(ind.shape)}")
    sparse_dim, nnz = ind.shape
    if values.dim() == 0 or values.shape[0] != nnz:
        got = values.shape[0] if values.dim() else "a 0-dim tensor"
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {got}")
    dense_shape = tuple(values.shape[1:])
    if nnz:
        low, high = ind.amin(1).tolist(), ind.amax(1).tolist()
        for d in range(sparse_dim):
            if low[d] < 0:
                raise RuntimeError(f"found negative index {low[d]} for dim {d}")
    if size is None:
        size = tuple(h + 1 for h in high) if nnz else (0,) * sparse_dim
        size += dense_shape
    size = tuple(size)
    if len(size) != sparse_dim + len(dense_shape):
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {len(dense_shape)}")
    if size[sparse_dim:] != dense_shape:
        raise RuntimeError(f"values has incorrect size, expected {[nnz] + list(size[sparse_dim:])}, got "
                           f"{list(values.shape)}")
    for d in range(sparse_dim if nnz else 0):
        if high[d] >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found index "
                               f"{high[d]}")
    coalesced = nnz <= 1 if is_coalesced is None else bool(is_coalesced)
    return make_sparse(ind, values, size, coalesced)


def to_sparse(self, *args, layout=None, blocksize=None, dense_dim=None, sparse_dim=None):
    """Tensor.to_sparse([sparse_dim]): the nonzero entries of a dense tensor as a coalesced sparse COO tensor
    (with sparse_dim below dim(), each nonzero slice over the first sparse_dim dims is one entry)."""
    if args:
        sparse_dim = args[0]
    if layout not in (None, sparse_coo) or blocksize is not None or dense_dim is not None:
        raise NotImplementedError(f"to_sparse(layout={layout}) is not supported in webtorch: only the sparse COO "
                                  "layout is")
    k = self.dim() if sparse_dim is None else sparse_dim
    if not 0 <= k <= self.dim():
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{self.dim()}] range, but {k} is given")
    if k == 0 and self.dim():
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    data = self.detach()
    if k == 0:  # a 0-dim tensor: one entry at no index
        return make_sparse(data.new_zeros((0, 1), dtype=D.int64), data.reshape(1), self.shape, True)
    nonzero = data != 0
    if k < data.dim():
        nonzero = nonzero.flatten(k).any(-1)
    ind = nonzero.nonzero().t().contiguous()
    return make_sparse(ind, data[tuple(ind)], self.shape, True)


def sparse_mask(self, mask):
    """Tensor.sparse_mask(mask): this dense tensor's entries at the sparse ``mask``'s indices, as a sparse tensor
    with those indices (as stored, repeats kept)."""
    if not isinstance(mask, Tensor) or not mask.is_sparse:
        raise RuntimeError("sparse_mask expects mask to be a sparse COO tensor")
    if self.requires_grad and _grad_state.enabled:
        raise NotImplementedError("sparse_mask of a tensor that requires grad is not differentiable in webtorch: "
                                  "call it on .detach(), or index the dense tensor")
    check_same_device(self, mask)
    if self.shape != mask.shape:
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(self.shape)} but "
                           f"mask has size {list(mask.shape)}")
    return make_sparse(mask._ind, self[tuple(mask._ind)], mask.shape, mask._coalesced)


# -- arithmetic -----------------------------------------------------------------------------------------
def add(input, other, *, alpha=1):
    """input + alpha * other where either is sparse: sparse + sparse is sparse (the entries of both, merged
    when both are coalesced), dense + sparse is dense; sparse + dense is PyTorch's error."""
    if not isinstance(input, Tensor):
        raise TypeError(f"add(): a sparse COO tensor and {type(input).__name__} cannot be added")
    if not isinstance(other, Tensor):
        raise NotImplementedError("adding a number to a sparse COO tensor (layout=torch.sparse_coo) makes it dense: "
                                  "use .to_dense() first")
    check_same_device(input, other)
    if input.shape != other.shape:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(input.shape)} while other has size {list(other.shape)} (FYI: dense-sparse addition "
                           "does not currently support broadcasting)")
    if not input.is_sparse:
        return add_into(input.to(D.promote_types(input.dtype, other.dtype), copy=True), other, alpha)
    if not other.is_sparse:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if input.sparse_dim() != other.sparse_dim():
        raise RuntimeError(f"add: expected 'self' and 'other' to have same sparse dims, but self has "
                           f"{input.sparse_dim()} while other has {other.sparse_dim()}")
    dt = D.promote_types(input.dtype, other.dtype)
    scaled = other._val if alpha == 1 else other._val * alpha
    out = make_sparse(cat([input._ind, other._ind], 1), cat([input._val.to(dt), scaled.to(dt)]),
                input.shape, False)
    return out.coalesce() if input._coalesced and other._coalesced else out


def add_into(dense, sparse, alpha=1):
    """dense += alpha * sparse in place (Tensor.add_ with a sparse operand): only the entries sparse names are
    written, each entry's scaled value added (repeats add up)."""
    check_same_device(dense, sparse)
    if dense.shape != sparse.shape:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(dense.shape)} while other has size {list(sparse.shape)} (FYI: dense-sparse addition "
                           "does not currently support broadcasting)")
    result = D.promote_types(dense.dtype, sparse.dtype)
    if result.category > dense.dtype.category:  # (float64 into float32 casts, as in PyTorch)
        raise RuntimeError(f"Can't convert result type {D.scalar_type_name(result)} to output "
                           f"{D.scalar_type_name(dense.dtype)} in add operation")
    scaled = sparse._val if alpha == 1 else sparse._val * alpha
    return dense.index_put_(tuple(sparse._ind), scaled.to(dense.dtype), accumulate=True)


def sparse_sum(input, dim=None, *, dtype=None):
    """The sum of every element of a sparse tensor (a 0-dim dense tensor); sums over dims are refused."""
    if dim is not None:
        raise NotImplementedError("sum over dims of a sparse COO tensor is not supported in webtorch: use "
                                  ".to_dense().sum(dim) or torch.sparse.sum(t) for the total")
    return input._val.sum(dtype=dtype)


def mm(mat1, mat2):
    """torch.sparse.mm(sparse, dense): the (n, m) product of a 2-D sparse COO matrix (n, k) and a dense (k, m);
    differentiable with respect to the dense operand."""
    if not mat1.is_sparse or mat2.is_sparse:
        raise NotImplementedError("torch.sparse.mm in webtorch takes a sparse COO matrix and a dense one: "
                                  "convert the other operands with .to_dense() / .to_sparse()")
    if mat1.dim() != 2 or mat2.dim() != 2 or mat1.dense_dim() != 0:
        raise RuntimeError(f"sparse.mm: expected 2-D matrices, got {mat1.dim()}-D and {mat2.dim()}-D")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x{mat1.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    check_same_device(mat1, mat2)
    rows, cols = mat1._ind[0], mat1._ind[1]
    terms = mat2.index_select(0, cols) * mat1._val.to(mat2.dtype).unsqueeze(1)
    return mat2.new_zeros((mat1.shape[0], mat2.shape[1])).index_add(0, rows, terms)


FUNCTIONS = {"sparse_coo_tensor": sparse_coo_tensor}
METHODS = {"to_sparse": to_sparse, "to_sparse_coo": to_sparse, "sparse_mask": sparse_mask}
