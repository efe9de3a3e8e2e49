"""conv1d/2d/3d, conv_transpose1d/2d/3d, F.unfold/F.fold against PyTorch (values, gradients, errors)."""
import numpy as np
import pytest

import webtorch
from optest import check, check_error, rand, webgpu_dtype_error


def F(m):
    return m.nn.functional


CONV2D_CASES = [
    # x shape, w shape, kwargs
    ((2, 3, 8, 8), (4, 3, 3, 3), {}),
    ((2, 3, 9, 7), (4, 3, 3, 2), {"stride": 2, "padding": 1}),
    ((1, 4, 9, 9), (6, 2, 3, 3), {"groups": 2, "stride": (2, 1), "padding": (0, 2), "dilation": (2, 1)}),
    ((2, 4, 6, 6), (4, 1, 3, 3), {"groups": 4, "padding": 1}),  # depthwise
    ((2, 4, 6, 6), (8, 1, 3, 3), {"groups": 4, "padding": "same"}),  # depthwise multiplier 2
    ((1, 3, 7, 8), (5, 3, 4, 2), {"padding": "same"}),  # even kernel: asymmetric 'same'
    ((1, 3, 7, 8), (5, 3, 2, 3), {"padding": "same", "dilation": (3, 2)}),
    ((1, 3, 7, 8), (5, 3, 3, 3), {"padding": "valid"}),
    ((2, 2, 5, 5), (3, 2, 5, 5), {}),  # kernel as large as the input
]


@pytest.mark.parametrize("xs,ws,kw", CONV2D_CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d(device, xs, ws, kw, bias):
    b = rand(ws[0]) if bias else None
    if bias:
        check(lambda m, x, w, b: F(m).conv2d(x, w, b, **kw), rand(*xs), rand(*ws), b, device=device)
    else:
        check(lambda m, x, w: F(m).conv2d(x, w, None, **kw), rand(*xs), rand(*ws), device=device)


def test_conv2d_torch_namespace_and_unbatched(device):
    check(lambda m, x, w, b: m.conv2d(x, w, b, 1, 1), rand(2, 3, 6, 6), rand(4, 3, 3, 3), rand(4), device=device)
    check(lambda m, x, w: F(m).conv2d(x, w, padding=1), rand(3, 6, 6), rand(4, 3, 3, 3), device=device)


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 3, 10), (4, 3, 3), {}),
    ((2, 4, 11), (6, 2, 4), {"stride": 3, "padding": 2, "dilation": 2, "groups": 2}),
    ((1, 3, 10), (2, 3, 4), {"padding": "same"}),
    ((3, 10), (2, 3, 3), {"padding": 1}),
])
def test_conv1d(device, xs, ws, kw):
    check(lambda m, x, w, b: F(m).conv1d(x, w, b, **kw), rand(*xs), rand(*ws), rand(ws[0]), device=device)
    check(lambda m, x, w: m.conv1d(x, w, **kw), rand(*xs), rand(*ws), device=device)


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 2, 5, 6, 4), (3, 2, 3, 3, 2), {}),
    ((1, 4, 6, 5, 5), (4, 2, 2, 3, 3), {"stride": (1, 2, 1), "padding": 1, "dilation": (2, 1, 1), "groups": 2}),
    ((1, 2, 5, 5, 5), (3, 2, 2, 2, 3), {"padding": "same"}),
])
def test_conv3d(device, xs, ws, kw):
    check(lambda m, x, w, b: F(m).conv3d(x, w, b, **kw), rand(*xs), rand(*ws), rand(ws[0]), device=device)


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 4, 5, 5), (4, 3, 3, 3), {}),
    ((2, 4, 5, 4), (4, 3, 3, 2), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 4, 5), (4, 2, 3, 3), {"stride": (2, 3), "padding": (1, 0), "output_padding": (1, 2), "groups": 2}),
    ((1, 2, 4, 4), (2, 3, 3, 3), {"dilation": 2, "padding": 2, "output_padding": 1}),
    ((2, 5, 5), (2, 3, 3, 3), {"stride": 2}),  # unbatched
])
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose2d(device, xs, ws, kw, bias):
    cin = xs[-3]
    w = rand(cin, *ws[1:])
    if bias:
        b = rand(ws[1] * kw.get("groups", 1))
        check(lambda m, x, w, b: F(m).conv_transpose2d(x, w, b, **kw), rand(*xs), w, b, device=device)
    else:
        check(lambda m, x, w: m.conv_transpose2d(x, w, **kw), rand(*xs), w, device=device)


