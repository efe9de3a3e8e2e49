"""uint8, int8 and int16 on the webgpu device (stored one i32 per element): values, dtypes and wraparound equal
PyTorch's CPU -- inside fused chains too, where an intermediate that overflows must be wrapped before a consumer
reads it -- with the elementwise ops in WGSL (no host fallback)."""
import math

import numpy as np
import pytest
import torch

import webtorch

from optest import check
from webgpu_counts import counted

DEV = "webgpu"
SMALL = ["uint8", "int8", "int16"]
SAMPLES = {
    "uint8": np.array([[0, 1, 7, 127], [128, 200, 254, 255]], dtype=np.uint8),
    "int8": np.array([[0, 1, -1, 127], [-128, 100, -100, 64]], dtype=np.int8),
    "int16": np.array([[0, 1, -1, 32767], [-32768, 30000, -30000, 255]], dtype=np.int16),
}
FLOATS = np.array([0.0, 1.7, -1.7, 300.7, -1.0, -1.5, 255.9, -129.0, 127.5, 1e10, -1e10, 3e9, -300.2, 70000.5,
                   -70000.5, 2147483520.0, float("nan"), float("inf"), float("-inf")], dtype=np.float32)


def _no_fallback(fn):
    out, n = counted(fn)
    assert n["host_fallbacks"] == 0, n
    return out


