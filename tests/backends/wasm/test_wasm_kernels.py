"""The wasm backend's own kernels against PyTorch (the oracle), at the backend level: every dtype pair's cast
(float16/bfloat16 rounding to nearest even), every elementwise op for every compute dtype through broadcast and
strided operands, integer division by zero, GEMM across its block edges, and the Philox stream equal to webgpu's."""
import numpy as np
import pytest
import torch

from webtorch import _dtype as D
from webtorch.backends.op_facts import BOOL_RESULT, ELEMENTWISE_OPS, INT_DIVISIONS
from webtorch.backends.wasm import get_backend

BE = get_backend()
DTYPES = [D.bool_, D.uint8, D.int8, D.int16, D.int32, D.int64, D.float16, D.bfloat16, D.float32, D.float64]
TORCH = {dt: getattr(torch, dt.name) for dt in DTYPES}
RNG = np.random.default_rng(0)


def _upload(t):
    """A wasm handle holding the torch tensor t's values."""
    if t.dtype == torch.bfloat16:
        bits = t.contiguous().view(torch.int16).numpy().tobytes()
    else:
        bits = t.contiguous().numpy().tobytes()
    return BE.from_buffer(bits, tuple(t.shape), D.ALIASES[str(t.dtype).split(".")[1]])


def _download(h):
    dt = BE.dtype(h)
    raw = BE.to_bytes(h)
    if dt is D.bfloat16:
        return torch.frombuffer(bytearray(raw), dtype=torch.int16).view(torch.bfloat16).reshape(BE.shape(h))
    return torch.frombuffer(bytearray(raw), dtype=TORCH[dt]).reshape(BE.shape(h)) if raw else torch.empty(
        BE.shape(h), dtype=TORCH[dt])


_SAMPLES = torch.tensor([0.0, -0.0, 1.5, -2.5, 2.5, 3.5, 0.1, -7.9, 255.0, 300.7, -129.0, 65504.0, 65520.0,
                         1e-8, 6e-8, 1e30, -1e30, float("inf"), float("-inf"), float("nan"), 1 / 3],
                        dtype=torch.float64)


@pytest.mark.parametrize("src", DTYPES, ids=lambda d: d.name)
def test_cast_every_pair(src):
    x = _SAMPLES.to(TORCH[src]) if src.is_floating_point else torch.arange(-130, 130).to(TORCH[src])
    h = _upload(x)
    for dst in DTYPES:
        ours, ref = _download(BE.cast(h, dst)), x.to(TORCH[dst])
        if src.is_floating_point and not dst.is_floating_point and dst is not D.bool_:
            # out of range and NaN are undefined in C; PyTorch's x86 build and ours give the same values in range
            keep = torch.isfinite(x) & (x.double().abs() < 120)
            ours, ref = ours[keep], ref[keep]
        assert torch.equal(ours, ref) or (ref.is_floating_point() and torch.equal(ours.isnan(), ref.isnan()) and
                                          torch.equal(ours[~ref.isnan()], ref[~ref.isnan()])), (src, dst, ours, ref)


def _torch_op(op, args):
    m = {"floor_divide": torch.floor_divide, "remainder": torch.remainder, "fmod": torch.fmod, "pow": torch.pow,
         "logical_not": torch.logical_not, "bitwise_not": torch.bitwise_not, "neg": torch.neg, "abs": torch.abs,
         "relu": torch.relu, "where": torch.where, "round": torch.round}
    if op == "clamp":
        return torch.clamp(*args)
    if op == "bitwise_left_shift":
        return torch.bitwise_left_shift(*args)
    if op == "bitwise_right_shift":
        return torch.bitwise_right_shift(*args)
    return (m.get(op) or getattr(torch, op))(*args)


_FLOAT_ONLY = {"div", "atan2", "copysign", "hypot", "logaddexp", "reciprocal", "sqrt", "rsqrt", "sigmoid", "erfinv",
               "frac", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
               "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc"}


