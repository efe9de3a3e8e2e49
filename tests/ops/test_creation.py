"""Creation ops, interop and conversions against PyTorch 2.13."""
import numpy as np
import pytest
import torch

import webtorch


def same(w, t):
    assert str(w.dtype) == str(t.dtype), f"{w.dtype} != {t.dtype}"
    assert tuple(w.shape) == tuple(t.shape)
    np.testing.assert_allclose(np.asarray(w.tolist(), dtype=np.float64), np.asarray(t.tolist(), dtype=np.float64),
                               rtol=1e-6, atol=1e-7)


DATA = [
    [1, 2, 3], [1.0, 2, 3], [True, False], [True, 2], [True, 2.5], [[1, 2], [3, 4]], [[1.5], [2.0]], 3, 2.5,
    True, [], [[], []], [[[1]]], (1, 2), [(1, 2), (3, 4)], [-0.0, float("inf"), float("nan")],
]


@pytest.mark.parametrize("data", DATA, ids=repr)
def test_tensor_inference(data):
    same(webtorch.tensor(data), torch.tensor(data))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8", "bool", "int8"])
def test_tensor_from_numpy_array_keeps_dtype_and_copies(dtype):
    a = (np.arange(6).reshape(2, 3) % 3).astype(dtype)
    w, t = webtorch.tensor(a), torch.tensor(a)
    same(w, t)
    a[0, 0] = 1
    assert w.tolist()[0][0] == 0  # tensor() copies


def test_tensor_from_mixed_numpy_scalars_and_tensors():
    same(webtorch.tensor([np.float32(1.5), 2]), torch.tensor([np.float32(1.5), 2]))
    same(webtorch.tensor([webtorch.tensor(1.0), webtorch.tensor(2.0)]), torch.tensor([torch.tensor(1.0),
                                                                                     torch.tensor(2.0)]))
    same(webtorch.tensor([1, 2], dtype=webtorch.float64), torch.tensor([1, 2], dtype=torch.float64))


def test_tensor_ragged_and_bad_data():
    for lib in (torch, webtorch):
        with pytest.raises(ValueError):
            lib.tensor([[1, 2], [3]])
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            lib.tensor(["a"])


def _cpu_is_wasm():
    from webtorch._device import backend_for
    return type(backend_for("cpu")).__module__.startswith("webtorch.backends.wasm")


def test_as_tensor_and_from_numpy_on_cpu_share_memory_or_say_they_copy():
    """NumPy's cpu shares as PyTorch; the WebAssembly cpu cannot hold a NumPy array's memory: it copies and warns
    (a silent copy would be a silent divergence once either side is written)."""
    a = np.zeros(3, dtype=np.float32)
    if _cpu_is_wasm():
        with pytest.warns(UserWarning, match="WebAssembly backend here.*is a copy"):
            w1 = webtorch.as_tensor(a)
        with pytest.warns(UserWarning, match="from_numpy"):
            w2 = webtorch.from_numpy(a)
        a[1] = 5
        assert w1.tolist() == [0, 0, 0] and w2.tolist() == [0, 0, 0]
        w2.add_(1)
        assert a.tolist() == [0, 5, 0]
        n = w2.numpy()  # CPython: a view of the wasm memory, as PyTorch's
        n[2] = 7
        assert w2.tolist() == [1, 1, 7]
        return
    w1, w2 = webtorch.as_tensor(a), webtorch.from_numpy(a)
    a[1] = 5
    assert w1.tolist() == [0, 5, 0] and w2.tolist() == [0, 5, 0]
    w2.add_(1)
    assert a.tolist() == [1, 6, 1]
    assert webtorch.as_tensor(w1) is w1
    c = webtorch.as_tensor(a, dtype=webtorch.float64)
    a[0] = 9
    assert c.tolist()[0] == 1 and str(c.dtype) == "torch.float64"
    n = w1.numpy()
    n[2] = 7
    assert w1.tolist()[2] == 7  # numpy() shares memory too
    assert np.asarray(w1).tolist() == [9, 6, 7]


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
def test_filled(fn):
    for lib in (torch, webtorch):
        with pytest.raises(TypeError):
            getattr(lib, fn)()
    for args in [(2, 3), ((2, 3),), ([4],), (torch.Size([2, 1]),), (0,), ((),)]:
        wargs = tuple(webtorch.Size(a) if isinstance(a, torch.Size) else a for a in args)
        w, t = getattr(webtorch, fn)(*wargs), getattr(torch, fn)(*args)
        assert tuple(w.shape) == tuple(t.shape) and str(w.dtype) == str(t.dtype)
        if fn != "empty":
            same(w, t)
    w = getattr(webtorch, fn)(2, dtype=webtorch.int32, requires_grad=False)
    assert str(w.dtype) == "torch.int32"


