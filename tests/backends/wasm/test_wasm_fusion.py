"""Fused elementwise chains on the wasm backend (backends/wasm/chain.py): every op of the chain kernel, for every
dtype it serves, bit-identical to the per-op kernels and equal to PyTorch; and the chain materialised at every
boundary -- views, in-place writes, reads to the host, errors, autograd -- so fused programs observe what eager ones
do. The threshold is lowered to 1 element (as WEBTORCH_WASM_FUSION=always) so small tensors fuse."""
import math

import numpy as np
import pytest
import torch

import webtorch
from webtorch import _dtype as D
from webtorch.backends.op_facts import CHAIN_OPS, ELEMENTWISE_OPS
from webtorch.backends.wasm import chain as chain_module, get_backend

BE = get_backend()
CHAIN = BE._ctx.chain
N = 1541  # three blocks of 512 and a tail of 5: a last block shorter than a SIMD vector's multiple
TYPES = tuple(getattr(D, ct) for ct in chain_module.CHAIN_TYPES)
NP = {D.float32: np.float32, D.float64: np.float64, D.int64: np.int64}
RNG = np.random.default_rng(19)


@pytest.fixture
def fused(wasm_cpu):
    """Fusion on, whatever the size, for the test."""
    saved = CHAIN.enabled, CHAIN.min_bytes
    CHAIN.set_enabled(True)
    CHAIN.min_bytes = 1
    yield CHAIN
    CHAIN.set_enabled(saved[0])
    CHAIN.min_bytes = saved[1]


def per_op(fn):
    """fn() with fusion off: the eager per-op path."""
    CHAIN.set_enabled(False)
    try:
        return fn()
    finally:
        CHAIN.set_enabled(True)


def _values(dt, n=N, low=-4, high=4):
    if dt.is_floating_point:
        v = RNG.uniform(low, high, n)
        v[:9] = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, 1e-30]
        return v.astype(NP[dt])
    return RNG.integers(low * 10, high * 10, n).astype(NP[dt])


def _upload(a):
    return BE.from_buffer(a.tobytes(), a.shape, D.ALIASES[a.dtype.name])


def _bits(h):
    return BE.to_bytes(h)


CASES = [(op, dt) for op in CHAIN_OPS for dt in TYPES if (op, dt) in CHAIN.opcodes]


def test_the_chain_serves_the_op_table():
    served = {op for op, _ in CASES}
    assert served == set(CHAIN_OPS)
    assert all(ELEMENTWISE_OPS[op] <= 2 for op in served)
    assert ("floor_divide", D.int64) not in CHAIN.opcodes and ("floor_divide", D.float32) in CHAIN.opcodes


@pytest.mark.parametrize("op,dt", CASES, ids=[f"{op}-{dt.name}" for op, dt in CASES])
def test_every_op_fused_is_bit_identical_to_per_op_and_equals_torch(fused, op, dt):
    a = _values(dt)
    b = _values(dt) if dt.is_floating_point else np.abs(_values(dt, low=0, high=1)).astype(NP[dt])  # (shifts, pow)
    k = 0.75 if dt.is_floating_point else 3
    binary = ELEMENTWISE_OPS[op] == 2

    def run():
        ha, hb = _upload(a), _upload(b)
        x = BE.elementwise("add", (ha, k), dt)  # a pending operand
        if binary:
            outs = [BE.elementwise(op, (x, hb), dt), BE.elementwise(op, (k, x), dt), BE.elementwise(op, (x, k), dt)]
        else:
            outs = [BE.elementwise(op, (x,), dt)]
        outs.append(BE.elementwise("mul", (outs[0], hb), dt))  # a pending result read by a later op
        return len(CHAIN.ops), [_bits(h) for h in outs]

    (recorded, got), (_, ref) = run(), per_op(run)
    assert recorded == 5 if binary else 3
    assert got == ref
    tdt = getattr(torch, dt.name)
    fn = getattr(torch, op)
    x = torch.from_numpy(a) + k
    kt = torch.tensor(k, dtype=tdt)
    bt = torch.from_numpy(b)
    want = [fn(x, bt), fn(kt, x), fn(x, kt)] if binary else [fn(x)]
    want.append(want[0] * bt)
    for g, w in zip(got, want):
        g = torch.frombuffer(bytearray(g), dtype=tdt)
        if dt.is_floating_point:
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6, equal_nan=True)
        else:
            assert torch.equal(g, w)


@pytest.fixture
def xwb(fused):
    webtorch.manual_seed(0)
    return [webtorch.randn(3, 517) for _ in range(3)]


K_GELU = 0.7978845608028654


def gelu_tanh(x):
    return x * 0.5 * (1.0 + ((x + x * x * x * 0.044715) * K_GELU).tanh())


