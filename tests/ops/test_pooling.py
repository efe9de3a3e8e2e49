"""Pooling, unpooling, pixel shuffle and interpolate against PyTorch (values, indices, gradients, errors)."""
import numpy as np
import pytest

from optest import check, check_error, rand, webgpu_dtype_error


def F(m):
    return m.nn.functional


def distinct(*shape, dtype=np.float32):
    """Values without ties, so max pooling picks the same element in both libraries."""
    n = int(np.prod(shape))
    return (np.random.default_rng(n).permutation(n) / n - 0.5).astype(dtype).reshape(shape)


@pytest.mark.parametrize("kw", [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": (2, 3), "stride": (1, 2), "dilation": (2, 1), "padding": (1, 1)},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": 2, "stride": 1, "padding": 1, "ceil_mode": True},
])
def test_max_pool2d(device, kw):
    check(lambda m, x: F(m).max_pool2d(x, return_indices=True, **kw), distinct(2, 3, 7, 8), device=device)
    check(lambda m, x: F(m).max_pool2d(x, **kw), distinct(3, 7, 8), device=device)


def test_max_pool1d_3d(device):
    check(lambda m, x: F(m).max_pool1d(x, 3, 2, 1, return_indices=True), distinct(2, 3, 9), device=device)
    check(lambda m, x: F(m).max_pool1d(x, 2, ceil_mode=True, dilation=2), distinct(3, 9), device=device)
    check(lambda m, x: m.max_pool1d(x, 2), distinct(2, 3, 8), device=device)
    check(lambda m, x: F(m).max_pool3d(x, 2, return_indices=True), distinct(2, 2, 4, 5, 4), device=device)
    check(lambda m, x: F(m).max_pool3d(x, (2, 3, 2), (1, 2, 2), 1, ceil_mode=True), distinct(1, 2, 5, 6, 5),
          device=device)


def test_max_pool_overlapping_ties_accumulate(device):
    # one input element is the max of several windows: its gradient is the sum
    x = np.zeros((1, 1, 4, 4), np.float32)
    x[0, 0, 1, 1] = 5.0
    check(lambda m, x: F(m).max_pool2d(x, 3, 1), x + distinct(1, 1, 4, 4) * 0.01, device=device)


@pytest.mark.parametrize("kw", [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    {"kernel_size": (2, 3), "stride": (2, 1), "divisor_override": 5},
])
def test_avg_pool2d(device, kw):
    check(lambda m, x: F(m).avg_pool2d(x, **kw), rand(2, 3, 7, 8), device=device)


def test_avg_pool1d_3d(device):
    check(lambda m, x: F(m).avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), rand(2, 3, 9),
          device=device)
    check(lambda m, x: m.avg_pool1d(x, 2), rand(3, 8), device=device)
    check(lambda m, x: F(m).avg_pool3d(x, 2, 1, 1, divisor_override=3), rand(1, 2, 4, 5, 3), device=device)
    check(lambda m, x: F(m).avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), rand(2, 2, 5, 6, 5),
          device=device)


def test_avg_pool_integer_input(device):
    check(lambda m, x: F(m).avg_pool2d(x, 2), np.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4).astype(np.int64),
          device=device)


@pytest.mark.parametrize("size", [3, (2, 5), (None, 3), 1, (7, 8)])
def test_adaptive_avg_pool2d(device, size):
    check(lambda m, x: F(m).adaptive_avg_pool2d(x, size), rand(2, 3, 7, 8), device=device)


def test_adaptive_avg_pool1d_3d(device):
    check(lambda m, x: F(m).adaptive_avg_pool1d(x, 4), rand(2, 3, 9), device=device)
    check(lambda m, x: m.adaptive_avg_pool1d(x, 5), rand(3, 7), device=device)
    check(lambda m, x: F(m).adaptive_avg_pool3d(x, (2, 3, 4)), rand(1, 2, 5, 7, 6), device=device)


