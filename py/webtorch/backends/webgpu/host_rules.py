"""Which calls of the webgpu primitives run on the host: the dtypes and sizes the WGSL kernels do not serve.

WebGPUBackend (backend.py) is built with these tables: ``HOST_FALLBACKS`` always run on the host; a primitive of
``HOST_WHEN`` runs on the host when its predicate, given the primitive's own arguments, is true; every other call
reaches the kernel family. ``DECIDED_IN_KERNEL`` names the few primitives whose family itself may still call the
host fallback, and why (a decision that needs the kernel's planning or the values). The host fallback
(fallback.py) is counted in ``webtorch.webgpu.stats()`` and refused inside a capture: it is never silent.

The families loaded at their first call (backend.py's ``families``: scans and sorts, padding) are imported by their
predicates, which run only when one of their primitives is called.
"""
import math

from ... import _dtype as D
from ..._geometry import numel
from .handles import View
from .index_kernels import advanced_rank, native_index
from .kernel_launch import MAX_RANK
from .pool_kernels import SERVED as POOL_SERVED, window_fits
from .softmax_norm_kernels import BN_RT, row_fits

#: primitives with no WGSL kernel yet: every call runs on the NumPy backend
HOST_FALLBACKS = frozenset({"unique", "linalg_slogdet", "linalg_qr", "linalg_eigh", "linalg_svd", "linalg_lstsq"})

#: the dtypes of the float kernels (float16 computes through float32)
FLOATS = frozenset({D.float32, D.float16})


def not_float(rec, *args):
    """The float kernels' rule: the handles among args are all float32 or all float16, else the host computes."""
    dts = {a.dtype for a in args if isinstance(a, View)}
    return not (dts <= {D.float32} or dts <= {D.float16})


def _matmul(rec, a, b):  # not_float for two handles (a hot path: small models record many products)
    return a.dtype is not b.dtype or a.dtype not in FLOATS


def _a_not_float(rec, a, *rest):  # (linalg_solve_triangular casts b to a's dtype)
    return a.dtype not in FLOATS


def _g_not_float(rec, g, *rest):
    return g.dtype not in FLOATS


def _weight_int64(rec, weight, indices):  # the kernel moves 32-bit words
    return weight.dtype is D.int64


def _src_int64(rec, src, indices):  # the kernel moves 32-bit words
    return src.dtype is D.int64


def _params_not_float32(rec, params, *rest):  # optim_multi_tensor.wgsl updates float32
    return any(p.dtype is not D.float32 for p in params)


def _pool_window(rec, x, kernel, stride, padding, dilation, ceil_mode):
    return x.dtype not in POOL_SERVED or not window_fits(kernel, rec.limits)


