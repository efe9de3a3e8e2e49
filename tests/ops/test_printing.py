"""repr/str of tensors compared character for character with PyTorch 2.13."""
import math

import numpy as np
import pytest
import torch

import webtorch

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def default_printoptions():
    yield
    torch.set_printoptions(profile="default")
    webtorch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    webtorch.set_default_dtype(webtorch.float32)


def both(a, **kw):
    """The same data as a torch tensor and a webtorch tensor."""
    return torch.tensor(a, **kw), webtorch.tensor(a, **{k: getattr(webtorch, str(v).split(".")[-1])
                                                        if k == "dtype" else v for k, v in kw.items()})


def assert_same_repr(t, w):
    assert repr(w) == repr(t), f"\nours:  {repr(w)}\ntorch: {repr(t)}"
    assert str(w) == str(t)


def _floats(kind, shape):
    n = int(np.prod(shape)) if shape else 1
    if kind == "normal":
        v = RNG.standard_normal(n)
    elif kind == "ints":
        v = RNG.integers(-50, 50, n).astype(np.float64)
    elif kind == "big_ints":
        v = RNG.integers(-10**9, 10**9, n).astype(np.float64)
    elif kind == "wide":
        v = RNG.standard_normal(n) * 10.0 ** RNG.integers(-6, 6, n)
    elif kind == "tiny":
        v = RNG.standard_normal(n) * 1e-6
    elif kind == "large":
        v = RNG.standard_normal(n) * 1e9
    elif kind == "hundreds":
        v = RNG.uniform(-999, 999, n)
    elif kind == "special":
        v = RNG.standard_normal(n)
        v[:: 3] = np.nan
        v[1:: 4] = np.inf
        v[2:: 5] = -np.inf
        v[3:: 7] = -0.0
    elif kind == "special_ints":
        v = RNG.integers(-5, 5, n).astype(np.float64)
        v[:: 3] = np.nan
        v[1:: 4] = -np.inf
    elif kind == "zeros":
        v = np.zeros(n)
    elif kind == "negzero":
        v = -np.zeros(n)
    elif kind == "nan":
        v = np.full(n, np.nan)
    else:
        raise ValueError(kind)
    return v.reshape(shape)


KINDS = ["normal", "ints", "big_ints", "wide", "tiny", "large", "hundreds", "special", "special_ints", "zeros",
         "negzero", "nan"]
SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (1, 1, 1, 5), (30,), (2, 17)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_float_formats(kind, shape, dtype):
    a = _floats(kind, shape).astype(dtype)
    assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool"])
@pytest.mark.parametrize("shape", [(), (4,), (3, 5), (2, 2, 3), (40,)])
def test_int_and_bool_formats(dtype, shape):
    n = int(np.prod(shape)) if shape else 1
    lo, hi = (0, 2) if dtype == "bool" else (0, 250) if dtype == "uint8" else (-120, 120)
    a = RNG.integers(lo, hi, n).astype(dtype).reshape(shape)
    assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))


def test_wide_ints_wrap():
    a = RNG.integers(-10**12, 10**12, 25)
    assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 3), (3, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "int32"])
def test_empty(shape, dtype):
    a = np.zeros(shape, dtype=dtype)
    assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))


@pytest.mark.parametrize("shape", [(1001,), (2000,), (40, 40), (10, 10, 15), (3, 500), (500, 3), (7, 6, 5, 6)])
@pytest.mark.parametrize("kind", ["normal", "ints", "wide"])
def test_summarized(shape, kind):
    a = _floats(kind, shape).astype(np.float32)
    assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))


def test_summarized_ints():
    a = np.arange(3000).reshape(30, 100)
    assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))


OPTIONS = [
    dict(precision=2), dict(precision=8), dict(precision=0), dict(threshold=5), dict(threshold=5, edgeitems=1),
    dict(threshold=5, edgeitems=0), dict(edgeitems=1), dict(linewidth=40), dict(linewidth=200),
    dict(linewidth=10), dict(sci_mode=True), dict(sci_mode=False), dict(profile="short"), dict(profile="full"),
    dict(profile="short", precision=6), dict(threshold=0),
]


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("kind,shape,dtype", [
    ("normal", (12,), "float32"), ("wide", (4, 6), "float32"), ("ints", (3, 7), "float64"),
    ("ints", (2, 3, 4), "int64"), ("tiny", (1500,), "float32"), ("normal", (), "float32"),
    ("special", (9,), "float64"), ("nan", (4,), "float32"), ("normal", (3, 2, 40), "float32"),
])
def test_printoptions(opts, kind, shape, dtype):
    torch.set_printoptions(**opts)
    webtorch.set_printoptions(**opts)
    a = _floats(kind if dtype != "int64" else "ints", shape)
    a = a.astype(dtype)
    assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))


