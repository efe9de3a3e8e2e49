"""int64 on the webgpu device (two 32-bit words per element): values that need the high word -- sums past 2^31,
products, negatives, the boundaries +-(2^63 - 1) -- equal PyTorch's CPU through arithmetic, comparisons,
conversions, reductions, scans, sorting, indexing and random draws, inside fused kernels too; an int64 index is
narrowed to a 32-bit address only after its range check, never wrapped."""
import io

import numpy as np
import pytest
import torch

import webtorch

from devices import DEVICES, adapter_kind
from optest import check
from webgpu_counts import counted

DEV = "webgpu"
MAX, MIN = 2 ** 63 - 1, -(2 ** 63)
BIG = np.array([[0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 60000],
                [MAX, MIN, MAX - 1, MIN + 1, 4999950000, -(2 ** 40) - 3, 3 ** 39]], dtype=np.int64)
OTHER = np.array([[7, -3, 2 ** 33 + 1, -5, 3, -(2 ** 32), 60000],
                  [2, -2, 9, 2 ** 62, -7, 11, -(3 ** 20)]], dtype=np.int64)


def _no_fallback(fn):
    out, n = counted(fn)
    assert n["host_fallbacks"] == 0, n
    return out


def test_the_reported_cases():
    assert webtorch.arange(100000, device=DEV).sum().item() == 4999950000
    assert (webtorch.tensor([60000], device=DEV) * 60000).tolist() == [3600000000]
    assert (webtorch.tensor([2 ** 31 - 1], device=DEV) + 1).tolist() == [2 ** 31]
    seed = webtorch.empty((), dtype=webtorch.int64, device=DEV).random_().item()  # RandomSampler's seed
    assert 0 <= seed < 2 ** 63


def test_storage_round_trips_the_full_range():
    vals = BIG.tolist()
    t = webtorch.tensor(vals, device=DEV)
    assert t.dtype is webtorch.int64 and t.tolist() == vals and t[1, 0].item() == MAX
    assert webtorch.tensor(9223372036854775806, device=DEV).item() == 9223372036854775806
    np.testing.assert_array_equal(t.cpu().numpy(), BIG)
    np.testing.assert_array_equal(webtorch.from_numpy(BIG).to(DEV).cpu().numpy(), BIG)
    assert str(t).replace(", device='webgpu:0'", "") == str(torch.tensor(BIG))
    assert webtorch.full((2,), MIN, dtype=webtorch.int64, device=DEV).tolist() == [MIN, MIN]
    buf = io.BytesIO()
    webtorch.save({"t": t}, buf)
    buf.seek(0)
    assert torch.load(buf)["t"].tolist() == vals
    with pytest.raises(RuntimeError, match="int64_t without overflow"):
        webtorch.full((1,), 2 ** 63, dtype=webtorch.int64, device=DEV)


def test_arithmetic_and_bitwise_wrap_as_pytorch():
    _no_fallback(lambda: check(lambda m, a, b: (a + b, a - b, a * b, -a, a.abs(), a * a, a + 2 ** 40, a - MAX,
                                                a * -3, a & b, a | b, a ^ b, ~a, a.sign(), a ** 2, b ** 3,
                                                m.maximum(a, b), m.minimum(a, b), a.clamp(-(2 ** 40), 2 ** 35),
                                                m.where(a > b, a, b), a.square(), m.relu(a) if False else a),
                               BIG, OTHER, device=DEV, grad=False))


def test_division_and_remainder():
    b = np.where(OTHER == 0, 1, OTHER)
    _no_fallback(lambda: check(lambda m, a, b: (a // b, a % b, m.fmod(a, b), m.remainder(a, b), a // 7, a % -7,
                                                m.div(a, b, rounding_mode="floor"),
                                                m.div(a, b, rounding_mode="trunc")),
                               BIG, b, device=DEV, grad=False))


def test_comparisons():
    _no_fallback(lambda: check(lambda m, a, b: (a == b, a != b, a < b, a <= b, a > b, a >= b, a > 2 ** 31,
                                                a == MIN, a < 0, m.logical_and(a, b), m.logical_not(a),
                                                m.signbit(a), m.isnan(a), m.isfinite(a)),
                               BIG, OTHER, device=DEV, grad=False))


