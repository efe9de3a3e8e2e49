"""float8 dtypes against PyTorch 2.13's CPU: every bit pattern of each format read as float32, float32 values
(random, subnormal, halfway, overflow, inf, NaN) rounded into each format bit for bit, conversions from and to
every dtype, finfo, promotion refusals, creation and fills (with the overflow check of a fill), data movement, the
bytes through view(dtype), errors on arithmetic (checkpoints: tests/serialization/test_float8_checkpoints.py). The cpu device holds float8 on both its backends (NumPy, and
WebAssembly under WEBTORCH_CPU_BACKEND=wasm); webgpu, with no 8-bit storage, refuses with a TypeError naming the
device and the dtype. Tests of the cpu device alone say so in their names (scripts/test.sh's WebAssembly pass
selects "cpu")."""

import numpy as np
import pytest
import torch

import webtorch
from devices import DEVICES

NAMES = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
HOLDS_FLOAT8 = {"cpu": True, "webgpu": False}  # (both cpu backends: NumPy and WebAssembly)
RNG = np.random.default_rng(8)


def _values():
    """float32 values: random magnitudes across float32's range, random bit patterns (NaN payloads, subnormals),
    and each format's edges (max, halfway to the next, the smallest subnormal and its half)."""
    with np.errstate(all="ignore"):  # (magnitudes past float32's range become inf: kept, they are edges too)
        mags = (RNG.standard_normal(4000) * 10.0 ** RNG.integers(-44, 39, 4000)).astype(np.float32)
    bits = RNG.integers(0, 2 ** 32, 4000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 448, 464, 465, 480, 512, 240, 248, 57344, 61440, 65536,
             2 ** -9, 2 ** -10, 2 ** -16, 2 ** -17, 2 ** -17 * 1.5, 2 ** -127, 2 ** -128, 1.7e38, 3e38, 0.1, 1 / 3]
    e = np.array(edges, dtype=np.float32)
    return np.concatenate([mags, bits, e, -e])


VALUES = _values()


def _bytes(t):
    """The bytes of a float8 tensor of either library, as a NumPy uint8 array."""
    lib = torch if isinstance(t, torch.Tensor) else webtorch
    return np.asarray(t.view(lib.uint8).tolist(), dtype=np.uint8)


def _refused(device, name):
    return pytest.raises(TypeError, match=f"{name}.*device '{device}'")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("device", DEVICES)
def test_every_bit_pattern_reads_as_pytorch_reads_it(device, name):
    patterns = list(range(256))
    want = torch.tensor(patterns, dtype=torch.uint8).view(getattr(torch, name)).float()
    if not HOLDS_FLOAT8[device]:
        with _refused(device, name):
            webtorch.tensor(patterns, dtype=webtorch.uint8, device=device).view(getattr(webtorch, name))
        return
    got = webtorch.tensor(patterns, dtype=webtorch.uint8, device=device).view(getattr(webtorch, name)).float()
    assert np.array_equal(got.numpy().view(np.uint32), want.numpy().view(np.uint32))  # NaN payloads too


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("device", DEVICES)
def test_float32_rounds_into_each_format_bit_for_bit(device, name):
    want = torch.from_numpy(VALUES).to(getattr(torch, name)).view(torch.uint8).numpy()
    src = webtorch.tensor(VALUES.tolist(), device=device)
    if not HOLDS_FLOAT8[device]:
        with _refused(device, name):
            src.to(getattr(webtorch, name))
        return
    got = src.to(getattr(webtorch, name))
    assert got.dtype is getattr(webtorch, name) and got.element_size() == 1
    assert np.array_equal(_bytes(got), want)


@pytest.mark.parametrize("device", [d for d in DEVICES if not HOLDS_FLOAT8[d]])
def test_a_float8_tensor_moved_to_a_device_without_float8_is_refused(device):
    with _refused(device, "float8_e5m2"):
        webtorch.ones(2, dtype=webtorch.float8_e5m2).to(device)