def test_printoptions_keep_unset_values_and_reset_sci_mode():
    torch.set_printoptions(precision=2, sci_mode=True)
    webtorch.set_printoptions(precision=2, sci_mode=True)
    torch.set_printoptions(linewidth=50)
    webtorch.set_printoptions(linewidth=50)
    a = _floats("normal", (20,)).astype(np.float32)
    assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))


def test_suffixes_autograd():
    t, w = both([[1.5, 2.0], [3.0, 4.0]])
    assert_same_repr(t, w)
    t.requires_grad_(), w.requires_grad_()
    assert_same_repr(t, w)
    assert_same_repr(t * 2, w * 2)
    assert_same_repr(t + t, w + w)
    assert_same_repr(t.sum(), w.sum())
    assert_same_repr(t.detach(), w.detach())
    assert_same_repr((t @ t).exp(), (w @ w).exp())


def test_suffixes_dtype_and_grad_fn_wrap():
    a = RNG.standard_normal(7)
    t = torch.tensor(a, requires_grad=True)
    w = webtorch.tensor(a, requires_grad=True)
    assert_same_repr(t, w)
    assert_same_repr(t * 3, w * 3)
    t6 = torch.tensor(a[:6], dtype=torch.float64, requires_grad=True)
    w6 = webtorch.tensor(a[:6], dtype=webtorch.float64, requires_grad=True)
    assert_same_repr(t6 - 1, w6 - 1)
    t16 = torch.tensor(a[:5], dtype=torch.float16)
    w16 = webtorch.tensor(a[:5], dtype=webtorch.float16)
    assert_same_repr(t16, w16)


def test_default_dtype_float64_changes_suffixes():
    torch.set_default_dtype(torch.float64)
    webtorch.set_default_dtype(webtorch.float64)
    for dt in ("float32", "float64"):
        a = np.array([1.25, 2.5], dtype=dt)
        assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))
    assert_same_repr(torch.zeros(0), webtorch.zeros(0))
    assert_same_repr(torch.zeros(0, dtype=torch.float32), webtorch.zeros(0, dtype=webtorch.float32))


def test_empty_with_grad():
    assert_same_repr(torch.zeros(0, 2, requires_grad=True), webtorch.zeros(0, 2, requires_grad=True))
    assert_same_repr(torch.zeros(0, dtype=torch.int64), webtorch.zeros(0, dtype=webtorch.int64))


def test_device_suffix(device):
    w = webtorch.tensor([1.0, 2.0], device=device)
    t = torch.tensor([1.0, 2.0])
    expected = repr(t)
    if device != "cpu":
        expected = expected[:-1] + ", device='webgpu:0')"
    assert repr(w) == expected


def test_format_and_misc_reprs():
    t, w = both(3.25)
    assert f"{w:.3f}" == f"{t:.3f}" and f"{w}" == f"{t}"
    t, w = both([1.0, 2.0])
    assert f"{w}" == f"{t}"
    with pytest.raises(TypeError):
        f"{w:.2f}"
    assert repr(webtorch.Size([2, 3])) == repr(torch.Size([2, 3])) == "torch.Size([2, 3])"
    assert repr(webtorch.Size([])) == repr(torch.Size([]))
    assert repr(webtorch.float16) == repr(torch.float16) and str(webtorch.int64) == str(torch.int64)
    assert repr(webtorch.device("cpu")) == repr(torch.device("cpu"))
    assert str(webtorch.device("cpu")) == str(torch.device("cpu"))
    assert repr(webtorch.zeros(2, 3).shape) == repr(torch.zeros(2, 3).shape)


def test_tensor_subclass_prefix():
    class MyTensor(webtorch.Tensor):
        pass

    class TMyTensor(torch.Tensor):
        pass

    w = webtorch.tensor([1.0, 2.0]).as_subclass(MyTensor)
    t = torch.tensor([1.0, 2.0]).as_subclass(TMyTensor)
    assert repr(w).replace("MyTensor", "X") == repr(t).replace("TMyTensor", "X")


def test_views_print_their_elements():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    t, w = torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy())
    assert_same_repr(t.t(), w.t())
    assert_same_repr(t.reshape(2, 12).transpose(0, 1), w.reshape(2, 12).transpose(0, 1))
    assert_same_repr(t.expand(2, 4, 6), w.expand(2, 4, 6))


@pytest.mark.parametrize("value", [0.1, 1e-4, 9.99e-5, 1e8, 1.5e8, 123456.789, -2.5, math.pi, 1e-30, 3e38])
def test_scalars(value):
    for dt in ("float32", "float64"):
        a = np.array(value, dtype=dt)
        assert_same_repr(torch.from_numpy(a.copy()), webtorch.from_numpy(a.copy()))