def test_conv_transpose1d_3d(device):
    check(lambda m, x, w, b: F(m).conv_transpose1d(x, w, b, stride=3, padding=1, output_padding=2, dilation=1),
          rand(2, 4, 6), rand(4, 3, 4), rand(3), device=device)
    check(lambda m, x, w, b: F(m).conv_transpose1d(x, w, b, groups=2, dilation=2),
          rand(2, 4, 6), rand(4, 3, 3), rand(6), device=device)
    check(lambda m, x, w, b: F(m).conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1),
          rand(1, 2, 3, 4, 3), rand(2, 3, 3, 2, 3), rand(3), device=device)


def test_grad_fn_names(device):
    import webtorch
    x = webtorch.tensor(rand(1, 3, 6, 6), device=device, requires_grad=True)
    w = webtorch.tensor(rand(4, 3, 3, 3), device=device)
    assert type(F(webtorch).conv2d(x, w).grad_fn).__name__ == "ConvolutionBackward0"
    wt = webtorch.tensor(rand(3, 4, 3, 3), device=device)
    assert type(F(webtorch).conv_transpose2d(x, wt).grad_fn).__name__ == "ConvolutionBackward0"
    y = F(webtorch).conv2d(x, webtorch.tensor(rand(4, 3, 2, 2), device=device), padding="same")
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "ConstantPadNdBackward0"


def test_conv_float64_and_double_backward(device):
    with webgpu_dtype_error(device):
        f64 = np.float64
        check(lambda m, x, w, b: F(m).conv2d(x, w, b, stride=2, padding=1, groups=2),
              rand(2, 4, 7, 7, dtype=f64), rand(6, 2, 3, 3, dtype=f64), rand(6, dtype=f64), device=device,
              atol=1e-10, rtol=1e-10)
        check(lambda m, x, w, b: F(m).conv_transpose2d(x, w, b, stride=2, output_padding=1),
              rand(2, 3, 4, 4, dtype=f64), rand(3, 2, 3, 3, dtype=f64), rand(2, dtype=f64), device=device,
              atol=1e-10, rtol=1e-10)

        def double(m, x, w):
            y = F(m).conv2d(x, w, stride=2, padding=1)
            gx, gw = m.autograd.grad((y * y).sum(), (x, w), create_graph=True)
            return (gx * gx).sum() + (gw ** 3).sum()
        check(double, rand(2, 2, 6, 6, dtype=f64), rand(3, 2, 3, 3, dtype=f64), device=device, atol=1e-9, rtol=1e-9)