SOURCES = ["float64", "float16", "float32", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("src", SOURCES)
def test_conversions_from_and_to_every_dtype_on_cpu(src):
    vals = [0.0, 1.0, -3.0, 7.5, 100.0, 300.0, 1000.0, 1e5, -0.1, 0.3] if src not in ("uint8", "bool") else \
        [0, 1, 3, 7, 100, 200, 255]
    for name in NAMES:
        t_src = torch.tensor(vals).to(getattr(torch, src))
        w_src = webtorch.tensor(vals).to(getattr(webtorch, src))
        t8, w8 = t_src.to(getattr(torch, name)), w_src.to(getattr(webtorch, name))
        assert np.array_equal(_bytes(w8), _bytes(t8)), (src, name)
        back_t = torch.tensor(list(range(256)), dtype=torch.uint8).view(getattr(torch, name)).to(getattr(torch, src))
        back_w = webtorch.tensor(list(range(256)), dtype=webtorch.uint8).view(getattr(webtorch, name)).to(
            getattr(webtorch, src))
        finite = torch.tensor(list(range(256)), dtype=torch.uint8).view(getattr(torch, name)).float().isfinite()
        assert back_w.dtype is getattr(webtorch, src)
        got, want = np.array(back_w.tolist()), back_t.numpy()
        if src in ("float64", "float16", "float32"):
            assert np.array_equal(got, want, equal_nan=True), (src, name)
        else:  # NaN/inf into integers is undefined behaviour in C++: compared where the value is finite
            assert np.array_equal(got[finite.numpy()], want[finite.numpy()]), (src, name)


def test_dtype_facts_finfo_and_promotion_on_cpu():
    for name in NAMES:
        w, t = getattr(webtorch, name), getattr(torch, name)
        assert (repr(w), w.itemsize, w.is_floating_point, w.is_signed) == (repr(t), t.itemsize, t.is_floating_point,
                                                                           t.is_signed)
        fw, ft = webtorch.finfo(w), torch.finfo(t)
        for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert getattr(fw, field) == getattr(ft, field), (name, field)
        assert repr(fw) == repr(ft)
        for other in ["bool", "uint8", "int64", "float16", "float32", "float64"] + [n for n in NAMES if n != name]:
            with pytest.raises(RuntimeError) as wt:
                webtorch.promote_types(w, getattr(webtorch, other))
            with pytest.raises(RuntimeError) as tt:
                torch.promote_types(t, getattr(torch, other))
            assert str(wt.value) == str(tt.value)
        assert webtorch.promote_types(w, w) is w
    a8w, a8t = webtorch.ones(3, dtype=webtorch.float8_e4m3fn), torch.ones(3, dtype=torch.float8_e4m3fn)
    for sw, st in [(True, True), (2, 2), (1.5, 1.5), (webtorch.tensor(1.0), torch.tensor(1.0))]:
        assert repr(webtorch.result_type(a8w, sw)) == repr(torch.result_type(a8t, st))
    with pytest.raises(RuntimeError, match="Promotion for Float8 Types is not supported"):
        webtorch.ones(3) + a8w
    assert a8w.type() == a8t.type() == "torch.Float8_e4m3fnTensor"


@pytest.mark.parametrize("name", NAMES)
def test_creation_fills_and_printing_on_cpu(name):
    w, t = getattr(webtorch, name), getattr(torch, name)
    pairs = [
        (lambda m, d: m.zeros(2, 3, dtype=d)), (lambda m, d: m.ones(4, dtype=d)), (lambda m, d: m.eye(3, dtype=d)),
        (lambda m, d: m.full((2,), 3.3, dtype=d)), (lambda m, d: m.tensor([1.5, -2.0, 300.0, 1e-3, 0.0], dtype=d)),
        (lambda m, d: m.tensor([[1, 2], [3, 4]], dtype=d)), (lambda m, d: m.zeros(0, dtype=d)),
        (lambda m, d: m.tensor(5.0, dtype=d)), (lambda m, d: m.full((1,), 1e6, dtype=d)),
        (lambda m, d: m.ones(3, dtype=d).new_zeros(2)), (lambda m, d: m.full_like(m.zeros(2, dtype=d), 2.0)),
    ]
    for make in pairs:
        got, want = make(webtorch, w), make(torch, t)
        assert got.dtype is w and tuple(got.shape) == tuple(want.shape)
        assert np.array_equal(_bytes(got), _bytes(want))
        assert repr(got) == repr(want) and str(got) == str(want)
        assert np.array_equal(np.array(got.tolist()), np.array(want.tolist()), equal_nan=True)
    for value in [1e6, float("inf"), -1.0, 0.0, float("nan"), 240.0, 241.0, 448.0, 449.0, 57344.0, 57345.0]:
        try:
            want = _bytes(torch.full((3,), value, dtype=t))
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e)):
                webtorch.full((3,), value, dtype=w)
            with pytest.raises(RuntimeError, match=str(e)):
                webtorch.zeros(3, dtype=w).fill_(value)
            continue
        assert np.array_equal(_bytes(webtorch.full((3,), value, dtype=w)), want), value


