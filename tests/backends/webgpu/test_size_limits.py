"""Every kernel family of the webgpu device past its size limits, against PyTorch on the CPU.

The limits are forced small (the device's limits.forced): maxComputeWorkgroupsPerDimension 32 and a loop budget
of a few dozen iterations per invocation, so a few thousand elements cross them as 2^31 elements would cross the
real ones: every split path (2-D grids, several dispatches with offsets, K slices, segments of a scan,
chunked reductions) runs at test sizes. Each family runs for both adapter kinds (devices.adapter_kind), as
kernels differ between CPU adapters and GPUs. Two real-size cases check the real limits on this adapter.
"""
import numpy as np
import pytest
import torch

import webtorch
from webtorch.backends.webgpu import get_backend

from devices import adapter_kind, tensor_maker as _make, with_grads as _with_grads

WORKGROUPS = 32
LOOP_TRIPS = 40


def _arr(*shape, seed=0, low=None):
    r = np.random.default_rng(seed + sum(shape))
    return r.standard_normal(shape).astype(np.float32) if low is None else r.integers(low, -low, shape).astype(np.int64)


# each case: (lib, t) -> list of result tensors; t(array, grad) makes an input of that library
X = _arr(3, 3000)  # 9,000 elements: 36 workgroups of 256, past the forced 32
XI = _arr(3, 3000, low=-50)
XT = _arr(3000, 3)
XL = _arr(2, 12000)  # rows past a workgroup's forced loop budget (40 x 256)
CASES = {
    "elementwise": lambda lib, t: [((t(X) * 2 + 1).relu() - t(X[0]).sin()).exp().clamp(max=50)],
    "elementwise_strided": lambda lib, t: [t(XT).t() + t(X[:1]), (t(XI) % 7).abs()],
    "reduce_sum": lambda lib, t: _with_grads([t(X, True).sum(1), t(X, True).mean(), t(X, True).sum(0),
                                              t(XL, True).sum(1)], []),
    "reduce_ext": lambda lib, t: [t(X).amax(1), t(X).amin(), t(XT).amax(0), t(XI).sum(1), t(X).prod(1),
                                  t(XL).amax(1), t(XL).amin()],
    "reduce_arg": lambda lib, t: [t(X).argmax(1), t(X).argmin(), t(XT).argmax(0), t(XI).argmin(1),
                                  t(XL).argmax(1), t(XL).argmin()],
    "reduce_norms": lambda lib, t: [t(X).var(1), t(X).std(), t(X).norm(dim=1), t(X).logsumexp(1)],
    "scan": lambda lib, t: _with_grads([t(X, True).cumsum(1)], []) + [
        t(XI).cumsum(1), t(X * 0.01).cumprod(1), *t(X).cummax(1), *t(XT).cummin(0), t(X).logcumsumexp(1)],
    "matmul_dot": lambda lib, t: [t(X[:1]) @ t(XT[:, :1]), lib.dot(t(X[0]), t(X[1])), t(X) @ t(X[0])],
    "matmul": lambda lib, t: _matmul(lib, t),
    "linear": lambda lib, t: _linear(lib, t),
    "conv_pool": lambda lib, t: _conv_pool(lib, t),
    "index": lambda lib, t: _index(lib, t),
    "sort_topk": lambda lib, t: [*t(_arr(300, 20)).sort(1), *t(_arr(300, 20)).topk(5, 1),
                                 *t(_arr(20, 300)).sort(0, descending=True)],
    "softmax_norms": lambda lib, t: _softmax_norms(lib, t),
    "optimizer": lambda lib, t: _optimizer(lib, t),
    "linalg": lambda lib, t: _linalg(lib, t),
}


def _linalg(lib, t):
    a = _arr(24, 24)
    spd = t(a @ a.T / 24 + np.eye(24, dtype=np.float32))
    low = t(np.tril(a) + 8 * np.eye(24, dtype=np.float32))
    rhs = t(_arr(24, 3))
    return [lib.linalg.cholesky(spd), lib.linalg.solve(spd, rhs), lib.linalg.inv(spd),
            lib.linalg.solve_triangular(low, rhs, upper=False)]


def _matmul(lib, t):
    a, b = t(_arr(70, 900), True), t(_arr(900, 90), True)
    bat_a, bat_b = t(_arr(40, 9, 30)), t(_arr(40, 30, 7))
    tall = t(_arr(2000, 5))
    return _with_grads([a @ b, lib.bmm(bat_a, bat_b), tall @ t(_arr(5, 3)), t(_arr(3, 5)) @ tall.t(),
                        t(_arr(5, 3)).t() @ t(_arr(5, 1200))], [a, b])


def _linear(lib, t):
    x, w, b = t(_arr(6, 1000), True), t(_arr(20, 1000), True), t(_arr(20), True)
    return _with_grads([lib.nn.functional.linear(x, w, b).relu()], [x, w, b])


def _conv_pool(lib, t):
    F = lib.nn.functional
    x, w = t(_arr(2, 3, 40, 40), True), t(_arr(8, 3, 3, 3), True)
    y = F.conv2d(x, w, padding=1)
    x1, w1 = t(_arr(1, 2, 3000), True), t(_arr(4, 2, 5), True)
    return _with_grads([y, F.max_pool2d(y, 2), F.avg_pool2d(y, 3, 2), F.conv1d(x1, w1, stride=2),
                        F.adaptive_avg_pool2d(y, 5), F.max_pool1d(x1, 50), F.avg_pool1d(x1, 60),
                        F.adaptive_max_pool1d(x1, 3)], [x, w, x1, w1])