def _adaptive_pool_window(rec, x, output_size):
    return x.dtype not in POOL_SERVED or not window_fits(
        [-(-s // max(o, 1)) + 1 for s, o in zip(x.shape[2:], output_size)], rec.limits)


def _avg_pool_window(rec, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return x.dtype not in POOL_SERVED or not window_fits(kernel, rec.limits)


def _avg_pool_backward_window(rec, g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad,
                              divisor_override):
    return g.dtype not in POOL_SERVED or not window_fits([-(-k // s) + 1 for k, s in zip(kernel, stride)], rec.limits)


def _resample_taps_window(rec, x, dim, index, weight, divisor):   # the kernel loops over one output's taps
    return not window_fits([index.shape[1]], rec.limits)


def _scatter_plane(rec, src, indices, plane_shape, accumulate):
    return src.dtype not in POOL_SERVED


def _softmax_row(rec, h, dim, log, dtype):
    return not row_fits(h.shape[dim] if h.shape else 1, 256, rec.limits)


def _softmax_backward_row(rec, g, y, dim, log, dtype):
    return not row_fits(y.shape[dim] if y.shape else 1, 256, rec.limits)


def _layer_norm_row(rec, x, weight, bias, n, eps):
    return not row_fits(numel(x.shape[len(x.shape) - n:]), 64, rec.limits)


def _layer_norm_backward_row(rec, g, x, mean, rstd, weight, n, need):
    return not row_fits(numel(x.shape[len(x.shape) - n:]), 64, rec.limits)


def _batch_norm_channel(rec, x, *rest):
    return bool(x.shape[1]) and not row_fits(x.numel // x.shape[1], BN_RT, rec.limits)


def _batch_norm_backward_channel(rec, g, x, *rest):
    return bool(x.shape[1]) and not row_fits(x.numel // x.shape[1], BN_RT, rec.limits)


def _cumulative(rec, op, h, dim, dtype, reverse=False):
    from .scan_sort_kernels import SCAN_TYPES
    return dtype not in SCAN_TYPES or len(h.shape) > MAX_RANK or (op == "logsumexp" and dtype is not D.float32)


def _sort(rec, h, dim, descending, stable):
    from .scan_sort_kernels import sortable
    return bool(h.shape) and not sortable(h, dim)


def _topk(rec, h, k, dim, largest, sorted):
    from .scan_sort_kernels import sortable
    return bool(h.shape) and not sortable(h, dim)


def _searchsorted(rec, seq, values, right, out_int32):
    from .scan_sort_kernels import search_type
    return not isinstance(values, View) or search_type(seq.dtype, values.dtype) is None


def _index(rec, h, indices):
    rank = advanced_rank(h, indices)
    return rank is None or not native_index(h, rank)


def _gather(rec, h, dim, index):
    return not native_index(h, len(index.shape))


def _nonzero(rec, h):
    return len(h.shape) > MAX_RANK or h.numel >= 1 << 31


def _pad(rec, x, pads, mode, value):
    from .pad_kernels import MAX_RANK as PAD_MAX_RANK
    lead = len(x.shape) - PAD_MAX_RANK + 1 + (x.dtype is D.int64)  # leading dims folded into one (pad_kernels)
    return lead > 1 and any(tuple(p) != (0, 0) for p in pads[:lead])


def _embedding_renorm(rec, weight, indices, max_norm, norm_type):
    return weight.dtype not in FLOATS or math.isinf(norm_type)


#: primitive -> predicate(rec, *the primitive's arguments): true when that call runs on the host
HOST_WHEN = {
    "matmul": _matmul, "conv": not_float, "conv_backward_input": not_float, "conv_backward_weight": not_float,
    "im2col": not_float, "col2im": not_float, "linalg_det": not_float, "linalg_inv": not_float,
    "linalg_solve": not_float, "linalg_cholesky": _a_not_float, "linalg_solve_triangular": _a_not_float,
    "embedding": _weight_int64, "embedding_backward": _g_not_float, "embedding_renorm_": _embedding_renorm,
    "gather_plane": _src_int64, "pad_backward": _g_not_float, "pad": _pad,
    "max_pool": _pool_window, "adaptive_max_pool": _adaptive_pool_window, "avg_pool": _avg_pool_window,
    "avg_pool_backward": _avg_pool_backward_window, "scatter_plane": _scatter_plane,
    "resample_taps": _resample_taps_window,
    "softmax": _softmax_row, "softmax_backward": _softmax_backward_row, "layer_norm": _layer_norm_row,
    "layer_norm_backward": _layer_norm_backward_row, "batch_norm": _batch_norm_channel,
    "batch_norm_backward": _batch_norm_backward_channel,
    "cumulative": _cumulative, "sort": _sort, "topk": _topk, "searchsorted": _searchsorted,
    "index": _index, "gather": _gather, "nonzero": _nonzero,
    **{name: _params_not_float32 for name in ("sgd_update", "adam_update", "rmsprop_update", "adagrad_update",
                                              "adadelta_update", "adamax_update", "nadam_update", "radam_update")},
}

#: primitive -> why its kernel family may still hand a call to the host after HOST_WHEN let it through
DECIDED_IN_KERNEL = {
    "linalg_det": "a matrix too large for one workgroup's loop budget (linalg_kernels._fits)",
    "linalg_inv": "a matrix too large for one workgroup's loop budget (linalg_kernels._fits)",
    "linalg_solve": "a system too large for one workgroup's loop budget (linalg_kernels._fits)",
    "linalg_cholesky": "a matrix too large for one workgroup's loop budget (linalg_kernels._fits)",
    "linalg_solve_triangular": "a column substitution past one invocation's loop budget",
    "index_put_": "an int64 destination whose values do not fit int32, or an index/value the kernels do not bind",
    "scatter_": "an int64 destination whose values do not fit int32, or a dtype/reduction the kernels lack",
    "max_pool": "int64 values that do not fit int32 (read from the device when the host does not know them)",
    "adaptive_max_pool": "int64 values that do not fit int32",
    "avg_pool": "int64 window sums that do not fit int32",
    "avg_pool_backward": "int64 window sums that do not fit int32",
    "scatter_plane": "int64 sums that do not fit int32",
}