def test_conversions():
    floats = np.array([0.0, 1.9, -1.9, 16777217.0, 3e9, -3e9, 1.5e18, -9.2e18, 2.0 ** 62, 9.3e18, -1e30,
                       float("nan"), float("inf"), float("-inf")], dtype=np.float32)
    _no_fallback(lambda: check(lambda m, x: x.long(), floats, device=DEV, grad=False))
    # int64 -> float32 rounds to nearest even: 2^24 + 1, ties at 2^53 + 2^29, 2^63 - 1, exact small values
    ints = np.array([2 ** 24 + 1, 2 ** 24 + 3, 2 ** 53 + 2 ** 29, 2 ** 53 + 3 * 2 ** 29, 2 ** 53 + 2 ** 29 + 1,
                     MAX, MIN, -(2 ** 40) - 1, 12345, -7, 0], dtype=np.int64)
    _no_fallback(lambda: check(lambda m, a: (a.float(), a.int(), a.to(m.uint8), a.to(m.int8), a.to(m.int16),
                                             a.bool(), a.to(m.uint8).long(), a.int().long(), a.bool().long(),
                                             a.float().long()),
                               ints, device=DEV, grad=False))


def test_promotion_with_other_dtypes():
    i32 = np.array([[2 ** 31 - 1, -(2 ** 31), 5, 0, 1, -1, 7]] * 2, dtype=np.int32)
    flags = (OTHER > 0)
    _no_fallback(lambda: check(lambda m, a, b, c, f: (a + b, b * a, a * c.float(), a + 0.5, a * 1.5, a + f,
                                                      a * f, c + a[0, 3], b.long() * b.long(), (a > b) & f, a / 3,
                                                      a / c, m.true_divide(a, 7)),
                               BIG, i32, OTHER.astype(np.float32), flags, device=DEV, grad=False, rtol=1e-6))


def test_reductions_need_the_high_word():
    big = np.full((3, 1000), 2 ** 31 - 5, dtype=np.int64)
    big[1] = -(2 ** 40)
    big[2, ::3] = MAX // 4000
    for cpu in (True, False):  # the chunked CPU-adapter passes and the workgroup trees
        with adapter_kind(cpu):
            _no_fallback(lambda: check(lambda m, a, b: (a.sum(), a.sum(1), a.sum(0), a.amax(1), a.amin(0),
                                                        a.max(), a.min(), a.argmax(1), a.argmin(1), a.argmax(),
                                                        b.prod(), b.prod(1), b.sum(1, keepdim=True)),
                                       big, BIG, device=DEV, grad=False))


def test_int32_and_bool_sums_promote_to_int64():
    i32 = np.full(70000, 2 ** 31 - 1, dtype=np.int32)
    flags = np.ones((4, 70000), dtype=bool)
    for cpu in (True, False):
        with adapter_kind(cpu):
            _no_fallback(lambda: check(lambda m, a, f: (a.sum(), a.prod(), f.sum(), f.sum(1), (a > 0).sum(),
                                                        a.to(m.uint8).sum(), a.to(m.int16).sum()),
                                       i32, flags, device=DEV, grad=False))


def test_argmax_over_a_long_row_finds_a_late_index():
    a = np.zeros(60000, dtype=np.int64)
    a[50001] = 2 ** 40
    a[7] = 2 ** 40 - 1
    _no_fallback(lambda: check(lambda m, x: (x.argmax(), x.argmin(), (-x).argmin(), x.max(0)), a, device=DEV,
                               grad=False))


@pytest.mark.parametrize("length", [5, 700])  # one invocation per row, and a workgroup scan with carries
def test_scans(length):
    rng = np.random.default_rng(0)
    a = rng.integers(-(2 ** 40), 2 ** 40, size=(3, length), dtype=np.int64)
    small = rng.integers(-3, 4, size=(2, length), dtype=np.int64)
    i32 = np.full((2, length), 2 ** 30, dtype=np.int32)
    _no_fallback(lambda: check(lambda m, x, s, w: (x.cumsum(1), x.cumsum(0), s.cumprod(1), x.cummax(1), x.cummin(1),
                                                   w.cumsum(1), (w > 0).cumsum(1), x.flip(1).cumsum(1)),
                               a, small, i32, device=DEV, grad=False))


def test_sort_topk_searchsorted():
    x = BIG.copy()
    x[0, 2] = x[0, 4]  # a tie: stable order by index
    seq = np.sort(OTHER.ravel())
    _no_fallback(lambda: check(lambda m, a, s, v: (m.sort(a, 1), m.sort(a, 1, descending=True), m.argsort(a, 0),
                                                   m.topk(a, 3, 1), m.searchsorted(s, v),
                                                   m.searchsorted(s, v, right=True)),
                               x, seq, BIG, device=DEV, grad=False))