def test_full_dtype_inference_and_likes():
    for v in (1, 2.5, True):
        same(webtorch.full((2, 2), v), torch.full((2, 2), v))
    x, y = webtorch.ones(2, 3, dtype=webtorch.float64), torch.ones(2, 3, dtype=torch.float64)
    for name in ("zeros_like", "ones_like"):
        same(getattr(webtorch, name)(x), getattr(torch, name)(y))
        same(getattr(webtorch, name)(x, dtype=webtorch.int64), getattr(torch, name)(y, dtype=torch.int64))
    same(webtorch.full_like(x, 7), torch.full_like(y, 7))
    assert tuple(webtorch.empty_like(x).shape) == (2, 3)
    same(x.new_zeros(3), y.new_zeros(3))
    same(x.new_ones((1, 2)), y.new_ones((1, 2)))
    same(x.new_full((2,), 3), y.new_full((2,), 3))
    same(x.new_tensor([1, 2]), y.new_tensor([1, 2]))
    assert tuple(x.new_empty(4).shape) == (4,) and str(x.new_empty(4).dtype) == "torch.float64"
    assert webtorch.ones(2, requires_grad=True).requires_grad
    assert webtorch.zeros_like(webtorch.ones(2, requires_grad=True)).requires_grad is False


ARANGES = [(5,), (1, 4), (0, 1, 0.1), (1.0, 4), (0, 10, 3), (5, 0, -1), (0.5, 2.5, 0.5), (-1, 1, 0.25),
           (0, 1, 0.3), (10, 0, -2.5)]


@pytest.mark.parametrize("args", ARANGES, ids=repr)
def test_arange(args):
    same(webtorch.arange(*args), torch.arange(*args))


def test_arange_dtype_and_errors():
    same(webtorch.arange(5, dtype=webtorch.float64), torch.arange(5, dtype=torch.float64))
    same(webtorch.arange(0, 5, 2, dtype=webtorch.int32), torch.arange(0, 5, 2, dtype=torch.int32))
    for args in [(0, 5, -1), (5, 0, 1), (0, 5, 0)]:
        with pytest.raises(RuntimeError):
            torch.arange(*args)
        with pytest.raises(RuntimeError):
            webtorch.arange(*args)


@pytest.mark.parametrize("args", [(0, 1, 5), (-2, 2, 1), (3, -3, 7), (0, 1, 0), (1, 10, 10)], ids=repr)
def test_linspace_logspace(args):
    same(webtorch.linspace(*args), torch.linspace(*args))
    same(webtorch.logspace(*args), torch.logspace(*args))
    same(webtorch.logspace(*args, base=2), torch.logspace(*args, base=2))
    same(webtorch.linspace(*args, dtype=webtorch.float64), torch.linspace(*args, dtype=torch.float64))


def test_eye():
    for args in [(3,), (2, 4), (4, 2), (0,)]:
        same(webtorch.eye(*args), torch.eye(*args))
    same(webtorch.eye(3, dtype=webtorch.int64), torch.eye(3, dtype=torch.int64))