def test_adaptive_max_pool(device):
    check(lambda m, x: F(m).adaptive_max_pool2d(x, (3, 5), return_indices=True), distinct(2, 3, 7, 8), device=device)
    check(lambda m, x: F(m).adaptive_max_pool2d(x, 4), distinct(3, 9, 10), device=device)
    check(lambda m, x: F(m).adaptive_max_pool1d(x, 4, return_indices=True), distinct(2, 3, 9), device=device)
    check(lambda m, x: F(m).adaptive_max_pool3d(x, (2, 3, 2), return_indices=True), distinct(1, 2, 5, 7, 4),
          device=device)


def test_max_unpool(device):
    x = distinct(2, 3, 6, 6)
    check(lambda m, x: F(m).max_unpool2d(*F(m).max_pool2d(x, 2, return_indices=True), 2), x, device=device)
    check(lambda m, x: F(m).max_unpool2d(*F(m).max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1,
                                         output_size=(6, 6)), x, device=device)
    check(lambda m, x: F(m).max_unpool1d(*F(m).max_pool1d(x, 2, return_indices=True), 2, output_size=[9]),
          distinct(2, 3, 9), device=device)
    check(lambda m, x: F(m).max_unpool3d(*F(m).max_pool3d(x, 2, return_indices=True), 2), distinct(1, 2, 4, 4, 4),
          device=device)


def test_lp_pool(device):
    x = rand(2, 3, 8, 9, low=0.1, high=1.0)
    check(lambda m, x: F(m).lp_pool2d(x, 2, 2), x, device=device)
    check(lambda m, x: F(m).lp_pool2d(x, 3, (2, 3), stride=(2, 1), ceil_mode=True), x, device=device)
    check(lambda m, x: F(m).lp_pool1d(x, 1.5, 3, stride=2), rand(2, 3, 9, low=0.1, high=1.0), device=device)


def test_pooling_float64_backward(device):
    with webgpu_dtype_error(device):
        f64 = np.float64
        tol = dict(atol=1e-12, rtol=1e-12)
        check(lambda m, x: F(m).max_pool2d(x, 3, 2, 1, ceil_mode=True), distinct(2, 2, 7, 7, dtype=f64), device=device,
              **tol)
        check(lambda m, x: F(m).avg_pool2d(x, 3, 2, 1, count_include_pad=False), rand(2, 2, 7, 7, dtype=f64),
              device=device, **tol)
        check(lambda m, x: F(m).adaptive_avg_pool2d(x, (3, 4)), rand(2, 2, 7, 9, dtype=f64), device=device, **tol)
        check(lambda m, x: F(m).adaptive_max_pool2d(x, (3, 4)), distinct(2, 2, 7, 9, dtype=f64), device=device, **tol)
        check(lambda m, x: F(m).interpolate(x, scale_factor=1.7, mode="bilinear"), rand(1, 2, 5, 6, dtype=f64),
              device=device, **tol)
        check(lambda m, x: F(m).pixel_shuffle(x, 2), rand(1, 8, 3, 3, dtype=f64), device=device, **tol)
        check(lambda m, x: F(m).fold(F(m).unfold(x, 2), (4, 4), 2), rand(1, 2, 4, 4, dtype=f64), device=device, **tol)

        def double(m, x):
            y = F(m).avg_pool2d(x, 2, 1) + F(m).max_pool2d(x, 2, 1)
            (g,) = m.autograd.grad((y ** 2).sum(), (x,), create_graph=True)
            return g
        check(double, distinct(1, 2, 5, 5, dtype=f64), device=device, **tol)


def test_pixel_shuffle(device):
    check(lambda m, x: F(m).pixel_shuffle(x, 2), rand(2, 8, 3, 4), device=device)
    check(lambda m, x: m.pixel_shuffle(x, 3), rand(2, 1, 9, 2, 2), device=device)
    check(lambda m, x: F(m).pixel_unshuffle(x, 2), rand(2, 3, 4, 6), device=device)
    check(lambda m, x: m.pixel_unshuffle(x, 3), rand(2, 6, 3), device=device)