@pytest.mark.parametrize("name", SMALL)
def test_arithmetic_wraps(name):
    x = SAMPLES[name]
    _no_fallback(lambda: check(lambda m, a: (a + a, a - 3, a * 3, a * a, -a, a.abs(), ~a, a + 300, a - 70000,
                                             a // 3, a % 7, m.fmod(a, 5), a ** 2, a.sign(), a & 0x5A, a | 3, a ^ 0xF0),
                               x, device=DEV))


@pytest.mark.parametrize("name", SMALL)
def test_fused_chains_see_wrapped_intermediates(name):
    x, y = SAMPLES[name], SAMPLES[name][::-1].copy()
    _no_fallback(lambda: check(lambda m, a, b: ((a + b) > 100, (a * 3) == (b * 3), ((a + b) // 2).float() * 0.5,
                                                m.where((a - b) < 0, a - b, b), ((a * a) + 1).to(m.int32),
                                                m.maximum(a + b, a - b), (-a).eq(a), (a + 200).sum(),
                                                (a + b).clamp(-5, 60)),
                               x, y, device=DEV))


def test_uint8_overflow_then_compare_in_one_kernel():
    a = webtorch.tensor([200, 100, 250], dtype=webtorch.uint8, device=DEV)
    b = webtorch.tensor([100, 100, 10], dtype=webtorch.uint8, device=DEV)
    r, n = counted(lambda: ((a + b) > 50).tolist())
    assert r == ((torch.tensor([200, 100, 250], dtype=torch.uint8) + torch.tensor([100, 100, 10], dtype=torch.uint8))
                 > 50).tolist() == [False, True, False]
    assert n["host_fallbacks"] == 0 and n["dispatches"] == 1


@pytest.mark.parametrize("name", SMALL)
def test_casts_from_float(name):
    # in range: truncation toward zero; out of range: the low bits (values outside int32, inf, NaN: 0)
    _no_fallback(lambda: check(lambda m, f: (f.to(getattr(m, name)), (f * 2).to(getattr(m, name)) + 1), FLOATS,
                               device=DEV, grad=False))


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("target", ["float32", "int32", "int64", "bool", "uint8", "int8", "int16"])
def test_casts_to_and_from_other_dtypes(name, target):
    x = SAMPLES[name]
    _no_fallback(lambda: check(lambda m, a: (a.to(getattr(m, target)), a.to(getattr(m, target)).to(a.dtype)), x,
                               device=DEV))
    wide = np.array([-70000, -300, -129, -1, 0, 255, 256, 300, 32768, 2 ** 31 - 1], dtype=np.int32)
    check(lambda m, a: a.to(getattr(m, name)), wide, device=DEV)


def test_image_bytes_to_float():
    pixels = bytes(range(0, 256, 5))
    img = webtorch.frombuffer(pixels, dtype=webtorch.uint8, device=DEV)
    ref = torch.frombuffer(bytearray(pixels), dtype=torch.uint8)
    assert img.dtype is webtorch.uint8 and img.tolist() == ref.tolist()
    f = _no_fallback(lambda: (img.float() / 255).tolist())
    np.testing.assert_allclose(f, (ref.float() / 255).tolist(), rtol=1e-6)
    back = _no_fallback(lambda: (img.float() / 255 * 255).round().to(webtorch.uint8).tolist())
    assert back == ref.tolist()
    assert img._bytes() == pixels


@pytest.mark.parametrize("name", ["int8", "int16"])
def test_frombuffer_signed_and_bytes_round_trip(name):
    raw = bytes([0, 1, 127, 128, 255, 200, 3, 250])
    w = webtorch.frombuffer(raw, dtype=getattr(webtorch, name), device=DEV)
    t = torch.frombuffer(bytearray(raw), dtype=getattr(torch, name))
    assert w.tolist() == t.tolist() and w.dtype is getattr(webtorch, name)
    assert w._bytes() == raw
    assert np.array_equal(w.cpu().numpy(), t.numpy()) and w.cpu().numpy().dtype == t.numpy().dtype


@pytest.mark.parametrize("name", SMALL)
def test_tensor_tolist_item_and_cpu(name):
    x = SAMPLES[name]
    w = webtorch.tensor(x.tolist(), dtype=getattr(webtorch, name), device=DEV)
    assert w.tolist() == x.tolist() and w.dtype is getattr(webtorch, name)
    assert w[1, 0].item() == x[1, 0].item() and isinstance(w[1, 0].item(), int)
    assert w.cpu().dtype is getattr(webtorch, name) and w.cpu().tolist() == x.tolist()
    assert webtorch.tensor(x, device=DEV).tolist() == x.tolist()
    assert webtorch.tensor(x).to(DEV).dtype is getattr(webtorch, name)


@pytest.mark.parametrize("values,name", [([-1, 2, 255, -255], "uint8"), ([1.7, 0.2], "uint8"), ([-128, 127], "int8"),
                                         ([-1.5, 3.9], "int8"), ([-32768, 32767], "int16")])
def test_tensor_creation_wraps_as_torch(values, name):
    w = webtorch.tensor(values, dtype=getattr(webtorch, name), device=DEV)
    assert w.tolist() == torch.tensor(values, dtype=getattr(torch, name)).tolist()


@pytest.mark.parametrize("values,name", [([300], "uint8"), ([-256], "uint8"), ([-0.5], "uint8"), ([255.5], "uint8"),
                                         ([128], "int8"), ([-129], "int8"), ([32768], "int16")])
def test_tensor_creation_overflow_raises_as_torch(values, name):
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.tensor(values, dtype=getattr(torch, name))
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {name} without overflow"):
        webtorch.tensor(values, dtype=getattr(webtorch, name), device=DEV)


@pytest.mark.parametrize("name", SMALL)
def test_printing(name):
    x = SAMPLES[name]
    t = torch.tensor(x)
    w = webtorch.tensor(x, device=DEV)
    assert repr(w.cpu()) == repr(t) and str(w[0].cpu()) == str(t[0])

    def flat(r):  # the device suffix may move dtype= to its own line
        return " ".join(r.replace(" device='webgpu:0',", "").split())
    assert flat(repr(w)) == flat(repr(t)) and "device='webgpu:0'" in repr(w)


@pytest.mark.parametrize("name", SMALL)
def test_reductions_result_dtypes(name):
    x = SAMPLES[name] if name != "int16" else SAMPLES[name] // 256  # int64 products stay within int32 here
    check(lambda m, a: (a.sum(), a.sum(1), a.prod(1), a.cumsum(1), a.cumprod(0), a.max(), a.min(1).values,
                        a.amax(0), a.argmax(), a.argmin(1), a.all(), a.any(1), a.count_nonzero(),
                        a.sum(dtype=m.float32), a.sum(1, dtype=getattr(m, name)), a.cumsum(1, dtype=getattr(m, name))),
          x, device=DEV)


def test_true_division_is_float_floor_division_keeps_dtype():
    for name in SMALL:
        x = SAMPLES[name]
        check(lambda m, a: (a / 3, m.true_divide(a, a.clamp(1, 7) if name == "uint8" else 2), a // 4, a % 5,
                            m.div(a, 3, rounding_mode="floor"), m.div(a, 3, rounding_mode="trunc")), x, device=DEV)


@pytest.mark.parametrize("name", SMALL)
def test_indexing_scatter_gather_sort(name):
    x = SAMPLES[name]
    idx = np.array([[0, 0, 3, 3], [1, 1, 1, 2]], dtype=np.int64)

    def fn(m, a, i):
        return (a[:, m.tensor([3, 0])], a.gather(1, i), a.flip(1), a.t().contiguous(), a[a > 0],
                a.scatter_add(1, i, a), a.scatter_reduce(1, i, a, "prod"),
                a.scatter_reduce(1, i, a, "amax", include_self=False), a.index_put((m.tensor([0, 0]),), a[1], accumulate=True),
                a.masked_fill(a > 5, -1 if name != "uint8" else 255), a.sort(1), a.topk(2, 1), m.cat([a, a]),
                a.nonzero(), a.cummax(1))
    check(fn, x, idx, device=DEV)


@pytest.mark.parametrize("name", SMALL)
def test_matmul_like_int32(name):
    """The matmul kernels are f32: integer products take the counted host path, as int32's do."""
    x = SAMPLES[name]
    _, n = counted(lambda: check(lambda m, a: (a @ a.T, m.matmul(a[0], a[1])), x, device=DEV), keys=("ops",))
    _, n32 = counted(lambda: check(lambda m, a: a @ a.T, x.astype(np.int32), device=DEV), keys=("ops",))
    assert set(n["ops"]) == set(n32["ops"]) == {"matmul"}


def test_creation_and_float64_error_kept():
    with pytest.raises(TypeError, match="webgpu Tensor to float64"):
        webtorch.ones(2, dtype=webtorch.uint8, device=DEV).double()
    for name in SMALL:
        assert webtorch.zeros(2, dtype=getattr(webtorch, name), device=DEV).tolist() == [0, 0]
        assert webtorch.full((2,), 7, dtype=getattr(webtorch, name), device=DEV).tolist() == [7, 7]
    assert webtorch.arange(250, 260, dtype=webtorch.uint8, device=DEV).tolist() == \
        torch.arange(250, 260, dtype=torch.uint8).tolist()
    assert math.isclose((webtorch.tensor([1], dtype=webtorch.uint8, device=DEV) + 1.5).item(), 2.5)


def test_cast_fused_into_matmul_epilogue():
    a = np.random.default_rng(3).integers(-20, 20, (64, 64)).astype(np.float32)  # exact products
    check(lambda m, x: ((x @ x).to(m.uint8), (x @ x).to(m.int8) + 1, (x @ x).to(m.int16)), a, device=DEV, grad=False)