def test_random_shapes_dtypes_ranges():
    webtorch.manual_seed(0)
    r = webtorch.rand(1000)
    assert str(r.dtype) == "torch.float32" and 0 <= min(r.tolist()) and max(r.tolist()) < 1
    n = webtorch.randn(2000, dtype=webtorch.float64)
    vals = n.tolist()
    assert str(n.dtype) == "torch.float64" and abs(sum(vals) / len(vals)) < 0.1
    ri = webtorch.randint(3, 7, (500,))
    assert str(ri.dtype) == "torch.int64" and set(ri.tolist()) == {3, 4, 5, 6}
    ri2 = webtorch.randint(5, (3, 2))
    assert tuple(ri2.shape) == (3, 2) and max(ri2.tolist()[0]) < 5
    p = webtorch.randperm(10)
    assert sorted(p.tolist()) == list(range(10)) and str(p.dtype) == "torch.int64"
    m = webtorch.normal(2.0, 0.5, size=(1000,))
    mv = m.tolist()
    assert abs(sum(mv) / len(mv) - 2.0) < 0.1
    mt = webtorch.normal(webtorch.zeros(3), webtorch.ones(3))
    assert tuple(mt.shape) == (3,)
    assert tuple(webtorch.rand_like(n).shape) == (2000,) and str(webtorch.rand_like(n).dtype) == "torch.float64"
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        webtorch.randint(5, 5, (2,))


def test_manual_seed_and_generators_reproducible():
    webtorch.manual_seed(123)
    a = webtorch.randn(5).tolist()
    webtorch.manual_seed(123)
    assert webtorch.randn(5).tolist() == a
    g1, g2 = webtorch.Generator().manual_seed(7), webtorch.Generator().manual_seed(7)
    assert webtorch.rand(4, generator=g1).tolist() == webtorch.rand(4, generator=g2).tolist()
    assert g1.initial_seed() == 7
    state = g1.get_state()
    assert str(state.dtype) == "torch.uint8"
    x = webtorch.randn(3, generator=g1).tolist()
    g1.set_state(state)
    assert webtorch.randn(3, generator=g1).tolist() == x
    s = webtorch.get_rng_state()
    y = webtorch.rand(3).tolist()
    webtorch.set_rng_state(s)
    assert webtorch.rand(3).tolist() == y


def test_item_tolist_and_is_tensor():
    for lib in (torch, webtorch):
        assert lib.tensor(2.5).item() == 2.5 and lib.tensor([[3]]).item() == 3
        assert isinstance(lib.tensor(3).item(), int) and isinstance(lib.tensor(True).item(), bool)
        assert lib.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
        assert lib.tensor(1.5).tolist() == 1.5
        assert lib.is_tensor(lib.ones(1)) and not lib.is_tensor([1])
        with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
            lib.ones(2).item()
        with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
            lib.ones(2, requires_grad=True).numpy()


@pytest.mark.parametrize("form", ["dtype", "str_dtype", "tensor", "device", "device_dtype", "kw", "copy"])
def test_to_forms(form):
    for lib in (torch, webtorch):
        x = lib.ones(2, 3)
        y = {
            "dtype": lambda: x.to(lib.float64),
            "str_dtype": lambda: x.to(dtype=lib.int32),
            "tensor": lambda: x.to(lib.zeros(1, dtype=lib.int64)),
            "device": lambda: x.to("cpu"),
            "device_dtype": lambda: x.to("cpu", lib.float16),
            "kw": lambda: x.to(device=lib.device("cpu"), dtype=lib.float64),
            "copy": lambda: x.to(lib.float32, copy=True),
        }[form]()
        if lib is torch:
            expected = (str(y.dtype), y is x)
        else:
            assert (str(y.dtype), y is x) == expected


def test_type_strings_and_casts():
    for name in ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"):
        assert webtorch.ones(1, dtype=getattr(webtorch, name)).type() == \
            torch.ones(1, dtype=getattr(torch, name)).type()
    x, t = webtorch.tensor([1.7, -2.7]), torch.tensor([1.7, -2.7])
    for m in ("long", "int", "double", "half", "bool", "byte", "float", "short", "char"):
        same(getattr(x, m)(), getattr(t, m)())
    same(x.type(webtorch.int64), t.type(torch.int64))
    same(x.type("torch.DoubleTensor"), t.type("torch.DoubleTensor"))
    same(x.type_as(webtorch.ones(1, dtype=webtorch.int32)), t.type_as(torch.ones(1, dtype=torch.int32)))
