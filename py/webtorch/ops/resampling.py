"""Spatial resampling: interpolate / upsample (nearest, nearest-exact, (bi/tri)linear, bicubic, area) and
pixel_shuffle / pixel_unshuffle / channel_shuffle.

Interpolation is a separable map (separable_resample.py): per spatial dim, the taps PyTorch's CPU kernel reads for
each output (its index arithmetic, zero weights included); "area" mode is adaptive average pooling.
"""
import math
import struct

from .._dtype import uint8
from ..autograd.graph import Node, apply_op
from ._core.inplace import not_implemented_for
from ._core.dispatch import wrap
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
from .separable_resample import resample_node, taps


# ---------------------------------------------------------------------------------------------------
# pixel_shuffle / pixel_unshuffle
# ---------------------------------------------------------------------------------------------------

def _shuffle_handle(x, r, up):
    be = x._be
    shape = tuple(x.shape)
    lead, (c, h, w) = shape[:-3], shape[-3:]
    k = len(lead)
    if up:
        v = be.reshape_view(be.contiguous(x._data), lead + (c // (r * r), r, r, h, w))
        v = be.permute(v, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
        new = lead + (c // (r * r), h * r, w * r)
    else:
        v = be.reshape_view(be.contiguous(x._data), lead + (c, h // r, r, w // r, r))
        v = be.permute(v, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
        new = lead + (c * r * r, h // r, w // r)
    return be.reshape_view(be.contiguous(v), new), new


class PixelShuffleBackward0(Node):
    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        h, shape = _shuffle_handle(x, r, True)
        return wrap(h, x, shape)

    @staticmethod
    def backward(ctx, g):
        return apply_op(PixelUnshuffleBackward0, g, ctx.r)


class PixelUnshuffleBackward0(Node):
    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        h, shape = _shuffle_handle(x, r, False)
        return wrap(h, x, shape)

    @staticmethod
    def backward(ctx, g):
        return apply_op(PixelShuffleBackward0, g, ctx.r)


def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if input.shape[-3] % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    return apply_op(PixelShuffleBackward0, input, r)


def pixel_unshuffle(input, downscale_factor):
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for d, name in ((-2, "height"), (-1, "width")):
        if input.shape[d] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({d})={input.shape[d]} is not divisible by {r}")
    return apply_op(PixelUnshuffleBackward0, input, r)


# channel_shuffle: (N, g*k, *) viewed (N, g, k, *) and transposed to (N, k, g, *); the inverse is the shuffle with
# k groups, so the backward is one more shuffle

def _channel_shuffle_handle(x, groups):
    be = x._be
    shape = tuple(x.shape)
    n, c, rest = shape[0], shape[1], shape[2:]
    v = be.reshape_view(be.contiguous(x._data), (n, groups, c // groups) + rest)
    v = be.permute(v, (0, 2, 1) + tuple(range(3, 3 + len(rest))))
    return be.reshape_view(be.contiguous(v), shape)


class ChannelShuffleBackward0(Node):
    @staticmethod
    def forward(ctx, x, groups):
        ctx.inverse = x.shape[1] // groups
        return wrap(_channel_shuffle_handle(x, groups), x, x.shape)

    @staticmethod
    def backward(ctx, g):
        return apply_op(ChannelShuffleBackward0, g, ctx.inverse)


def channel_shuffle(input, groups):
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    g = int(groups)
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{g}")
    if input.shape[1] % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and {g} "
                           "groups.")
    return apply_op(ChannelShuffleBackward0, input, g)


# ---------------------------------------------------------------------------------------------------
# interpolate
# ---------------------------------------------------------------------------------------------------

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LINEAR_MODES = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}
_NODE_NAMES = {"nearest": "UpsampleNearest{}DBackward0", "nearest-exact": "UpsampleNearestExact{}DBackward0",
               "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
               "trilinear": "UpsampleTrilinear3DBackward0", "bicubic": "UpsampleBicubic2DBackward0"}

# the kernel PyTorch's dtype error names, by mode (and spatial dims where that changes it)
_UPSAMPLE_KERNELS = {("nearest", 2): "upsample_nearest2d_channels_last", ("nearest-exact", 2):
                     "upsample_nearest2d_channels_last", "nearest": "compute_indices_weights_nearest",
                     "nearest-exact": "compute_indices_weights_nearest", "linear": "compute_indices_weights_linear",
                     "trilinear": "compute_indices_weights_linear", "bilinear": "upsample_bilinear2d_channels_last",
                     "bicubic": "compute_indices_weights_cubic"}
_AREA = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}  # mode="area", by dims


def _f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def _cubic_weights(t, A=-0.75):
    def near(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def far(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    return (far(t + 1), near(t), near(1 - t), far(2 - t))


def _interp_taps(mode, L, O, scale, align_corners, single, shortcut=False):
    """build() -> per output index, the (input index, weight) taps PyTorch's CPU kernel reads along one dim, in the
    order it adds them (its index arithmetic, in float32 for single precision). shortcut: nearest's index rule of
    PyTorch's 2-d forward and of every nearest backward (equal sizes copy, doubled sizes halve the index, whatever
    the scale factor)."""
    rnd = (lambda v: v) if not single else _f32

    def src_scale():
        if align_corners:
            return rnd((L - 1) / (O - 1)) if O > 1 else 0.0
        return rnd(1.0 / scale) if scale else rnd(rnd(float(L)) / O)

    def build():
        s = src_scale()
        for o in range(O):
            if shortcut and O in (L, 2 * L):
                yield [(o if O == L else o // 2, 1.0)]
                continue
            if mode in ("nearest", "nearest-exact"):
                s_n = rnd(1.0 / scale) if scale else rnd(rnd(float(L)) / O)
                off = 0.5 if mode == "nearest-exact" else 0.0
                yield [(min(int(math.floor(rnd((o + off) * s_n))), L - 1), 1.0)]
                continue
            if mode != "bicubic" and L == O:
                yield [(o, 1.0), (o, 0.0)]   # PyTorch's copy for equal sizes still adds a tap of weight 0
                continue
            # PyTorch's CPU build contracts scale * (o + 0.5) - 0.5 into one fused multiply-add (one rounding)
            src = rnd(s * o) if align_corners else rnd(s * (o + 0.5) - 0.5)
            if mode != "bicubic" and src < 0:
                src = 0.0
            i0 = min(int(math.floor(src)), L - 1)
            t = min(max(rnd(src - i0), 0.0), 1.0)
            if mode == "bicubic":
                yield [(min(max(k, 0), L - 1), rnd(w)) for k, w in zip(range(i0 - 1, i0 + 3), _cubic_weights(t))]
            else:
                yield [(i0, rnd(1.0 - t)), (i0 + 1 if i0 < L - 1 else i0, t)]
    return build


def _backward_taps(mode, n, L, O, scale, single, same_size):
    """The taps of PyTorch's backward kernel where they are not its forward's (None): nearest's backward takes the
    shortcut rule in every rank, bicubic's copies the gradient when no spatial size changes."""
    if mode == "nearest" and n != 2:
        return _interp_taps(mode, L, O, scale, False, single, True)
    if mode == "bicubic" and same_size:
        return lambda: ([(o, 1.0)] for o in range(O))
    return None


def _check_upsample(input, mode, spatial, out):
    """PyTorch's upsample checks: every spatial size of input and output positive, no empty dim but the batch, and a
    dtype the CPU kernel has (floating point; uint8 too for nearest, and for bilinear and bicubic, which webtorch
    refuses: README, deviations)."""
    n = len(spatial)
    if any(s <= 0 for s in spatial + out):
        names = ("D", "H", "W")[3 - n:]
        def sizes(v):
            return ", ".join(f"{k}: {s}" for k, s in zip(names, v))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({sizes(spatial)})"
                           f"{' and' if n == 1 else ''} output ({sizes(out)})")
    if input.numel() == 0 and 0 in tuple(input.shape[1:]):
        raise RuntimeError(f"Non-empty {input.dim()}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")
    dt = input.dtype
    if not dt.is_floating_point and not (dt is uint8 and mode not in ("linear", "trilinear")):
        raise not_implemented_for(_UPSAMPLE_KERNELS.get((mode, n)) or _UPSAMPLE_KERNELS[mode], dt)
    if dt is uint8 and mode in ("bilinear", "bicubic"):
        # PyTorch's uint8 kernels round with fixed-point weights that webtorch does not reproduce
        raise NotImplementedError(f"{mode} interpolation of uint8 images is not supported by webtorch; interpolate "
                                  "x.float() and convert back with .round().clamp(0, 255).to(torch.uint8)")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """F.interpolate for nearest, nearest-exact, (bi/tri)linear, bicubic and area modes."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    n = input.dim() - 2
    if n < 1 or n > 3 or (mode not in _NODE_NAMES and mode != "area"):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
                                  f"for the modes: {_MODES} (got {mode})")
    if mode in _LINEAR_MODES and _LINEAR_MODES[mode] != n:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_LINEAR_MODES[mode] + 2}D input")
    if antialias:
        raise NotImplementedError("antialias=True is not supported by webtorch; use antialias=False")
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    scales = [None] * n
    if size is not None:
        out = [int(size)] * n if isinstance(size, (int, float)) else [int(s) for s in size]
        if len(out) != n:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {spatial} and output size of {size}. Please provide input tensor "
                             "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
    else:
        sf = [float(scale_factor)] * n if isinstance(scale_factor, (int, float)) else [float(s) for s in scale_factor]
        if len(sf) != n:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {spatial} and scale_factor of shape {scale_factor}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             "(s1, s2, ...,sK) format.")
        out = [int(math.floor(s * f)) for s, f in zip(spatial, sf)]
        if not recompute_scale_factor:
            scales = sf
    if mode == "area":
        return _AREA[n](input, tuple(out) if n > 1 else out[0])
    _check_upsample(input, mode, spatial, out)
    single = input.dtype.name != "float64"
    maps = tuple(
        None if L == O and mode in ("nearest", "nearest-exact") and sc in (None, 1.0) else
        taps(input, (mode, L, O, sc, bool(align_corners), n == 2, spatial == out),
             _interp_taps(mode, L, O, sc, align_corners, single, mode == "nearest" and n == 2),
             back=_backward_taps(mode, n, L, O, sc, single, spatial == out))
        for L, O, sc in zip(spatial, out, scales))
    return apply_op(resample_node(_NODE_NAMES[mode].format(n)), input, maps)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


FUNCTIONS = {"pixel_shuffle": pixel_shuffle, "pixel_unshuffle": pixel_unshuffle,
             "channel_shuffle": channel_shuffle}
