"""Counting ops: histc, histogram (equal-width or given bin edges) and bincount.

Bins are found by a binary search of the edges (searchsorted), so a value on an edge falls in the same bin as
PyTorch's; counts are accumulated with index_put_(accumulate=True) into one extra slot that collects the
values outside the range. Only bincount (its length is max(input) + 1) and histogram with range=None (the
edges come from the data's extrema, as in PyTorch) and histc with min == max (PyTorch reads the data's range
and refuses NaN/inf in it) read a value back.
"""
import math

from .. import _dtype as D
from .creation import arange, zeros, linspace
from .shape import cat
from .sorting import searchsorted
from ._core.return_types import _make
from ._core.elementwise import not_differentiable
from ._core.inplace import not_implemented_for, require_float
from . import publish

histogram_result = _make("histogram", ("hist", "bin_edges"))


def _counts(x, edges, weight, dtype):
    """Per-bin totals of x's elements (weight's where given) for ascending edges: bin i is [e_i, e_(i+1)), the
    last bin also holds e_last; other values land in a discarded extra slot."""
    nb = edges.numel() - 1
    flat = x.reshape(-1)
    idx = searchsorted(edges, flat, right=True) - 1
    idx = idx.where(flat != edges[-1], nb - 1)
    idx = idx.where((idx >= 0).logical_and(idx < nb), nb)
    vals = weight.reshape(-1).to(dtype) if weight is not None else flat.new_ones(flat.shape, dtype=dtype)
    out = zeros(nb + 1, dtype=dtype, device=x.device)
    out.index_put_((idx,), vals, accumulate=True)
    return out[:nb]


def _extrema(x):
    """(min, max) of x as Python numbers: one read."""
    return tuple(cat([x.amin().reshape(1), x.amax().reshape(1)]).tolist())


def _check_bins(bins):
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")


def histc(input, bins=100, min=0, max=0, *, out=None):
    require_float(input, "histogram_cpu")
    _check_bins(bins)
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    lo, hi = float(min), float(max)
    data_range = lo == hi and input.numel() > 0
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite (remove NaN and inf values "
                           "from the input, or pass finite min= and max=)")
    if data_range:  # the data's range, refused when not finite: on webgpu checked on the device (no readback)
        lo_t, hi_t = input.detach().amin(), input.detach().amax()
        input._be.require_all((lo_t.isfinite() & hi_t.isfinite())._data, "histc")
        same = lo_t == hi_t
        lo_t, hi_t = lo_t.where(same.logical_not(), lo_t - 1), hi_t.where(same.logical_not(), hi_t + 1)
        # linspace(lo, hi, bins + 1) in the input's dtype, in PyTorch's order of operations: the first half
        # counted up from lo, the second down from hi (an element on an edge then falls in torch's bin)
        i = arange(bins + 1, dtype=input.dtype, device=input.device)
        step = (hi_t - lo_t) / bins
        edges = (lo_t + step * i).where(i < (bins + 1) // 2, hi_t - step * (bins - i))
    else:
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        edges = linspace(lo, hi, bins + 1, dtype=input.dtype, device=input.device)
    r = not_differentiable("histc", _counts(input.detach(), edges, None, input.dtype), input)
    if out is not None:
        out.copy_(r)
        return out
    return r


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    require_float(input, "histogramdd")
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError("torch.histogramdd(): if weight tensor is provided it should have the same shape as "
                           "the input tensor excluding its innermost dimension")
    x = input.detach()
    if isinstance(bins, int):
        _check_bins(bins)
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.numel() == 0:
            lo, hi = 0.0, 1.0   # PyTorch's range for no data
        else:
            # the edges are values PyTorch computes from the data's extrema on the host: one read of both
            lo, hi = _extrema(x)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo}, {hi}] is not finite (remove NaN and "
                               "inf values from the input, or pass a finite range=)")
        if lo > hi:
            raise RuntimeError(
                f"torch.histogramdd(): expected leftmost edge to be less than or equal to rightmost edge for "
                f"dimension 0 but got {lo} > {hi}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = linspace(lo, hi, bins + 1, dtype=x.dtype, device=x.device)
    else:
        edges = bins.detach().to(x.dtype)
    hist = _counts(x, edges, None if weight is None else weight.detach(), x.dtype)
    if density:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    return histogram_result(hist, edges)


def bincount(input, weights=None, minlength=0):
    if input.dtype.is_floating_point or input.dtype is D.bool_:
        raise not_implemented_for("bincount_cpu", input.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        dtype = D.int64
    else:
        dtype = weights.dtype if weights.dtype in (D.float32, D.float64) else D.float64
    n = minlength
    if input.numel() > 0:
        # the output's length is max(input) + 1: one read of the extrema (a device sync on webgpu), as PyTorch
        lo, hi = _extrema(input)
        if lo < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        n = max(n, int(hi) + 1)
    out = zeros(n, dtype=dtype, device=input.device)
    vals = weights.detach().to(dtype) if weights is not None else input.new_ones(input.shape, dtype=dtype)
    return out.index_put_((input,), vals, accumulate=True)


FUNCTIONS = {"histc": histc, "histogram": histogram, "bincount": bincount}
METHODS = dict(FUNCTIONS)

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its methods and tables now