def test_data_movement_equals_pytorch_on_cpu():
    vals = [0.5, -1.0, 2.0, 3.5, 448.0, -0.0, 1e-3, 6.0, 0.25, -12.0, 7.0, 1.0]
    ops = {
        "clone": lambda m, a: a.clone(), "reshape": lambda m, a: a.reshape(3, 4),
        "contiguous": lambda m, a: a.reshape(3, 4).t().contiguous(), "slice": lambda m, a: a[1:9:2],
        "select": lambda m, a: a.reshape(3, 4)[1], "index": lambda m, a: a[m.tensor([0, 5, 5, 11])],
        "mask": lambda m, a: a[m.tensor([True, False] * 6)], "cat": lambda m, a: m.cat([a, a[:3]]),
        "stack": lambda m, a: m.stack([a, a]), "permute": lambda m, a: a.reshape(2, 3, 2).permute(2, 0, 1).contiguous(),
        "expand": lambda m, a: a[:3].expand(2, 3).contiguous(), "unbind": lambda m, a: a.reshape(3, 4).unbind(0)[2],
        "split": lambda m, a: a.split(5)[1], "narrow": lambda m, a: a.narrow(0, 2, 4), "squeeze": lambda m, a: a[None].squeeze(0),
        "index_select": lambda m, a: a.index_select(0, m.tensor([3, 1])), "detach": lambda m, a: a.detach(),
        "flatten": lambda m, a: a.reshape(3, 4).flatten(), "transpose": lambda m, a: a.reshape(3, 4).transpose(0, 1).contiguous(),
    }
    for name in NAMES:
        aw = webtorch.tensor(vals).to(getattr(webtorch, name))
        at = torch.tensor(vals).to(getattr(torch, name))
        for op, f in ops.items():
            got, want = f(webtorch, aw), f(torch, at)
            assert got.dtype is aw.dtype and tuple(got.shape) == tuple(want.shape), (name, op)
            assert np.array_equal(_bytes(got.contiguous()), _bytes(want.contiguous())), (name, op)
        bw, bt = aw.clone(), at.clone()
        bw[2], bt[2] = 5.0, 5.0
        bw[4:6], bt[4:6] = aw[:2], at[:2]
        assert np.array_equal(_bytes(bw), _bytes(bt)), name
        cw, ct = webtorch.zeros(12), torch.zeros(12)
        cw.copy_(aw), ct.copy_(at)
        assert np.array_equal(np.array(cw.tolist()), ct.numpy(), equal_nan=True)
        dw, dt = webtorch.zeros(12, dtype=aw.dtype), torch.zeros(12, dtype=at.dtype)
        dw.copy_(webtorch.tensor(vals) * 3), dt.copy_(torch.tensor(vals) * 3)
        assert np.array_equal(_bytes(dw), _bytes(dt)), name
        assert aw[1].item() == at[1].item() and float(aw[0]) == float(at[0])