@pytest.mark.parametrize("shape,kw", [
    ((2, 3, 5), {"scale_factor": 2}),
    ((2, 3, 5), {"size": 7, "mode": "nearest-exact"}),
    ((2, 3, 5), {"size": 8, "mode": "linear"}),
    ((2, 3, 8), {"size": 3, "mode": "linear", "align_corners": True}),
    ((2, 3, 4, 5), {"scale_factor": 2}),
    ((2, 3, 4, 5), {"size": (7, 3)}),
    ((2, 3, 4, 5), {"scale_factor": (1.5, 0.6)}),
    ((2, 3, 4, 5), {"scale_factor": 1.7, "mode": "nearest-exact"}),
    ((2, 3, 4, 5), {"scale_factor": 2, "mode": "bilinear"}),
    ((2, 3, 4, 5), {"size": (9, 3), "mode": "bilinear", "align_corners": True}),
    ((2, 3, 4, 5), {"scale_factor": 1.6, "mode": "bilinear", "recompute_scale_factor": True}),
    ((2, 3, 4, 5), {"scale_factor": 1.6, "mode": "bilinear"}),
    ((2, 3, 4, 5), {"size": (7, 8), "mode": "bicubic"}),
    ((2, 3, 4, 5), {"size": (7, 8), "mode": "bicubic", "align_corners": True}),
    ((2, 3, 7, 9), {"size": (3, 4), "mode": "area"}),
    ((1, 2, 3, 4, 5), {"scale_factor": 2, "mode": "trilinear"}),
    ((1, 2, 3, 4, 5), {"size": (2, 5, 3)}),
])
def test_interpolate(device, shape, kw):
    check(lambda m, x: F(m).interpolate(x, **kw), rand(*shape), device=device)


def test_upsample_aliases_and_grad_fn(device):
    import webtorch
    check(lambda m, x: F(m).upsample(x, scale_factor=2, mode="bilinear", align_corners=False), rand(1, 2, 3, 3),
          device=device)
    check(lambda m, x: F(m).upsample_bilinear(x, size=(5, 4)), rand(1, 2, 3, 3), device=device)
    check(lambda m, x: F(m).upsample_nearest(x, scale_factor=3), rand(1, 2, 3, 3), device=device)
    x = webtorch.tensor(rand(1, 2, 4, 4), device=device, requires_grad=True)
    names = {
        "UpsampleNearest2DBackward0": F(webtorch).interpolate(x, scale_factor=2),
        "UpsampleBilinear2DBackward0": F(webtorch).interpolate(x, scale_factor=2, mode="bilinear"),
        "MaxPool2DWithIndicesBackward0": F(webtorch).max_pool2d(x, 2),
        "AvgPool2DBackward0": F(webtorch).avg_pool2d(x, 2),
        "AdaptiveAvgPool2DBackward0": F(webtorch).adaptive_avg_pool2d(x, 3),
        "AdaptiveMaxPool2DBackward0": F(webtorch).adaptive_max_pool2d(x, 3),
        "PixelUnshuffleBackward0": F(webtorch).pixel_unshuffle(x, 2),
        "Im2ColBackward0": F(webtorch).unfold(x, 2),
    }
    for name, y in names.items():
        assert type(y.grad_fn).__name__ == name