def test_fused_chain_with_an_int64_operand():
    a = webtorch.tensor(BIG, device=DEV)
    b = webtorch.tensor(OTHER, device=DEV)
    c = webtorch.tensor(OTHER.astype(np.int32), device=DEV)
    r, n = counted(lambda: (((a + b) * 3 - c) > a).sum().item())
    ta, tb = torch.tensor(BIG), torch.tensor(OTHER)
    assert r == (((ta + tb) * 3 - tb.int()) > ta).sum().item()
    assert n == {"dispatches": 1, "submits": 1, "host_fallbacks": 0}


def test_int64_indices_narrow_only_after_their_range_check():
    x = np.arange(40, dtype=np.float32).reshape(8, 5)
    idx = np.array([7, 0, 3, 3], dtype=np.int64)
    neg = np.array([-1, 2, -8], dtype=np.int64)
    _no_fallback(lambda: check(lambda m, a, i, n: (a.index_select(0, i), a[i], a[n], a[:, i[:2] - 3],
                                                   m.gather(a, 0, i[:2].reshape(2, 1).expand(2, 5)),
                                                   m.nn.functional.embedding(i, a), a.argmax(1), a[a.argmax(0)]),
                               x, idx, neg, device=DEV, grad=False))
    check(lambda m, a, i: m.nn.functional.cross_entropy(a, i), x[:4], idx[:4] % 5, device=DEV, grad=False)
    t = webtorch.tensor(x, device=DEV)
    # 2^32 + 1 computed on the device: its low word (1) is a valid row, the value is not
    far = webtorch.tensor([1], device=DEV) * (2 ** 32) + 1
    for op in (lambda: t[far], lambda: t.index_select(0, far), lambda: webtorch.nn.functional.embedding(far, t)):
        with pytest.raises(IndexError):
            op().tolist()
    # gather's error type, as PyTorch's (a value checked on the device past int32 is reported as 2147483647)
    with pytest.raises(RuntimeError, match="is out of bounds for dimension 0 with size 8"):
        t.gather(0, far.reshape(1, 1)).tolist()
    with pytest.raises(IndexError):
        webtorch.nn.functional.cross_entropy(t[:1], far).item()


def test_scatter_and_index_put_of_int64_values():
    h = np.zeros((3, 4), dtype=np.int64)
    src = BIG[:, :4].copy()
    idx = np.array([[0, 1, 2, 0], [2, 0, 1, 1]], dtype=np.int64)
    check(lambda m, a, s, i: (a.clone().scatter_(0, i, s), a.clone().scatter_add(0, i, s),
                              a.clone().index_put_((i[0, :2], i[1, :2]), s[0, :2])),
          h, src, idx, device=DEV, grad=False)


def test_random_int64_ranges():
    gen = webtorch.Generator(device=DEV).manual_seed(3)
    for low, high in ((2 ** 40, 2 ** 40 + 10), (-(2 ** 62), 2 ** 62), (-5, 2 ** 33), (0, 2 ** 63 - 1)):
        r = webtorch.randint(low, high, (4000,), generator=gen, device=DEV)
        v = r.cpu().numpy()
        assert r.dtype is webtorch.int64 and v.min() >= low and v.max() < high
        if high - low > 2 ** 60:  # the high word is random too
            assert len(np.unique(v >> 32)) > 1000
    s = webtorch.empty((1000,), dtype=webtorch.int64, device=DEV).random_(generator=gen).cpu().numpy()
    assert s.min() >= 0 and s.max() > 2 ** 62  # [0, 2^63 - 1)
    r32 = webtorch.randint(-3, 3, (1000,), dtype=webtorch.int32, generator=gen, device=DEV).cpu().numpy()
    assert set(r32.tolist()) == {-3, -2, -1, 0, 1, 2}
    with pytest.raises(RuntimeError, match="spans more than 2\\^63"):
        webtorch.randint(MIN, MAX, (3,), device=DEV)