def silu_affine(x, w, b):
    y = (x - 0.25) * 1.5 * w + b
    return y * y.sigmoid()


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.stride() == b.stride()
    a, b = (np.ascontiguousarray(t.numpy()).view(np.uint8) for t in (a, b))
    assert np.array_equal(a, b)


def _torch(t):
    return torch.from_numpy(t.detach().numpy().copy())


@pytest.mark.parametrize("fn", [gelu_tanh, silu_affine])
def test_chains_of_the_public_ops(xwb, fn):
    args = xwb[:1] if fn is gelu_tanh else xwb
    got = fn(*args)
    assert len(CHAIN.ops) >= 6
    _same(got, per_op(lambda: fn(*args)))
    torch.testing.assert_close(_torch(got), fn(*[_torch(t) for t in args]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float64", "int64", "int32"])
def test_chains_of_other_dtypes(fused, dtype):  # (int32 has no chain kernel: it runs per op)
    dt = getattr(webtorch, dtype)
    x = webtorch.arange(-700, 841).to(dt)
    w = (webtorch.arange(1541) % 7).to(dt)

    def fn(x, w):
        return ((x * 3 - w) * (w + 2)).maximum(x).abs() - 1

    got = fn(x, w)
    assert bool(CHAIN.ops) == (dtype in chain_module.CHAIN_TYPES)
    _same(got, per_op(lambda: fn(x, w)))
    assert torch.equal(_torch(got), fn(_torch(x), _torch(w)))


def test_mixed_dtypes_promote_as_per_op(fused):
    x32 = webtorch.randn(1541)
    x64 = webtorch.randn(1541, dtype=webtorch.float64)
    i64 = webtorch.arange(1541)

    def fn():
        return (x32 * 2 + x64) * i64 - (i64 * 3 + 0.5), (i64 * 2 + True) * 3, x32 * 2.5 + i64

    got, ref = fn(), per_op(fn)
    for g, r in zip(got, ref):
        _same(g, r)
    want = (_torch(x32) * 2 + _torch(x64)) * _torch(i64) - (_torch(i64) * 3 + 0.5)
    torch.testing.assert_close(_torch(got[0]), want)
    assert [g.dtype for g in got] == [webtorch.float64, webtorch.int64, webtorch.float32]


def test_views_of_a_pending_result(xwb):
    x = xwb[0]
    y = gelu_tanh(x)
    pending = len(CHAIN.ops)
    v, t = y[1:, 3:], y.t()
    assert len(CHAIN.ops) == pending  # a view reads no bytes: the chain waits
    z = t * 2 + 1  # a transposed operand does not fuse: the chain runs first
    assert z.shape == (517, 3)
    ref = per_op(lambda: gelu_tanh(x))
    _same(v.contiguous(), ref[1:, 3:].contiguous())
    _same(z, per_op(lambda: ref.t() * 2 + 1))
    r = y.reshape(-1) * 3  # a contiguous view of a pending result fuses
    _same(r, per_op(lambda: ref.reshape(-1) * 3))


def test_an_in_place_write_to_an_input_runs_the_chain_first(xwb):
    x = xwb[0]
    keep = per_op(lambda: gelu_tanh(x))
    y = gelu_tanh(x)
    x.add_(1)  # PyTorch computed y before this write
    _same(y, keep)
    x.copy_(webtorch.zeros(3, 517))
    _same(y, keep)


def test_a_primitive_looked_up_before_its_operands_record_runs_the_chain_first(fused):
    """``be.reduce("sum", be.elementwise("exp", ...))`` looks ``be.reduce`` up before its operand records into the
    chain (logsumexp's forward): the guard must be in what runs, not chosen at lookup time. (Binding the guard only
    while a chain is pending read logsumexp's pending exp as -inf.) reduce and matmul run the chain themselves
    (backend.RUN_CHAIN_FIRST)."""
    a = RNG.uniform(-4, 4, (23, 67)).astype(np.float32)
    x = webtorch.tensor(a)  # (not read through .numpy(): an operand NumPy aliases never records)
    CHAIN.flush()
    got = x.logsumexp(1)
    _same(got, per_op(lambda: x.logsumexp(1)))
    torch.testing.assert_close(_torch(got), torch.from_numpy(a).logsumexp(1))
    w = webtorch.tensor(RNG.uniform(-1, 1, (67, 5)).astype(np.float32))
    _same((x * 2) @ w, per_op(lambda: (x * 2) @ w))
    _same((x.exp() * 0.5).sum(0), per_op(lambda: (x.exp() * 0.5).sum(0)))


def test_in_place_ops_on_a_pending_result(xwb):
    x, w, _ = xwb
    y = x * 2 + 1
    y.mul_(w)
    y[0, 0] = 5.0
    ref = per_op(lambda: x * 2 + 1)
    ref.mul_(w)
    ref[0, 0] = 5.0
    _same(y, ref)


def test_reads_to_the_host(xwb):
    x = xwb[0]
    ref = per_op(lambda: gelu_tanh(x))
    assert gelu_tanh(x)[1, 2].item() == ref[1, 2].item()
    assert gelu_tanh(x).tolist() == ref.tolist()
    assert repr(gelu_tanh(x)) == repr(ref)
    assert gelu_tanh(x).sum().item() == ref.sum().item()


def test_a_numpy_alias_is_never_read_late(xwb):
    x = xwb[0]
    first = x[0, 0].item()
    a = x.numpy()  # aliases the wasm memory: a write through it bypasses the backend
    y = x * 2  # PyTorch computes it here, before the write below
    a[0, 0] = 100.0
    assert y[0, 0].item() == first * 2
    assert (x * 2)[0, 0].item() == 200.0


def test_a_numpy_alias_under_another_dtype_is_never_read_late(fused):
    x = webtorch.ones(1541, dtype=webtorch.float64)
    a = x.view(webtorch.int64).numpy()  # the same bytes as x's, aliased under int64
    y = x * 2
    a[0] = 0
    assert y[0].item() == 2.0
    i = webtorch.ones(1541, dtype=webtorch.int64)
    b = i.numpy()
    z = i.view(webtorch.float64) * 2  # read under float64: the int64 storage is still NumPy's
    b[0] = 0
    assert z[0].item() == 1e-323 and z[1].item() == 1e-323


def test_errors_are_raised_by_the_call_that_caused_them(fused):
    i = webtorch.arange(1, 1542)
    y = i * 3 + 1
    z = webtorch.zeros(1541, dtype=webtorch.int64)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        y // z  # integer division: never deferred
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        y % z
    with pytest.raises(RuntimeError, match="must match the size"):
        y + webtorch.ones(3, dtype=webtorch.int64)
    assert (y == per_op(lambda: i * 3 + 1)).all().item()


def test_autograd_through_a_fused_chain(xwb):
    x, w, b = (t.detach().requires_grad_() for t in xwb)
    silu_affine(x, w, b).sum().backward()
    grads = [t.grad for t in (x, w, b)]

    def ref():
        xs, ws, bs = (t.detach().requires_grad_() for t in xwb)
        silu_affine(xs, ws, bs).sum().backward()
        return [t.grad for t in (xs, ws, bs)]

    for g, r in zip(grads, per_op(ref)):
        _same(g, r)
    tx, tw, tb = (_torch(t).requires_grad_() for t in xwb)
    silu_affine(tx, tw, tb).sum().backward()
    for g, t in zip(grads, (tx, tw, tb)):
        torch.testing.assert_close(_torch(g), t.grad, rtol=1e-4, atol=1e-5)


def test_held_intermediates_are_written_and_dead_ones_are_not_needed(xwb):
    x, w, _ = xwb
    t = x * 2  # held: reaches memory
    u = t + w  # dead once v is recorded
    v = u.exp()
    del u
    ref_t, ref_v = per_op(lambda: x * 2), per_op(lambda: (x * 2 + w).exp())
    _same(t, ref_t)
    _same(v, ref_v)


def test_chains_past_their_limits(fused):
    x, small = webtorch.randn(1541), webtorch.randn(7)
    ws = [webtorch.randn(1541) for _ in range(24)]

    def wide():  # 24 results alive at once: more than the registers
        ts = [x * w for w in ws]
        s = ts[0]
        for t in ts[1:]:
            s = s + t
        return s

    def long():  # more ops than one chain holds, and more numbers
        y = x
        for k in range(2 * chain_module.MAX_OPS):
            y = y * 0.999 + k / 7
        return y

    def shapes():  # the element count and the dtype change between ops
        y = x * 2
        z = small * 3
        return y + 1, z + 1, (y.double() * 2 + 1)

    for fn in (wide, long, shapes):
        got, ref = fn(), per_op(fn)
        for g, r in zip(got if isinstance(got, tuple) else (got,), ref if isinstance(ref, tuple) else (ref,)):
            _same(g, r)


def test_small_tensors_and_fusion_off_run_per_op(wasm_cpu):
    saved = CHAIN.enabled, CHAIN.min_bytes
    try:
        CHAIN.set_enabled(True)
        CHAIN.min_bytes = chain_module.MIN_BYTES
        x = webtorch.randn(64)
        x * 2 + 1
        assert not CHAIN.ops  # below the threshold: nothing gained
        big = webtorch.randn(chain_module.MIN_BYTES // 4)  # float32: at the threshold
        y = big * 2 + 1
        assert len(CHAIN.ops) == 2
        CHAIN.set_enabled(False)
        assert not CHAIN.ops
        big * 2 + 1
        assert not CHAIN.ops
        _same(y, big * 2 + 1)
    finally:
        CHAIN.set_enabled(saved[0])
        CHAIN.min_bytes = saved[1]