def _index(lib, t):
    F = lib.nn.functional
    src = t(_arr(3000, 4), True)
    idx = t(np.random.default_rng(1).integers(0, 3000, 5000))
    emb = t(_arr(50, 8), True)
    ids = t(np.random.default_rng(2).integers(0, 50, (40, 60)))
    x = t(_arr(5, 800))
    gi = t(np.random.default_rng(3).integers(0, 800, (5, 900)))
    scattered = lib.zeros(5, 800, device=x.device).scatter_add(1, gi, t(_arr(5, 900)))
    return _with_grads([src.index_select(0, idx), F.embedding(ids, emb), x.gather(1, gi), scattered,
                        x[:, gi[0, :300]], x.masked_fill(x > 0.5, 0.0), x.nonzero()], [src, emb])


def _softmax_norms(lib, t):
    F = lib.nn.functional
    x, long_rows = t(_arr(300, 50), True), t(_arr(2, 5000), True)
    g, b = t(_arr(50), True), t(_arr(50), True)
    bn_x, bn_long = t(_arr(400, 6), True), t(_arr(2, 3, 1000), True)
    rm, rv = t(np.zeros(3, np.float32)), t(np.ones(3, np.float32))
    target = t(np.random.default_rng(4).integers(0, 50, 300))
    return _with_grads([F.softmax(x, 1), F.log_softmax(long_rows, 1), F.layer_norm(x, (50,), g, b),
                        F.layer_norm(long_rows, (5000,)), F.batch_norm(bn_x, None, None, training=True),
                        F.batch_norm(bn_long, rm, rv, training=True), F.cross_entropy(x, target)],
                       [x, long_rows, g, b, bn_x, bn_long]) + [rm, rv]


def _optimizer(lib, t):
    p = t(_arr(20000), True)
    q = t(_arr(300, 7), True)
    opt = lib.optim.Adam([p, q], lr=0.1)
    sgd_p = t(_arr(20000), True)
    sgd = lib.optim.SGD([sgd_p], lr=0.1, momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        sgd.zero_grad()
        ((p * p).sum() + (q * q * q).sum() + (sgd_p * sgd_p).sum()).backward()
        opt.step()
        sgd.step()
    return [p.detach(), q.detach(), sgd_p.detach()]


def _compare(got, want, name):
    assert len(got) == len(want), name
    for i, (g, w) in enumerate(zip(got, want)):
        g = g.detach().cpu().numpy() if hasattr(g, "detach") else np.asarray(g)
        w = w.detach().numpy()
        assert g.shape == w.shape, f"{name}[{i}]: shape {g.shape} != {w.shape}"
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w, err_msg=f"{name}[{i}]")
        else:
            np.testing.assert_allclose(g, w, rtol=2e-3, atol=2e-3, equal_nan=True, err_msg=f"{name}[{i}]")


@pytest.mark.parametrize("cpu_adapter", [True, False], ids=["cpu_adapter", "gpu_adapter"])
@pytest.mark.parametrize("family", sorted(CASES))
def test_family_past_forced_limits(family, cpu_adapter):
    want = CASES[family](torch, _make(torch, "cpu"))
    with adapter_kind(cpu_adapter) as be, be.limits.forced(workgroups=WORKGROUPS, loop_trips=LOOP_TRIPS):
        got = CASES[family](webtorch, _make(webtorch, "webgpu"))
        _compare(got, want, family)


def test_random_streams_do_not_depend_on_the_split():
    """Philox streams are a function of the element index: the same with the grid split as without."""
    def draw():
        g = webtorch.Generator(device="webgpu").manual_seed(7)
        return [webtorch.rand(20000, device="webgpu", generator=g).cpu().numpy(),
                webtorch.randn(999, device="webgpu", generator=g).cpu().numpy(),
                webtorch.randint(0, 9, (5000,), device="webgpu", generator=g).cpu().numpy()]
    plain = draw()
    with get_backend().limits.forced(workgroups=WORKGROUPS, loop_trips=LOOP_TRIPS):
        split = draw()
    for a, b in zip(plain, split):
        np.testing.assert_array_equal(a, b)
    assert 0.45 < plain[0].mean() < 0.55


def test_a_dispatch_past_the_limit_is_refused_naming_it():
    with get_backend().limits.forced(workgroups=2), pytest.raises(webtorch.OutOfMemoryError,
                                                    match="maxComputeWorkgroupsPerDimension"):
        (webtorch.arange(50000, device="webgpu") * 2).tolist()


def test_real_limits_inner_dimension_past_65535():
    """lavapipe ends an invocation's loops after 65,535 iterations in all: K = 70,000 was 65535.0."""
    a, b = webtorch.ones(1, 70000, device="webgpu"), webtorch.ones(70000, 1, device="webgpu")
    assert (a @ b).item() == 70000.0
    assert webtorch.dot(a[0], b[:, 0]).item() == 70000.0
    lin = webtorch.nn.functional.linear(a, webtorch.ones(3, 70000, device="webgpu"))
    assert lin.tolist() == [[70000.0] * 3]
    assert webtorch.arange(100000, device="webgpu", dtype=webtorch.float32).argmax().item() == 99999


def test_real_limits_pooling_window_past_65535():
    F = webtorch.nn.functional
    x = webtorch.arange(70000, device="webgpu", dtype=webtorch.float32).view(1, 1, -1)
    assert F.max_pool1d(x, 70000).item() == 69999.0
    assert F.adaptive_max_pool1d(x, 1).item() == 69999.0
    assert F.avg_pool1d(webtorch.ones(1, 1, 70000, device="webgpu"), 70000).item() == 1.0


def test_real_limits_cumsum_of_2_pow_21():
    assert webtorch.ones(2 ** 21, device="webgpu").cumsum(0)[-1].item() == 2097152.0
    assert webtorch.ones(2 ** 21, device="webgpu", dtype=webtorch.int32).cumsum(0)[-1].item() == 2097152