def test_int64_scatter_of_values_that_fit_int32_stays_on_the_device():
    h = webtorch.full((3, 4), 5, dtype=webtorch.int64, device=DEV)
    src = webtorch.arange(8, device=DEV).reshape(2, 4)
    idx = webtorch.tensor([[0, 1, 2, 0], [2, 0, 1, 1]], device=DEV)
    th, ts, ti = torch.full((3, 4), 5), torch.arange(8).reshape(2, 4), torch.tensor([[0, 1, 2, 0], [2, 0, 1, 1]])
    r = _no_fallback(lambda: (h.clone().scatter_(0, idx, src).tolist(),
                              h.clone().scatter_reduce(0, idx, src, "amin").tolist(),
                              h.clone().index_put_((idx[0, :2], idx[1, :2]), src[1, :2]).tolist()))
    assert r == (th.clone().scatter_(0, ti, ts).tolist(), th.clone().scatter_reduce(0, ti, ts, "amin").tolist(),
                 th.clone().index_put_((ti[0, :2], ti[1, :2]), ts[1, :2]).tolist())
    computed = webtorch.arange(8, device=DEV).reshape(2, 4) * 3 - 5  # no known bounds: its range is read back
    counts = webtorch.zeros(5, dtype=webtorch.int64, device=DEV)
    r = _no_fallback(lambda: (h.clone().scatter_add(0, idx, computed).tolist(),
                              counts.index_put_((idx.reshape(-1) % 5,), webtorch.tensor(1, device=DEV), True).tolist()))
    assert r == (th.clone().scatter_add(0, ti, ts * 3 - 5).tolist(),
                 torch.zeros(5, dtype=torch.int64).index_put_((ti.reshape(-1) % 5,), torch.tensor(1), True).tolist())


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_moves_both_words(mode):
    x = BIG[:, :6].reshape(1, 2, 2, 3)
    kw = dict(value=-(2 ** 40) - 1) if mode == "constant" else {}
    _no_fallback(lambda: check(lambda m, a: m.nn.functional.pad(a, (2, 1, 1, 1), mode=mode, **kw), x, device=DEV,
                               grad=False))
    if mode == "constant":  # past the kernel's 6 dims: the leading unpadded dims fold
        y = np.arange(64, dtype=np.int64).reshape(2, 2, 2, 2, 2, 2) * 2 ** 35
        _no_fallback(lambda: check(lambda m, a: m.nn.functional.pad(a, (1, 0), value=3), y, device=DEV, grad=False))


def test_pooling_narrows_only_values_known_to_fit():
    x = np.arange(-20, 30, dtype=np.int64).reshape(1, 2, 5, 5)
    _no_fallback(lambda: check(lambda m, a: (m.nn.functional.avg_pool2d(a, 2, 2, padding=1),
                                             m.nn.functional.max_pool2d(a, 2), m.nn.functional.max_pool2d(a, 2, 2, 0, 1,
                                                                                                          False, True)),
                               x, device=DEV, grad=False))
    big = webtorch.tensor(x, device=DEV) * 2 ** 34  # computed on the device: no known bounds, values past int32
    ref = torch.nn.functional.max_pool2d(torch.tensor(x) * 2 ** 34, 2)
    assert webtorch.nn.functional.max_pool2d(big, 2).tolist() == ref.tolist()  # on the host (counted), exact


def test_int64_indices_are_read_in_place_by_the_take_kernel():
    x = webtorch.tensor(np.arange(12, dtype=np.float32), device=DEV)
    i = webtorch.tensor([5, 0, 2, 11], device=DEV)  # uploaded: bounds known, no readback for the check
    r, n = counted(lambda: (x.index_select(0, i).tolist(), x[i[1:]].tolist(), x.gather(0, i).tolist()))
    assert r == ([5.0, 0.0, 2.0, 11.0], [0.0, 2.0, 11.0], [5.0, 0.0, 2.0, 11.0])
    assert n == {"dispatches": 3, "submits": 3, "host_fallbacks": 0}  # one take each, no narrowing copy


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_shifts_by_every_amount(dtype, device):
    vals = BIG.ravel().astype(dtype)
    a = np.repeat(vals, 12)
    s = np.tile(np.array([-2, -1, 0, 1, 5, 7, 8, 15, 31, 32, 63, 64], dtype=dtype if dtype != "uint8" else "int16"),
                len(vals)).astype(dtype)
    _no_fallback(lambda: check(lambda m, x, y: (x << y, x >> y, m.bitwise_left_shift(x, 3), x >> 1,
                                                m.bitwise_right_shift(x, y)),
                               a, s, device=device, grad=False))


def test_integer_powers():
    base = np.array([[0, 1, -1, 2, -3, 7, 2 ** 20, -(2 ** 31)]] * 4, dtype=np.int64)
    exps = np.array([[-2], [0], [3], [5]], dtype=np.int64) * np.ones((1, 8), dtype=np.int64)
    _no_fallback(lambda: check(lambda m, a, e: (a ** e, a ** 3, a.pow(2), m.pow(a, e.abs())), base, exps,
                               device=DEV, grad=False))


def test_int64_division_by_zero_is_reported_by_the_device():
    a = webtorch.tensor([5, -7, 2 ** 40], device=DEV)
    zero = webtorch.tensor([1, 0, 2 ** 32], device=DEV) * 0  # computed on the device: the kernel checks it
    for fn in (lambda: a // 0, lambda: a % zero, lambda: webtorch.fmod(a, zero)):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn().tolist()
    assert (a // 3).tolist() == [1, -3, 366503875925]
