"""Sorting and searching: sort, argsort, msort, topk, kthvalue, median, nanmedian, unique, searchsorted,
bucketize. Backends sort (primitives ``sort``, ``topk``, ``searchsorted``, ``unique``); gradients flow back
to the selected positions."""
from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from .._tensor import Tensor
from ._core import return_types
from ._core.dispatch import check_same_device, norm_dim, wrap, wrap_view
from .extrema import selection_backward, ties_mask
from .._dtype import scalar_type_name
from ._core.inplace import not_implemented_for
from ._core.out_arg import SAME, Rule, same, takes_out


def _dim(input, dim):
    return norm_dim(dim, input.dim())   # a 0-dim input takes dim -1 or 0 (PyTorch's range for it)


def _scatter_back(g, idx, shape, dim):
    """Gradient of taking x at idx along dim: g added back at those positions."""
    if not shape:
        return g
    return g.new_zeros(shape).scatter_add(dim, idx, g)


class SortBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, descending, stable):
        v, i = x._be.sort(x._data, dim, descending, stable)
        values, idx = wrap(v, x, x.shape), wrap(i, x, x.shape)
        ctx.save_for_backward(idx)
        ctx.meta = (tuple(x.shape), dim)
        return values, idx

    @staticmethod
    def backward(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        shape, dim = ctx.meta
        return _scatter_back(g, idx, shape, dim)


@takes_out("sort", None, (SAME, SAME))
def sort(input, dim=-1, descending=False, stable=False):
    if isinstance(dim, bool):  # sort(input, stable, dim=..., descending=...) keyword form of PyTorch
        stable, dim = dim, -1
    return return_types.sort(*apply_op(SortBackward0, input, _dim(input, dim), bool(descending), bool(stable)))


def argsort(input, dim=-1, descending=False, stable=False):
    d = _dim(input, dim)
    return wrap(input._be.sort(input._data, d, bool(descending), bool(stable))[1], input, input.shape)


def msort(input):
    return sort(input, 0).values


class TopkBackward0(SortBackward0):
    @staticmethod
    def forward(ctx, x, k, dim, largest, sorted_):
        v, i = x._be.topk(x._data, k, dim, largest, sorted_)
        shape = x.shape[:dim] + (k,) + x.shape[dim + 1:] if x.dim() else ()
        values, idx = wrap(v, x, shape), wrap(i, x, shape)
        ctx.save_for_backward(idx)
        ctx.meta = (tuple(x.shape), dim)
        return values, idx


@takes_out("topk", None, (SAME, SAME))
def topk(input, k, dim=-1, largest=True, sorted=True):
    if input.dtype is D.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = _dim(input, dim)
    n = input.shape[d] if input.dim() else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    return return_types.topk(*apply_op(TopkBackward0, input, int(k), d, bool(largest), bool(sorted)))


def _pick_sorted(x, dim, pos_k):
    """(values, indices) at sorted position pos_k (keepdim-shaped int64) along dim."""
    v, i = x._be.sort(x._data, dim, False, True)
    values, idx = wrap(v, x, x.shape), wrap(i, x, x.shape)
    return values.gather(dim, pos_k), idx.gather(dim, pos_k)


def _squeeze(t, dim, keepdim):
    return t if keepdim else t.squeeze(dim)


def _make_select(node_name, position):
    """A node that picks, along dim, the element at the sorted position ``position(x, dim)`` returns."""
    def forward(ctx, x, dim, keepdim, *params):
        if x.dim() == 0:
            values, idx = wrap(x._be.contiguous(x._data), x, ()), wrap(x._be.full((), 0, D.int64), x, ())
        else:
            values, idx = _pick_sorted(x, dim, position(x, dim, *params))
            values, idx = _squeeze(values, dim, keepdim), _squeeze(idx, dim, keepdim)
        ctx.save_for_backward(idx)
        ctx.meta = (tuple(x.shape), dim, keepdim)
        return values, idx

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(selection_backward)})


def _kth_position(x, dim, k):
    from .creation import full
    shape = list(x.shape)
    shape[dim] = 1
    return full(shape, k - 1, dtype=D.int64, device=x.device)


