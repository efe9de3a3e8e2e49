"""Fractional max pooling (Graham, 2014): windows of a fixed size whose starts advance by a pseudo-random
fractional step, one draw per (batch, plane) in ``_random_samples`` (uniform [0, 1) from the global generator
when not given).

The starts are PyTorch's: for output i < out - 1, trunc((i + u) * alpha) - trunc(u * alpha) with
alpha = (in - k) / (out - 1), computed in the input's dtype, and in - k for the last. Every window's flat input
indices are gathered at once; the max picks the first largest element, or the last NaN as PyTorch's loop does, and
the output is the input gathered at that index, so the gradient flows back to it (scatter-add) on every device.
The samples' last dim is read as (w, h) in 2-d and (t, h, w) in 3-d, as PyTorch does.
"""
from .._dtype import int64, scalar_type_name
from ..autograd.grad_mode import is_grad_enabled
from .creation import arange, rand
from .shape import cat
from .where_clamp import where
from . import publish

_SAMPLE_ORDER = {2: (1, 0), 3: (0, 1, 2)}  # which sample drives each spatial dim (PyTorch's kernels)
_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _sizes(value, n, what, name):
    vals = (value,) * n if isinstance(value, int) else tuple(value)
    if len(vals) != n:
        raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of "
                           f"{'Ints' if n == 2 else 'three Ints'}")
    return vals


def _starts(u, size, out, k):
    """(B, C, out) window starts along one dim from the samples u (B, C)."""
    last = u.new_full((*u.shape, 1), size - k).to(int64)
    if out == 1:
        return last
    alpha = u.new_full((), size - k) / (out - 1)
    i = arange(out - 1, dtype=u.dtype, device=u.device)
    steps = ((i + u.unsqueeze(-1)) * alpha).trunc() - (u * alpha).trunc().unsqueeze(-1)
    return cat([steps.to(int64), last], -1)


def _window_indices(starts, spatial, kernel):
    """(B, C, *out, K) flat indices into the (B, C, prod(spatial)) input of every window element."""
    n = len(spatial)
    index = None
    for d in range(n):
        stride = 1
        for s in spatial[d + 1:]:
            stride *= s
        offs = arange(kernel[d], dtype=int64, device=starts[d].device)
        pos = (starts[d].unsqueeze(-1) + offs) * stride  # (B, C, out_d, k_d)
        # place out_d at output axis d and k_d at kernel axis d: (B, C, *out, *kernel)
        shape = [pos.shape[0], pos.shape[1]] + [1] * (2 * n)
        shape[2 + d], shape[2 + n + d] = pos.shape[2], pos.shape[3]
        term = pos.reshape(shape)
        index = term if index is None else index + term
    return index.flatten(2 + n)


def _fractional_max_pool(input, n, kernel_size, output_size, output_ratio, return_indices, _random_samples):
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if n == 2 and not isinstance(output_ratio, (int, float)) and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = (output_ratio,) * n if isinstance(output_ratio, (int, float)) else tuple(output_ratio)
        output_size = [int(input.size(d - n) * r) for d, r in enumerate(ratio)]
    if _random_samples is None:
        batch = 1 if input.dim() == n + 1 else input.size(0)
        _random_samples = rand(batch, input.size(-n - 1), n, dtype=input.dtype, device=input.device)
    kernel = _sizes(kernel_size, n, "kernel_size", name)
    out = _sizes(output_size, n, "output_size", name)
    where_name = name + ("()" if n == 2 else "_out()")
    samples = _random_samples
    if samples.dtype is not input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{where_name}: Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}")
    for d in range(input.dim() - n - 1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{where_name}: Expected input to have non-zero size for non-batch dimensions, but "
                               f"got{list(input.shape)} with dimension {d} being empty.")
    x = input if input.dim() == n + 2 else input.unsqueeze(0)
    batch, planes, spatial = x.shape[0], x.shape[1], tuple(x.shape[2:])
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != planes:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {samples.shape[2]}.")
    for what, o, k, s in zip(_DIM_NAMES[n], out, kernel, spatial):
        if o + k - 1 > s - (n == 3):  # PyTorch's 3-d check is strict
            raise RuntimeError(f"{where_name}: pool {what} {k} too large relative to input {what} {s}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{name}_out_frame" not implemented for \'{scalar_type_name(input.dtype)}\'')
    if samples.requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{name}' is not differentiable with respect to argument 'random_samples'. "
                           "This input cannot have requires_grad True.")
    if samples.device != input.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{input.device} and {samples.device}!")
    flat = x.flatten(2)
    if batch == 0 or any(o == 0 for o in out):
        indices = x.new_zeros((batch, planes, *out), dtype=int64)
    else:
        u = samples[:batch].detach()
        starts = [_starts(u[..., _SAMPLE_ORDER[n][d]], spatial[d], out[d], kernel[d]) for d in range(n)]
        window = _window_indices(starts, spatial, kernel)  # (B, C, *out, K)
        vals = flat.detach().gather(2, window.flatten(2)).reshape(window.shape)
        nan = vals.isnan()
        k_all = window.shape[-1]
        last_nan = (k_all - 1) - nan.flip(-1).to(int64).argmax(-1)
        pick = where(nan.any(-1), last_nan, vals.argmax(-1))
        indices = window.gather(-1, pick.unsqueeze(-1)).squeeze(-1)
    values = flat.gather(2, indices.flatten(2)).reshape(indices.shape)
    if input.dim() == n + 1:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return (values, indices) if return_indices else values


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Max over kH x kW windows at pseudo-random fractional strides chosen to give ``output_size`` (or
    ``output_ratio`` of the input size); returns (values, indices) when ``return_indices``."""
    return _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Max over kT x kH x kW windows at pseudo-random fractional strides chosen to give ``output_size`` (or
    ``output_ratio`` of the input size); returns (values, indices) when ``return_indices``."""
    return _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, True, _random_samples)


FUNCTIONAL = {"fractional_max_pool2d": fractional_max_pool2d, "fractional_max_pool3d": fractional_max_pool3d,
              "fractional_max_pool2d_with_indices": fractional_max_pool2d_with_indices,
              "fractional_max_pool3d_with_indices": fractional_max_pool3d_with_indices}

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its tables become public now