@pytest.mark.parametrize("fn,args,match", [
    (lambda m, x: F(m).max_pool2d(x, 2, padding=2), (rand(2, 3, 4, 4),),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1"),
    (lambda m, x: F(m).max_pool2d(x, 5), (rand(2, 3, 4, 4),),
     "Given input size: (3x4x4). Calculated output size: (3x0x0). Output size is too small"),
    (lambda m, x: F(m).max_pool2d(x, 2, stride=0), (rand(2, 3, 4, 4),), "stride should not be zero"),
    (lambda m, x: F(m).max_pool1d(x, 2), (rand(4),), "max_pool1d: Expected 2D or 3D (batch mode) tensor"),
    (lambda m, x: F(m).avg_pool2d(x, 2, divisor_override=0), (rand(2, 3, 4, 4),), "divisor must be not zero"),
    (lambda m, x: F(m).adaptive_avg_pool2d(x, 2), (rand(4, 4),),
     "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [4, 4]"),
    (lambda m, x: F(m).adaptive_avg_pool2d(x, (2, 2, 2)), (rand(2, 3, 4, 4),),
     "adaptive_avg_pool2d: output_size must be 2"),
    (lambda m, x: F(m).pixel_shuffle(x, 2), (rand(5, 4, 4),),
     "input.size(-3)=5 is not divisible by 4"),
    (lambda m, x: F(m).pixel_unshuffle(x, 2), (rand(4, 4, 5),),
     "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=5 is not divisible by 2"),
    (lambda m, x: F(m).interpolate(x, mode="bilinear", scale_factor=2), (rand(1, 2, 4),),
     "Got 3D input, but bilinear mode needs 4D input"),
    (lambda m, x: F(m).interpolate(x, scale_factor=2, align_corners=True), (rand(1, 2, 4, 4),),
     "align_corners option can only be set with the interpolating modes"),
    (lambda m, x: F(m).interpolate(x, size=2, scale_factor=2), (rand(1, 2, 4, 4),),
     "only one of size or scale_factor should be defined"),
    (lambda m, x: F(m).interpolate(x), (rand(1, 2, 4, 4),), "either size or scale_factor should be defined"),
    (lambda m, x: F(m).interpolate(x, size=(3, 3, 3)), (rand(1, 2, 4, 4),),
     "Input and output must have the same number of spatial dimensions"),
    (lambda m, x: F(m).interpolate(x, size=3), (rand(4, 4),), "Input Error: Only 3D, 4D and 5D input Tensors"),
    (lambda m, x, i: F(m).max_unpool2d(x, i, 2), (rand(2, 3, 2, 2), np.full((2, 3, 2, 2), 20, np.int64)),
     "Found an invalid max index: 20 (output volumes are of size 4x4"),
    (lambda m, x, i: F(m).max_unpool2d(x, i, 2), (rand(2, 3, 2, 2), np.full((2, 3, 2, 1), 2, np.int64)),
     "Expected shape of indices to be same as that of the input tensor ([2, 3, 2, 2])"),
    (lambda m, x, i: F(m).max_unpool2d(x, i, 2, output_size=(9, 9)), (rand(2, 3, 2, 2),
                                                                       np.zeros((2, 3, 2, 2), np.int64)),
     'invalid output_size "(9, 9)" (dim 0 must be between 2 and 6)'),
])
def test_pooling_errors(device, fn, args, match):
    check_error(fn, *args, device=device, match=match)


@pytest.mark.parametrize("mode,n", [("nearest", 1), ("nearest", 2), ("linear", 1), ("bilinear", 2), ("bicubic", 2),
                                    ("trilinear", 3)])
def test_interpolate_dtype_and_empty_rules(mode, n, device):
    x = rand(*((1, 2) + (4,) * n))
    for dt in ("int64", "int32", "bool") + (("uint8",) if mode in ("linear", "trilinear") else ()):
        check_error(lambda m, x: F(m).interpolate(x.to(getattr(m, dt)), size=(3,) * n, mode=mode), x, device=device,
                    match="not implemented for")
    if mode == "nearest":
        check(lambda m, x: F(m).interpolate((x * 255).to(m.uint8), size=(7,) * n), x, device=device, grad=False)
    for shape, match in (((1, 0) + (4,) * n, "Non-empty"), ((1, 2, 0) + (4,) * (n - 1), "greater than 0")):
        check_error(lambda m, x: F(m).interpolate(x, size=(3,) * n, mode=mode), rand(*shape), device=device,
                    match=match)
    check(lambda m, x: F(m).interpolate(x, size=(3,) * n, mode=mode), rand(*((0, 2) + (4,) * n)), device=device)


def test_interpolate_refuses_uint8_bilinear(device):
    import webtorch
    x = webtorch.zeros(1, 1, 4, 4, dtype=webtorch.uint8, device=device)
    with pytest.raises(NotImplementedError, match=r"interpolate x.float\(\)"):
        F(webtorch).interpolate(x, size=(7, 7), mode="bilinear")