def _median_position(x, dim, ignore_nan):
    """Lower median's sorted position; without ignore_nan a slice holding NaN picks its first NaN."""
    n = x.shape[dim]
    if not x.dtype.is_floating_point:
        from .creation import full
        shape = list(x.shape)
        shape[dim] = 1
        return full(shape, (n - 1) // 2, dtype=D.int64, device=x.device)
    n_valid = x.isnan().logical_not().sum(dim=dim, keepdim=True)
    if ignore_nan:
        return ((n_valid - 1).clamp(min=0)) // 2
    from .where_clamp import where
    return where(n_valid < n, n_valid, n_valid.new_full((), (n - 1) // 2))


KthvalueBackward0 = _make_select("KthvalueBackward0", _kth_position)
MedianBackward1 = _make_select("MedianBackward1", lambda x, dim: _median_position(x, dim, False))
NanmedianBackward1 = _make_select("NanmedianBackward1", lambda x, dim: _median_position(x, dim, True))


@takes_out("kthvalue", None, (Rule(same, "output values must be of same type as input"),
                              Rule(same, "output indices must be of scalar type Long")))
def kthvalue(input, k, dim=-1, keepdim=False):
    d = _dim(input, dim)
    n = input.shape[d] if input.dim() else 1
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if input.dtype is D.bool_:
        raise not_implemented_for("kthvalue_cpu", input.dtype)
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return return_types.kthvalue(*apply_op(KthvalueBackward0, input, d, keepdim, int(k)))


def _make_full_median(node_name, ignore_nan):
    def forward(ctx, x):
        flat = x.reshape(-1)
        if flat.numel() == 0:
            out = wrap(x._be.full((), float("nan"), x.dtype), x, ())
        else:
            out = _pick_sorted(flat, 0, _median_position(flat, 0, ignore_nan))[0].reshape(())
        ctx.save_for_backward(x, out)
        return out

    def backward(ctx, g):
        # ties at the median share the gradient, as PyTorch's evenly_distribute_backward
        x, out = ctx.saved_tensors
        mask = ties_mask(x, out)
        from .where_clamp import where
        return where(mask, g / mask.sum(), g.new_zeros(()))

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


MedianBackward0 = _make_full_median("MedianBackward0", False)
NanmedianBackward0 = _make_full_median("NanmedianBackward0", True)


# PyTorch's checks of median's/nanmedian's out= tensors
_MEDIAN_OUT = (Rule(same, "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but "
                          "type {ot} does not equal {rt} (while checking arguments for median)"),
               Rule(same, "Expected tensor for argument #1 'indices' to have scalar type Long; but got {ot} instead "
                          "(while checking arguments for median)"))


def _median_fn(name, full_node, dim_node, result):
    def fn(input, dim=None, keepdim=False):
        if input.dtype is D.bool_:   # PyTorch's median kernels (nanmedian's too) have no bool version
            raise not_implemented_for("median_cpu" if dim is None else "median_out", input.dtype)
        if dim is None:
            return apply_op(full_node, input)
        d = _dim(input, dim)
        if input.dim() and input.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return result(*apply_op(dim_node, input, d, keepdim))
    fn.__name__ = name
    return takes_out(name, None, _MEDIAN_OUT)(fn)


median = _median_fn("median", MedianBackward0, MedianBackward1, return_types.median)
nanmedian = _median_fn("nanmedian", NanmedianBackward0, NanmedianBackward1, return_types.nanmedian)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    d = None if dim is None else _dim(input, dim)
    v, inv, counts = input._be.unique(input._data, sorted, return_inverse, return_counts, d)
    out = [wrap_view(v, input)]  # data-dependent sizes
    if return_inverse:
        out.append(wrap_view(inv, input))
    if return_counts:
        out.append(wrap_view(counts, input))
    return out[0] if len(out) == 1 else tuple(out)


def _searchsorted_dtype_message(r, o):
    return ("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) depending "
            f"on whether out_int32 flag is True, but we got output tensor's dtype {scalar_type_name(o)} and out_int32 "
            f"flag is {r is D.int32}")


@takes_out(None, Rule(same, _searchsorted_dtype_message))
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence
    check_same_device(seq, input if isinstance(input, Tensor) else None, sorter)
    if sorter is not None:
        seq = seq.gather(-1, sorter)
    scalar = not isinstance(input, Tensor)
    if scalar:
        if seq.dim() != 1:
            raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                               f"dimension is 1, but we got boundaries tensor dim({seq.dim()})")
        from .creation import tensor
        input = tensor([input], device=seq.device)
    elif seq.dim() != 1 and tuple(seq.shape[:-1]) != tuple(input.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor {list(input.shape)}")
    r = wrap(seq._be.searchsorted(seq._data, input._data, bool(right), bool(out_int32)), seq, input.shape)
    return r.reshape(()) if scalar else r


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


FUNCTIONS = {"sort": sort, "argsort": argsort, "msort": msort, "topk": topk, "kthvalue": kthvalue,
             "median": median, "nanmedian": nanmedian, "unique": unique, "searchsorted": searchsorted,
             "bucketize": bucketize}
METHODS = {k: v for k, v in FUNCTIONS.items() if k not in ("searchsorted", "bucketize")}