@pytest.mark.parametrize("fn,args,match", [
    (lambda m, x, w: F(m).conv2d(x, w), (rand(1, 4, 8, 8), rand(8, 3, 3, 3)),
     "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 4, 8, 8] to have 3 channels, but got 4 "
     "channels instead"),
    (lambda m, x, w: F(m).conv2d(x, w), (rand(1, 4, 2, 2), rand(8, 4, 3, 3)),
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than "
     "actual input size"),
    (lambda m, x, w: F(m).conv2d(x, w, dilation=4), (rand(1, 4, 8, 8), rand(6, 4, 3, 3)), "Kernel size: (9 x 9)"),
    (lambda m, x, w: F(m).conv2d(x, w), (rand(1, 2, 4, 8, 8), rand(8, 4, 3, 3)),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [1, 2, 4, 8, 8]"),
    (lambda m, x, w: F(m).conv2d(x, w, groups=3), (rand(1, 4, 8, 8), rand(8, 2, 3, 3)),
     "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of size [[8, 2, 3, 3]] "
     "instead"),
    (lambda m, x, w: F(m).conv2d(x, w, stride=2, padding="same"), (rand(1, 4, 8, 8), rand(6, 4, 3, 3)),
     "padding='same' is not supported for strided convolutions"),
    (lambda m, x, w: F(m).conv2d(x, w, padding="foo"), (rand(1, 4, 8, 8), rand(6, 4, 3, 3)),
     "Invalid padding string: 'foo'"),
    (lambda m, x, w, b: F(m).conv2d(x, w, b), (rand(1, 4, 8, 8), rand(6, 4, 3, 3), rand(5)),
     "Given weight of size [6, 4, 3, 3], expected bias to be 1-dimensional with 6 elements, but got bias of size "
     "[5] instead"),
    (lambda m, x, w: F(m).conv2d(x, w, stride=0), (rand(1, 4, 8, 8), rand(6, 4, 3, 3)),
     "non-positive stride is not supported"),
    (lambda m, x, w: F(m).conv2d(x, w, padding=-1), (rand(1, 4, 8, 8), rand(6, 4, 3, 3)),
     "negative padding is not supported"),
    (lambda m, x, w: F(m).conv2d(x, w, groups=0), (rand(1, 4, 8, 8), rand(6, 4, 3, 3)),
     "non-positive groups is not supported"),
    (lambda m, x, w: F(m).conv2d(x, w, stride=(1, 1, 1)), (rand(1, 4, 8, 8), rand(6, 4, 3, 3)),
     "expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, "
     "but got stride=[1, 1, 1]"),
    (lambda m, x, w: F(m).conv2d(x, w), (rand(1, 4, 8, 8), rand(6, 4, 3, 3, dtype=np.float64)),
     "expected scalar type Float but found Double"),
    (lambda m, x, w: F(m).conv_transpose2d(x, w, output_padding=1), (rand(1, 4, 8, 8), rand(4, 6, 3, 3)),
     "output padding must be smaller than either stride or dilation, but got output_padding_height: 1 "
     "output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1"),
    (lambda m, x, w: F(m).conv_transpose1d(x, w, output_padding=1), (rand(1, 4, 8), rand(4, 6, 3)),
     "output_padding_height: 0 output_padding_width: 1 stride_height: 1"),
    (lambda m, x, w: F(m).conv_transpose2d(x, w), (rand(1, 5, 8, 8), rand(4, 6, 3, 3)),
     "Given transposed=1, weight of size [4, 6, 3, 3], expected input[1, 5, 8, 8] to have 4 channels, but got 5 "
     "channels instead"),
    (lambda m, x, w: F(m).conv_transpose2d(x, w, padding=2), (rand(1, 4, 1, 1), rand(4, 6, 3, 3)),
     "Given input size per channel: (1 x 1). Calculated output size per channel: (-1 x -1). Output size is too small"),
    (lambda m, x, w: F(m).conv_transpose2d(x, w, padding="same"), (rand(1, 4, 8, 8), rand(4, 6, 3, 3)),
     "argument 'padding' must be tuple of ints, not str"),
])
def test_conv_errors(device, fn, args, match):
    if device != "cpu" and any(a.dtype == np.float64 for a in args):  # float64 cannot reach the device
        with pytest.raises(TypeError, match="float64"):
            fn(webtorch, *(webtorch.tensor(a, device=device) for a in args))
        return
    check_error(fn, *args, device=device, match=match)


def test_unfold_fold(device):
    check(lambda m, x: F(m).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), rand(2, 3, 6, 7),
          device=device)
    check(lambda m, x: F(m).unfold(x, 2), rand(3, 4, 4), device=device)
    check(lambda m, c: F(m).fold(c, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
          rand(2, 18, 12), device=device)
    check(lambda m, c: F(m).fold(c, (4, 4), 2), rand(8, 9), device=device)
    # fold(unfold(x)) multiplies each pixel by the number of blocks covering it
    check(lambda m, x: F(m).fold(F(m).unfold(x, 3, padding=1), (5, 5), 3, padding=1), rand(1, 2, 5, 5),
          device=device)


@pytest.mark.parametrize("fn,args,match", [
    (lambda m, x: F(m).unfold(x, 2), (rand(1, 2, 3, 4, 4),), "Expected 3D or 4D (batch mode) tensor"),
    (lambda m, x: F(m).unfold(x, 5), (rand(1, 2, 4, 4),), "calculated shape of the array of sliding blocks as (0, 0)"),
    (lambda m, x: F(m).fold(x, (4, 4), 2), (rand(1, 7, 9),), "input.size(1)=7 and kernel_size=(2, 2)."),
    (lambda m, x: F(m).fold(x, (4, 4), 2), (rand(1, 8, 8),), "sliding blocks 3 * 3 = 9, but got input.size(2)=8."),
])
def test_fold_errors(device, fn, args, match):
    check_error(fn, *args, device=device, match=match)


def test_unfold_fold_dtypes_and_rank(device):
    for dt in ("int64", "int32", "uint8"):
        check_error(lambda m, x: m.nn.functional.unfold(x.to(getattr(m, dt)), 2), rand(2, 3, 4, 4), device=device,
                    match="im2col_out_cpu")
        check_error(lambda m, x: m.nn.functional.fold(x.to(getattr(m, dt)), (4, 4), 2), rand(1, 4, 9), device=device,
                    match="col2im_out_cpu")
    check_error(lambda m, x: m.nn.functional.unfold(x, 2), rand(3), device=device, match="Dimension out of range")
