"""F.embedding, F.one_hot and F.pad against PyTorch (values, gradients, in-place renorm, errors)."""
import numpy as np
import pytest

from optest import check, check_error, rand, randint, webgpu_dtype_error


def F(m):
    return m.nn.functional


IDX = np.array([[1, 3, 3, 0], [4, 1, 3, 3]], np.int64)


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 3}, {"padding_idx": -2}, {"scale_grad_by_freq": True},
                                {"padding_idx": 1, "scale_grad_by_freq": True}])
def test_embedding(device, kw):
    check(lambda m, i, w: F(m).embedding(i, w, **kw), IDX, rand(6, 5), device=device)


def test_torch_embedding_and_int32(device):
    check(lambda m, w, i: m.embedding(w, i), rand(6, 5), IDX, device=device)
    check(lambda m, i, w: F(m).embedding(i, w), IDX.astype(np.int32), rand(6, 5), device=device)


def test_embedding_max_norm_renormalizes_in_place(device):
    import torch
    import webtorch
    w0 = rand(6, 4) * 3
    res = []
    for m, t in ((torch, torch.tensor(w0)), (webtorch, webtorch.tensor(w0, device=device))):
        t.requires_grad_(True)
        i = m.tensor(IDX) if m is torch else webtorch.tensor(IDX, device=device)
        y = F(m).embedding(i, t, max_norm=1.5, norm_type=3.0)
        y.sum().backward()
        res.append((t.detach().numpy().copy() if m is torch else t.detach().cpu().numpy(), y.detach().cpu().numpy(),
                    t.grad.cpu().numpy()))
    for ours, ref in zip(res[1], res[0]):
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6)


def test_embedding_float64_and_double_backward(device):
    with webgpu_dtype_error(device):
        check(lambda m, i, w: F(m).embedding(i, w, padding_idx=0, scale_grad_by_freq=True), IDX,
              rand(6, 3, dtype=np.float64), device=device, atol=1e-12, rtol=1e-12)

        def double(m, i, w):
            # (PyTorch's double backward ignores scale_grad_by_freq, so that case is left out of the comparison)
            (g,) = m.autograd.grad((F(m).embedding(i, w, padding_idx=3) ** 2).sum(), (w,), create_graph=True)
            return g
        check(double, IDX, rand(6, 3, dtype=np.float64), device=device, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("fn,args,exc_match", [
    (lambda m, i, w: F(m).embedding(i, w), (np.array([6]), rand(6, 3)), "index out of range in self"),
    (lambda m, i, w: F(m).embedding(i, w), (np.array([-1]), rand(6, 3)), "index out of range in self"),
    (lambda m, i, w: F(m).embedding(i, w), (np.array([1.0], np.float32), rand(6, 3)),
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"),
    (lambda m, i, w: F(m).embedding(i, w, padding_idx=6), (np.array([1]), rand(6, 3)),
     "Padding_idx must be within num_embeddings"),
    (lambda m, i, w: F(m).embedding(i, w), (np.array([1]), rand(6)), "'weight' must be 2-D"),
])
def test_embedding_errors(device, fn, args, exc_match):
    check_error(fn, *args, device=device, match=exc_match)


def test_one_hot(device):
    check(lambda m, i: F(m).one_hot(i), randint(0, 5, 3, 4), device=device)
    check(lambda m, i: F(m).one_hot(i, 7), randint(0, 5, 6), device=device)
    check(lambda m, i: F(m).one_hot(i, 3), np.zeros((0,), np.int64), device=device)
    check(lambda m, i: F(m).one_hot(i, 3), np.array(2, np.int64), device=device)


@pytest.mark.parametrize("args,match", [
    ((np.array([1, -1]),), "Class values must be non-negative."),
    ((np.array([1, 3]), 3), "Class values must be smaller than num_classes."),
    ((np.array([1.0, 3.0], np.float32),), "one_hot is only applicable to index tensor of type LongTensor."),
    ((np.zeros((0,), np.int64),), "Can not infer total number of classes from empty tensor."),
])
def test_one_hot_errors(device, args, match):
    check_error(lambda m, i, *n: F(m).one_hot(i, *n), *args, device=device, match=match)


@pytest.mark.parametrize("shape,pad", [
    ((2, 3, 4, 5), (1, 2)),
    ((2, 3, 4, 5), (1, 2, 0, 3)),
    ((2, 3, 4, 5), (1, 1, 2, 2, 1, 0, 1, 1)),
    ((2, 3, 4, 5), (-1, 2, 1, -2)),
    ((5,), (2, 3)),
])
def test_pad_constant(device, shape, pad):
    check(lambda m, x: F(m).pad(x, pad), rand(*shape), device=device)
    check(lambda m, x: F(m).pad(x, pad, value=-1.5), rand(*shape), device=device)


def test_pad_constant_int_value_truncates(device):
    check(lambda m, x: F(m).pad(x, (1, 1), value=2.7), np.arange(3, dtype=np.int64), device=device)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", [
    ((2, 3, 6), (2, 3)),
    ((3, 6), (3, 1)),
    ((2, 3, 5, 6), (1, 2, 3, 1)),
    ((3, 5, 6), (2, 0, 1, 2)),
    ((1, 2, 4, 5, 6), (1, 2, 3, 1, 2, 1)),
    ((2, 3, 6), (-1, 2)),
    ((2, 3, 6), (2, -2)),
])
def test_pad_modes(device, mode, shape, pad):
    check(lambda m, x: F(m).pad(x, pad, mode=mode), rand(*shape), device=device)


