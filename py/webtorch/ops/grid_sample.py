"""F.affine_grid and F.grid_sample (spatial transformer networks), composed of Tensor ops so that autograd gives
both gradients (the input's through gather, the grid's through the interpolation weights) on every device.

grid_sample reads, for each output position, the input at the point the grid names: (x, y[, z]) in [-1, 1]
across the width, height[, depth]. bilinear (trilinear in 3-D) and nearest move the continuous coordinate inside
the input first (padding_mode border/reflection) and give out-of-range taps weight 0 (zeros); bicubic (2-D) pads
each of its 16 integer taps instead, as PyTorch does. Formulas follow PyTorch's CPU kernel term for term, so the
float rounding matches."""
import itertools
import warnings

from .._geometry import numel
from .._tensor import Tensor
from .creation import linspace, ones
from .shape import stack
from .where_clamp import where
from . import publish

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
                  "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample "
                  "for details.")


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return ((coord + 1) / 2) * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """Mirror coord into [twice_low / 2, twice_high / 2] (PyTorch's reflect_coordinates)."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = coord.fmod(span)
    flips = (coord / span).floor()
    return where(flips.remainder(2) == 0, extra + low, span - extra + low)


def _pad(coord, size, padding_mode, align_corners):
    """The coordinate moved inside [0, size - 1] by border or reflection padding (zeros: unchanged)."""
    if padding_mode == "reflection":
        coord = (_reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1))
    if padding_mode != "zeros":
        coord = coord.clamp(0, size - 1)
    return coord


def _cubic_weights(t):
    """The four weights of taps -1, 0, 1, 2 around a point at fraction t (Keys' cubic, A = -0.75)."""
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _taps(grid, sizes, mode, padding_mode, align_corners):
    """Per spatial dim (innermost first: x, y, z), a list of (integer index tensor, weight tensor or None)."""
    taps = []
    for k, size in enumerate(reversed(sizes)):
        coord = _unnormalize(grid[..., k], size, align_corners)
        if mode == "bicubic":
            c0 = coord.floor()
            weights = _cubic_weights(coord - c0)
            idx = [_pad(c0 + d, size, padding_mode, align_corners) for d in (-1, 0, 1, 2)]
            taps.append(list(zip(idx, weights)))
            continue
        coord = _pad(coord, size, padding_mode, align_corners)
        if mode == "nearest":
            r = coord.round()
            # weight 1 with a zero gradient, so the grid gets its (zero) gradient as PyTorch's does
            taps.append([(r, r - r.detach() + 1 if grid.requires_grad else None)])
        else:
            c0 = coord.floor()
            taps.append([(c0, (c0 + 1) - coord), (c0 + 1, coord - c0)])
    return taps


def _check_grid_sample(input, grid, mode, padding_mode):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{input.device} and grid is on {grid.device}")
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if not input.is_floating_point():
        from .._dtype import scalar_type_name
        raise NotImplementedError(f"\"grid_sampler_{input.dim() - 2}d_cpu_kernel_impl\" not implemented for "
                                  f"'{scalar_type_name(input.dtype)}'")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got "
                           f"grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    for i in range(2, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample input (N, C, H, W) / (N, C, D, H, W) at grid (N, Ho, Wo, 2) / (N, Do, Ho, Wo, 3): (N, C, *grid's)."""
    _check_grid_sample(input, grid, mode, padding_mode)
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    n, c, sizes = input.shape[0], input.shape[1], tuple(input.shape[2:])
    out_spatial = tuple(grid.shape[1:-1])
    flat = input.reshape(n, c, numel(sizes))  # explicit sizes: an empty batch or channel dim leaves -1 open
    strides = [1]
    for size in reversed(sizes[1:]):
        strides.append(strides[-1] * size)  # innermost dim first, as the taps
    out = None
    for combo in itertools.product(*_taps(grid, sizes, mode, padding_mode, align_corners)):
        index, weight, inside = 0, None, None
        for (idx, w), size, stride in zip(combo, reversed(sizes), strides):
            ok = (idx >= 0) & (idx <= size - 1)
            inside = ok if inside is None else inside & ok
            index = idx.clamp(0, size - 1).long() * stride + index
            if w is not None:
                weight = w if weight is None else weight * w
        values = flat.gather(2, index.reshape(n, 1, numel(out_spatial)).expand(n, c, -1)).reshape(n, c, *out_spatial)
        mask = inside.unsqueeze(1)
        term = where(mask, values if weight is None else values * weight.unsqueeze(1), 0.0)
        out = term if out is None else out + term
    return out


def _linspace_from_neg_one(steps, align_corners, like):
    if steps <= 1:
        return linspace(0, 0, 1, dtype=like.dtype, device=like.device)
    r = linspace(-1, 1, steps, dtype=like.dtype, device=like.device)
    return r if align_corners else r * (steps - 1) / steps


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps theta (N, 2, 3) / (N, 3, 4) over an output of ``size`` (N, C, H, W) /
    (N, C, D, H, W): (N, H, W, 2) / (N, D, H, W, 3), for grid_sample."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not isinstance(theta, Tensor) or not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) in (4, 5):
        rows, d = (2, 2) if len(size) == 4 else (3, 3)
        if theta.dim() != 3 or theta.shape[-2] != rows or theta.shape[-1] != rows + 1:
            raise ValueError(f"Expected a batch of {d}D affine matrices of shape Nx{rows}x{rows + 1} for size {size}. "
                             f"Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n = size[0]
    axes = [_linspace_from_neg_one(s, align_corners, theta) for s in reversed(spatial)]  # x, y[, z]
    coords = []
    for k, axis in enumerate(axes):
        shape = [1] * len(spatial)
        shape[len(spatial) - 1 - k] = spatial[len(spatial) - 1 - k]
        coords.append(axis.reshape(shape).expand(*spatial))
    coords.append(ones(spatial, dtype=theta.dtype, device=theta.device))
    base = stack(coords, -1).reshape(1, -1, len(spatial) + 1).expand(n, -1, -1)
    return base.bmm(theta.transpose(1, 2)).reshape(n, *spatial, len(spatial))


FUNCTIONAL = {"affine_grid": affine_grid, "grid_sample": grid_sample}

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its tables become public now