@pytest.mark.parametrize("op", sorted(ELEMENTWISE_OPS))
def test_elementwise_every_dtype(op):
    """Each op on a (3, 4) operand and a transposed (strided) one broadcast from its first row, in every dtype the
    op applies to."""
    for dt in (D.int8, D.int32, D.int64, D.uint8, D.float16, D.float32, D.float64):
        if not dt.is_floating_point and op in _FLOAT_ONLY:
            continue
        if dt.is_floating_point and op.startswith("bitwise"):
            continue
        tdt = TORCH[dt]
        if dt.is_floating_point:
            a = torch.tensor(RNG.uniform(-3, 3, (3, 4)), dtype=tdt)
            b = torch.tensor(RNG.uniform(0.5, 3, (4, 3)), dtype=tdt).t()
        else:
            a = torch.tensor(RNG.integers(-20 if dt.is_signed else 0, 60, (3, 4)), dtype=tdt)
            b = torch.tensor(RNG.integers(1, 6, (4, 3)), dtype=tdt).t()
        if op in ("asin", "acos", "atanh", "erfinv"):
            a = a / 4
        if op == "acosh":
            a = a.abs() + 1
        ha, hb = _upload(a), BE.permute(_upload(b.t().contiguous()), (1, 0))
        row = BE.slice(hb, (slice(0, 1), slice(None)))
        n = ELEMENTWISE_OPS[op]
        if n == 1:
            args, hargs = [a], [ha]
        elif n == 2:
            args, hargs = [a, b[:1]], [ha, row]
        elif op == "where":
            args, hargs = [a > 0, a, b[:1]], [BE.elementwise("gt", [ha, 0], dt), ha, row]
        else:
            args, hargs = [a, b[:1], b[:1] + 2], [ha, row, BE.elementwise("add", [row, 2], dt)]
        ref = _torch_op(op, args)
        ours = _download(BE.elementwise(op, hargs, dt))
        assert ours.dtype == (torch.bool if op in BOOL_RESULT else tdt), (op, dt)
        tol = {torch.float16: 2e-3, torch.float32: 2e-6, torch.float64: 1e-12}.get(tdt, 0)
        torch.testing.assert_close(ours, ref, rtol=tol, atol=tol, equal_nan=True, msg=f"{op} {dt}")


@pytest.mark.parametrize("op", sorted(op for op, n in ELEMENTWISE_OPS.items() if n >= 2 and op != "where"))
def test_elementwise_tensor_beside_numbers(op):
    """The loops for a contiguous operand beside Python numbers (stride 0): the number as the second operand, as the
    first (binary ops), and clamp's two bounds, in every compute dtype, over rows of odd length (vector tails)."""
    for dt in (D.int32, D.int64, D.float32, D.float64, D.bool_):
        if (not dt.is_floating_point and op in _FLOAT_ONLY) or (dt.is_floating_point and op.startswith("bitwise")):
            continue
        if dt is D.bool_ and op not in ("add", "mul", "maximum", "minimum", "eq", "lt", "logical_and",
                                        "logical_xor", "bitwise_and", "bitwise_or"):
            continue
        tdt = TORCH[dt]
        if dt.is_floating_point:
            a, num = torch.tensor(RNG.uniform(-3, 3, (3, 37)), dtype=tdt), 1.75
        elif dt is D.bool_:
            a, num = torch.tensor(RNG.integers(0, 2, (3, 37)), dtype=tdt), True
        else:
            a, num = torch.tensor(RNG.integers(-20, 60, (3, 37)), dtype=tdt), 3
        ha = _upload(a)
        tol = {torch.float32: 2e-6, torch.float64: 1e-12}.get(tdt, 0)
        if op == "clamp":
            calls = [([a, -num, num], [ha, -num, num])]
        else:
            full = torch.full_like(a, num)
            calls = [([a, full], [ha, num]), ([full, a], [num, ha])]
            if op in INT_DIVISIONS and not dt.is_floating_point:
                calls = calls[:1]  # (a zero divisor raises)
        for args, hargs in calls:
            ref = _torch_op(op, args)
            ours = _download(BE.elementwise(op, hargs, dt))
            torch.testing.assert_close(ours, ref, rtol=tol, atol=tol, equal_nan=True, msg=f"{op} {dt} {hargs}")


def test_numbers_cached_by_value_keep_their_bits():
    """The constants arena finds a number by its value: 0.0 and -0.0 stay apart, 2, 2.0 and True-like equal values
    share one element, NaN works, and a stream of distinct doubles (one float32 apart or not) stays bounded."""
    x = BE.from_flat([1.0, -3.0], (2,), D.float32)
    for value, want in ((0.0, [0.0, -0.0]), (-0.0, [-0.0, 0.0]), (0.0, [0.0, -0.0]), (2, [2.0, -6.0]),
                        (2.0, [2.0, -6.0]), (True, [1.0, -3.0]), (1, [1.0, -3.0])):
        got = _download(BE.elementwise("mul", [x, value], D.float32))
        assert got.tolist() == want and torch.equal(torch.signbit(got), torch.signbit(torch.tensor(want))), value
    assert torch.isnan(_download(BE.elementwise("mul", [x, float("nan")], D.float32))).all()
    for i in range(20000):  # one float32 for all: only the by-value keys pile up
        BE.elementwise("mul", [x, 1 + i * 1e-13], D.float32)
    assert len(BE._ctx._scalars) <= 4097 + 8192  # (the by-value keys' bound, the arena's elements)