def test_pad_float64_and_double_backward(device):
    with webgpu_dtype_error(device):
        tol = dict(atol=1e-12, rtol=1e-12)
        for mode in ("constant", "reflect", "replicate", "circular"):
            check(lambda m, x: F(m).pad(x, (2, 1, 1, 3), mode=mode), rand(2, 3, 4, 5, dtype=np.float64), device=device,
                  **tol)

            def double(m, x):
                (g,) = m.autograd.grad((F(m).pad(x, (2, 1), mode=mode) ** 3).sum(), (x,), create_graph=True)
                return g
            check(double, rand(2, 3, 4, dtype=np.float64), device=device, **tol)


def test_pad_grad_fn_names(device):
    import webtorch
    x = webtorch.tensor(rand(1, 2, 4, 4), device=device, requires_grad=True)
    assert type(F(webtorch).pad(x, (1, 1)).grad_fn).__name__ == "ConstantPadNdBackward0"
    assert type(F(webtorch).pad(x, (1, 1, 1, 1), "reflect").grad_fn).__name__ == "ReflectionPad2DBackward0"
    assert type(F(webtorch).pad(x[0], (1, 1), "replicate").grad_fn).__name__ == "ReplicationPad1DBackward0"


NOT_SUPPORTED = "Supported combinations for non-constant padding:"


@pytest.mark.parametrize("shape,pad,kw,match", [
    ((2, 3, 4, 4), (1, 2, 3), {}, "Padding length must be divisible by 2"),
    ((2, 3, 4, 4), (1,) * 10, {}, "Padding length should be less than or equal to two times the input dimension but "
                                  "got padding length 10 and input of dimension 4"),
    ((2, 3, 4, 4), (1, 1, 1, 1, 1, 1, 1, 1), {"mode": "reflect"}, "Padding size 8 is not supported for 4D input"),
    ((2, 3, 4, 4), (1, 1), {"mode": "replicate"}, NOT_SUPPORTED),
    ((4,), (1, 1), {"mode": "reflect"}, "Padding size 2 is not supported for 1D input tensor."),
    ((2, 3, 4, 4), (1, 1), {"mode": "foo"}, "Unrecognised padding mode foo"),
    ((2, 3, 4), (1, 1), {"mode": "reflect", "value": 2}, 'Padding mode "reflect" doesn\'t take in value argument'),
    ((2, 3, 4), (4, 1), {"mode": "reflect"}, "Argument #4: Padding size should be less than the corresponding input "
                                             "dimension, but got: padding (4, 1) at dimension 2 of input [2, 3, 4]"),
    ((2, 3, 4, 4), (1, 1, 5, 1), {"mode": "reflect"}, "Argument #6: Padding size should be less than the "
                                                      "corresponding input dimension, but got: padding (5, 1) at "
                                                      "dimension 2 of input [2, 3, 4, 4]"),
    ((2, 3, 4), (5, 1), {"mode": "circular"}, "Padding value causes wrapping around more than once."),
    ((2, 3, 5), (-3, -3), {"mode": "circular"}, "Negative padding value is resulting in an empty dimension"),
    ((2, 3, 5), (-3, -3), {"mode": "replicate"}, "input (W: 5) is too small. Calculated output W: -1"),
    ((2, 3, 0), (1, 1), {"mode": "replicate"}, "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and "
                                               "other non-zero dimensions for input, but got: [2, 3, 0]"),
    ((2, 3, 5), (-6, 1), {}, "narrow(): length must be non-negative."),
    ((2, 3, 5), (-3, -3), {}, "narrow(): length must be non-negative."),
])
def test_pad_errors(device, shape, pad, kw, match):
    check_error(lambda m, x: F(m).pad(x, pad, **kw), rand(*shape), device=device, match=match)


def test_pad_float_amount_type_error(device):
    check_error(lambda m, x: F(m).pad(x, [1.5, 1]), rand(2, 3), device=device,
                match="pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type float")