def test_view_dtype_reinterprets_the_bytes_on_cpu():
    for name in NAMES:
        w = webtorch.tensor([1.0, 2.0, 3.0, 0.5]).to(getattr(webtorch, name))
        t = torch.tensor([1.0, 2.0, 3.0, 0.5]).to(getattr(torch, name))
        assert w.view(webtorch.uint8).tolist() == t.view(torch.uint8).tolist()
        assert w.view(webtorch.int8).tolist() == t.view(torch.int8).tolist()
        u = w.view(webtorch.uint8)
        u[0] = 0  # a view: the float8 tensor sees the write
        assert w.view(webtorch.uint8)[0].item() == 0 and w._version is u._version
        b = webtorch.tensor([[56, 64], [68, 200]], dtype=webtorch.uint8).t()
        bt = torch.tensor([[56, 64], [68, 200]], dtype=torch.uint8).t()
        assert np.array_equal(b.view(getattr(webtorch, name)).float().numpy(),
                              bt.view(getattr(torch, name)).float().numpy(), equal_nan=True)
    with pytest.raises(TypeError, match="Got unsupported ScalarType Float8_e4m3fn"):
        webtorch.ones(2, dtype=webtorch.float8_e4m3fn).numpy()


COMPUTE = {
    "add": lambda a: a + a, "sub": lambda a: a - 1, "neg": lambda a: -a, "sum": lambda a: a.sum(),
    "mean": lambda a: a.mean(), "max": lambda a: a.max(), "matmul_1d": lambda a: a @ a, "lt": lambda a: a < a,
    "exp": lambda a: a.exp(), "div": lambda a: a / a, "cumsum": lambda a: a.cumsum(0), "softmax": lambda a: a.softmax(0),
    "sort": lambda a: a.sort(), "argmax": lambda a: a.argmax(), "relu": lambda a: a.relu(), "sign": lambda a: a.sign(),
    "clamp": lambda a: a.clamp(0, 1), "maximum": lambda a: a.maximum(a), "norm": lambda a: a.norm(),
    "isinf": lambda a: a.isinf(),
    "sqrt": lambda a: a.sqrt(),
}


@pytest.mark.parametrize("op", sorted(COMPUTE))
def test_arithmetic_is_refused_naming_the_dtype_and_the_fix_on_cpu(op):
    """What PyTorch's CPU does not compute on float8 raises its error type, naming the dtype and .to(float32)."""
    with pytest.raises(NotImplementedError):
        COMPUTE[op](torch.tensor([1.0, 2.0, 3.0, 4.0]).to(torch.float8_e4m3fn))
    with pytest.raises(NotImplementedError, match=r"Float8_e4m3fn.*\.to\(torch\.float32\)"):
        COMPUTE[op](webtorch.tensor([1.0, 2.0, 3.0, 4.0]).to(webtorch.float8_e4m3fn))


FLOAT8_OPS = {
    "abs": lambda m, a, b: a.abs(), "eq": lambda m, a, b: a == b, "ne": lambda m, a, b: a != b,
    "isnan": lambda m, a, b: a.isnan(), "mul": lambda m, a, b: a * b, "mul_": lambda m, a, b: a.clone().mul_(b),
    "where": lambda m, a, b: m.where(a.isnan(), a, b), "where_number": lambda m, a, b: m.where(a.isnan(), a, 1.0),
    "eq_number": lambda m, a, b: a == 1,
}


@pytest.mark.parametrize("name", NAMES)
def test_the_ops_pytorch_runs_on_float8_equal_its_results_on_cpu(name):
    """mul, abs, comparisons, isnan and where: in float32, the result rounded back (abs refused on e8m0fnu)."""
    va, vb = [0.5, 1.0, 2.0, -3.0, float("nan"), 300.0], [1.0, 2.0, 0.5, 4.0, 1.0, 300.0]
    aw, bw = (webtorch.tensor(v).to(getattr(webtorch, name)) for v in (va, vb))
    at, bt = (torch.tensor(v).to(getattr(torch, name)) for v in (va, vb))
    for op, f in FLOAT8_OPS.items():
        try:
            want = f(torch, at, bt)
        except NotImplementedError:
            with pytest.raises(NotImplementedError, match=r"\.to\(torch\.float32\)"):
                f(webtorch, aw, bw)
            continue
        got = f(webtorch, aw, bw)
        assert repr(got.dtype) == repr(want.dtype), (name, op)
        if want.dtype == torch.bool:
            assert got.tolist() == want.tolist(), (name, op)
        else:
            assert np.array_equal(_bytes(got), _bytes(want)), (name, op)