def test_tanh_float32_simd_accuracy():
    """float32 tanh runs on whole SIMD vectors (simd_math.h): within 2 ulp of PyTorch's over the range, both
    branches and their seam (|x| = 0.625), signed zeros, infinities, NaN, and a length leaving a scalar tail."""
    x = torch.cat([torch.linspace(-12, 12, 200003), torch.tensor(
        [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-30, -1e-45, 0.6249999, 0.625, -0.6250001, 88.0,
         -100.0, 3.4e38])])
    ours, ref = _download(BE.elementwise("tanh", [_upload(x)], D.float32)), torch.tanh(x)
    assert torch.equal(torch.signbit(ours), torch.signbit(ref)) and torch.equal(ours.isnan(), ref.isnan())
    finite = ref.isfinite()
    ulp = torch.finfo(torch.float32).eps * ref[finite].abs().clamp_min(torch.finfo(torch.float32).tiny)
    assert ((ours[finite] - ref[finite]).abs() <= 2 * ulp).all()


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
def test_integer_division_by_zero_raises_before_writing(op):
    a, b = BE.from_flat([5, 7, -3], (3,), D.int64), BE.from_flat([1, 0, 2], (3,), D.int64)
    out = BE.full((3,), 9, D.int64)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        BE.elementwise(op, [a, b], D.int64, out=out)
    assert BE.tolist(out) == [9, 9, 9]


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (5, 300, 7), (67, 33, 530), (4, 257, 8), (130, 513, 9), (3, 16, 17),
                                   (97, 257, 513), (2, 600, 1), (193, 40, 1030)])
def test_gemm_block_edges(m, k, n):
    """Sizes across the micro-tile (2 rows x 4 vectors) and the packed blocks (96 rows, 256 deep, 512 columns), with
    each operand contiguous or a transposed (strided) view."""
    for dt, tol in ((torch.float32, 1e-4), (torch.float64, 1e-12)):
        a, bt = torch.randn(m, k, dtype=dt), torch.randn(n, k, dtype=dt)
        for a_t in (False, True):
            ha = BE.permute(_upload(a.t().contiguous()), (1, 0)) if a_t else _upload(a)
            for b_t in (False, True):
                hb = BE.permute(_upload(bt), (1, 0)) if b_t else _upload(bt.t().contiguous())
                ours = _download(BE.matmul(ha, hb))
                torch.testing.assert_close(ours, a @ bt.t(), rtol=tol, atol=tol, msg=f"{dt} a_t={a_t} b_t={b_t}")


def test_philox_stream_equals_webgpu():
    from devices import DEVICES
    if "webgpu" not in DEVICES:
        pytest.fail("no webgpu adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    from webtorch.backends.webgpu import get_backend as webgpu_backend
    g = webgpu_backend()
    for draw in (lambda be, r: be.uniform((1027,), -2.0, 3.0, D.float32, r),
                 lambda be, r: be.randint((1027,), -5, 1 << 40, D.int64, r),
                 lambda be, r: be.randint((9,), 0, 7, D.int32, r),
                 lambda be, r: be.randperm(1000, D.int64, r)):
        rw, rg = BE.rng_new(1234), g.rng_new(1234)
        draw(BE, rw)  # a second draw continues the stream
        draw(g, rg)
        assert BE.tolist(draw(BE, rw)) == g.tolist(draw(g, rg))
    normal = BE.tolist(BE.normal((1001,), 0.5, 2.0, D.float32, BE.rng_new(7)))
    np.testing.assert_allclose(normal, g.tolist(g.normal((1001,), 0.5, 2.0, D.float32, g.rng_new(7))), atol=2e-5)


def test_gemm_folds_batch_rows_through_a_size_one_row_dim():
    """(2, 3, 1, 8) with its size-1 row dim's stride 1 (a permuted view) times a shared (8, 2): the batch folds into
    rows whose stride is the batch's, not the size-1 dim's."""
    x = torch.randn(2, 3, 8, 1)
    a = x.permute(0, 1, 3, 2)
    m = torch.randn(8, 2)
    ha = BE.permute(_upload(x), (0, 1, 3, 2))
    torch.testing.assert_close(_download(BE.matmul(ha, _upload(m))), a @ m)
