"""The webgpu device itself: kernels compile, fusion happens, memory is recycled, dtype errors are clear."""
import gc

import numpy as np
import pytest

import webtorch
from webtorch.backends import webgpu as wg

from webgpu_counts import counted


def test_every_shader_compiles_on_naga():
    from webtorch.backends.webgpu import wgsl_loader
    names = wgsl_loader.names()
    assert {"matmul_tiled", "matmul_naive", "random_philox"} <= set(names)
    rt = wg.get_backend().rt
    for name in names:
        rt.compile(name, wgsl_loader.template(name))


def test_shader_specializations_compile():
    from webtorch.backends.webgpu import wgsl_loader
    rt = wg.get_backend().rt
    from webtorch.backends.webgpu.matmul_kernels import tiled_source
    rt.compile("matmul_tiled", tiled_source())
    for kind, out in ((1, "f32"), (2, "i32")):
        rt.compile("random_philox", wgsl_loader.specialize("random_philox", KIND=f"{kind}u", OutT=out))


def test_int64_kernel_variants_compile_on_naga():
    from webtorch.backends.webgpu.backend import int64_kernel_sources
    rt = wg.get_backend().rt
    for name, src in int64_kernel_sources().items():
        rt.compile(name, src)


def test_compile_error_names_kernel_and_line():
    from webtorch.backends.webgpu.runtime import ShaderCompileError
    bad = "@compute @workgroup_size(1)\nfn main() {\n  let x: f32 = undefined_name;\n}\n"
    with pytest.raises(ShaderCompileError, match="bad_kernel") as e:
        wg.get_backend().rt.compile("bad_kernel", bad)
    assert "undefined_name" in str(e.value)


def test_elementwise_chain_of_five_is_one_kernel():
    x = webtorch.rand(64, 33, device="webgpu")
    y, n = counted(lambda: ((x * 2.0 + 1.0).exp().sin() - 0.5).relu())
    assert (n["dispatches"], n["submits"]) == (1, 1)
    ref = np.maximum(np.sin(np.exp(x.cpu().numpy() * 2 + 1)) - 0.5, 0)
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=1e-4, atol=1e-5)


def test_chain_through_views_and_broadcast_fuses_into_reduction():
    a = webtorch.rand(8, 16, device="webgpu")
    b = webtorch.rand(16, device="webgpu")
    s, n = counted(lambda: ((a.t() * 3.0).t() + b).tanh().sum(1))
    assert n["dispatches"] == 1
    ref = np.tanh(a.cpu().numpy() * 3 + b.cpu().numpy()).sum(1)
    np.testing.assert_allclose(s.cpu().numpy(), ref, rtol=1e-5, atol=1e-5)


def test_inplace_fuses_and_keeps_overlap_semantics():
    x = webtorch.arange(10, dtype=webtorch.float32, device="webgpu")
    _, n = counted(lambda: x.mul_(2).add_(1))
    assert n["dispatches"] == 1  # consecutive in-place ops: one kernel, no temporary buffers
    assert x.tolist() == [2.0 * i + 1 for i in range(10)]
    x[1:] += x[:-1].clone() * 0 + x[:-1]  # overlapping read/write: reads the old values
    ref = [2.0 * i + 1 for i in range(10)]
    ref = [ref[0]] + [ref[i] + ref[i - 1] for i in range(1, 10)]
    assert x.tolist() == ref
    x.copy_(webtorch.arange(10, dtype=webtorch.float32, device="webgpu"))
    seen, n = counted(lambda: (x.mul_(0.5).clone(), x.add_(1).exp_()))
    assert n["dispatches"] == 3  # the clone reads the value between: mul_ is stored, clone, add_ + exp_ fused
    assert seen[0].tolist() == [0.5 * i for i in range(10)]
    np.testing.assert_allclose(x.cpu().numpy(), np.exp(0.5 * np.arange(10) + 1.0), rtol=1e-5)
    x.copy_(webtorch.arange(10, dtype=webtorch.float32, device="webgpu"))
    x[2:].mul_(2).add_(1)  # a view at an offset: not fused, still right
    assert x.tolist() == [0.0, 1.0] + [2.0 * i + 1 for i in range(2, 10)]


def test_views_see_inplace_writes():
    base = webtorch.zeros(3, 4, device="webgpu")
    col = base[:, 1]
    col.fill_(5.0) if hasattr(col, "fill_") else col.copy_(webtorch.full((3,), 5.0))
    base.t()[2].add_(1.0)
    ref = np.zeros((3, 4), np.float32)
    ref[:, 1] = 5
    ref[:, 2] += 1
    np.testing.assert_array_equal(base.cpu().numpy(), ref)


def test_memory_flat_over_many_steps():
    w = webtorch.randn(32, 16, device="webgpu", requires_grad=True)
    x = webtorch.randn(8, 32, device="webgpu")

    def step():
        loss = ((x @ w).tanh() ** 2).mean()
        loss.backward()
        with webtorch.no_grad():
            w.sub_(0.1 * w.grad)
        w.grad = None
        return loss.item()

    for _ in range(3):
        step()
    gc.collect()  # tensors of earlier tests, held by reference cycles
    first = webtorch.webgpu.memory_allocated()
    _, n = counted(step)
    assert n["submits"] == 1 and n["dispatches"] <= 5  # forward, backward and update: 1 submit, 5 kernels today
    for _ in range(50):
        step()
        assert webtorch.webgpu.memory_allocated() == first
    assert webtorch.webgpu.max_memory_allocated() >= first


def test_empty_cache_and_reserved():
    t = webtorch.ones(1000, device="webgpu")
    t.sum().item()
    del t
    webtorch.webgpu.empty_cache()
    assert webtorch.webgpu.memory_reserved() == webtorch.webgpu.memory_allocated()


def test_float64_error_names_device():
    with pytest.raises(TypeError, match="webgpu Tensor to float64"):
        webtorch.ones(3, dtype=webtorch.float64, device="webgpu")
    with pytest.raises(TypeError, match="float64"):
        webtorch.ones(3, device="webgpu").double()


def test_int64_keeps_its_full_range():
    big = [1, 2 ** 40, -(2 ** 63), 2 ** 63 - 1]
    assert webtorch.tensor(big, device="webgpu").tolist() == big
    assert webtorch.tensor(np.array([-(2 ** 35)], dtype=np.int64)).to("webgpu").item() == -(2 ** 35)


def test_bool_and_int_roundtrip():
    b = webtorch.tensor([True, False, True], device="webgpu")
    assert b.tolist() == [True, False, True]
    assert b._bytes() == b"\x01\x00\x01"
    i = webtorch.tensor([[3, -4]], dtype=webtorch.int32, device="webgpu")
    assert (i * 2).tolist() == [[6, -8]]


def test_matmul_kernels_match_numpy():
    rng = np.random.default_rng(1)
    for (m, k, n) in ((70, 33, 65), (64, 64, 64), (5, 7, 3), (128, 20, 1)):
        a, b = rng.standard_normal((m, k), np.float32), rng.standard_normal((k, n), np.float32)
        ta, tb = webtorch.tensor(a, device="webgpu"), webtorch.tensor(b, device="webgpu")
        np.testing.assert_allclose((ta @ tb).cpu().numpy(), a @ b, rtol=1e-4, atol=1e-4)
        # transposed operands are read through strides, without a copy
        tat, tbt = webtorch.tensor(a.T.copy(), device="webgpu").t(), webtorch.tensor(b.T.copy(), device="webgpu").t()
        r, n = counted(lambda: tat @ tbt)
        assert n["dispatches"] == 1
        np.testing.assert_allclose(r.cpu().numpy(), a @ b, rtol=1e-4, atol=1e-4)
    a = rng.standard_normal((3, 1, 20, 12), np.float32)
    b = rng.standard_normal((4, 12, 36), np.float32)
    out = webtorch.tensor(a, device="webgpu") @ webtorch.tensor(b, device="webgpu")
    np.testing.assert_allclose(out.cpu().numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_random_is_reproducible_and_distributed():
    webtorch.manual_seed(7)
    a = webtorch.rand(10000, device="webgpu").cpu().numpy()
    n = webtorch.randn(10000, device="webgpu").cpu().numpy()
    webtorch.manual_seed(7)
    assert np.array_equal(webtorch.rand(10000, device="webgpu").cpu().numpy(), a)
    assert 0 <= a.min() and a.max() < 1 and abs(a.mean() - 0.5) < 0.02
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    r = webtorch.randint(3, 9, (5000,), device="webgpu").cpu().numpy()
    assert r.min() == 3 and r.max() == 8


def test_host_fallbacks_are_counted():
    from webtorch.backends.webgpu.fallback import host_fallback
    before = webtorch.webgpu.stats()["host_fallbacks"]
    # called directly: whichever primitives still lack a kernel, the fallback path itself is what is counted
    det = host_fallback(wg.get_backend()._rec, "linalg_det", webtorch.eye(3, device="webgpu")._data)
    s = webtorch.webgpu.stats()
    assert s["host_fallbacks"] == before + 1 and s["host_fallback_ops"]["linalg_det"] >= 1
    assert wg.get_backend().item(det) == 1.0


def test_large_dispatch_uses_2d_grid():
    n = 65535 * 256 + 300  # more workgroups than one dimension allows
    x = webtorch.ones(n, device="webgpu")
    assert (x * 3).sum().item() == 3.0 * n


def test_fused_producer_read_through_different_views_is_not_a_cache_hit():
    # The generated-kernel cache once keyed an inlined producer by its own signature only, not by how its
    # consumer views it: ``z + p.t()`` then reused the kernel of ``z + p`` (TransformerEncoderLayer with
    # batch_first=True went wrong this way when one pending queue held both).
    rng = np.random.default_rng(3)
    a, b, z = (rng.standard_normal((5, 5), np.float32) for _ in range(3))
    ta, tb, tz = (webtorch.tensor(v, device="webgpu") for v in (a, b, z))
    direct, n = counted(lambda: tz + (ta + tb))
    assert n["dispatches"] == 1  # the producer is inlined: the cache is what is being tested
    transposed, n = counted(lambda: tz + (ta + tb).t())
    assert n["dispatches"] == 1
    sliced = tz[1:, :3] * (ta + tb)[:4, 2:].exp()
    np.testing.assert_allclose(direct.cpu().numpy(), z + (a + b), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(transposed.cpu().numpy(), z + (a + b).T, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(sliced.cpu().numpy(), z[1:, :3] * np.exp((a + b)[:4, 2:]), rtol=1e-5, atol=1e-6)


def test_declared_host_fallbacks_are_the_ones_counted():
    # host_rules.HOST_FALLBACKS always run on the host, and exactly those are counted when used
    from webtorch.backends.webgpu.backend import WebGPUBackend
    assert webtorch.webgpu.host_fallback_primitives() == sorted(WebGPUBackend.host_fallbacks)
    a = webtorch.tensor([[2.0, 1.0], [1.0, 3.0]], device="webgpu")
    before = dict(webtorch.webgpu.stats()["host_fallback_ops"])
    webtorch.unique(a)
    webtorch.linalg.slogdet(a)
    webtorch.linalg.qr(a)
    webtorch.linalg.eigh(a)
    webtorch.linalg.svd(a)
    webtorch.linalg.lstsq(a, a)
    after = webtorch.webgpu.stats()["host_fallback_ops"]
    assert {n for n in after if after[n] > before.get(n, 0)} == WebGPUBackend.host_fallbacks


def _fallbacks_of(fn):
    before = dict(webtorch.webgpu.stats()["host_fallback_ops"])
    fn()
    after = webtorch.webgpu.stats()["host_fallback_ops"]
    return {n for n in after if after[n] > before.get(n, 0)}


def test_host_when_rules_send_exactly_their_calls_to_the_host():
    # spot checks of host_rules.HOST_WHEN: the dtype or size a kernel does not serve reaches the host fallback of
    # that primitive (and only of it), the served case does not
    ints = webtorch.arange(9, device="webgpu").reshape(3, 3)
    assert _fallbacks_of(lambda: (ints @ ints).tolist()) == {"matmul"}
    assert _fallbacks_of(lambda: (ints.float() @ ints.float()).tolist()) == set()
    long_row = webtorch.rand(3000, device="webgpu")
    assert _fallbacks_of(lambda: webtorch.sort(long_row).values.tolist()) == {"sort"}
    assert _fallbacks_of(lambda: webtorch.sort(long_row[:100]).values.tolist()) == set()
    table = webtorch.arange(12, device="webgpu").reshape(4, 3)
    idx = webtorch.tensor([0, 3], device="webgpu")
    assert _fallbacks_of(lambda: webtorch.nn.functional.embedding(idx, table).tolist()) == {"embedding"}
    assert _fallbacks_of(lambda: webtorch.nn.functional.embedding(idx, table.float()).tolist()) == set()
    half = webtorch.ones(4, device="webgpu", dtype=webtorch.float16, requires_grad=True)
    opt = webtorch.optim.SGD([half], lr=0.1)
    half.grad = webtorch.ones_like(half)
    assert _fallbacks_of(lambda: (opt.step(), half.tolist())) == {"sgd_update"}
    deep = webtorch.ones((1,) * 9, device="webgpu")
    assert _fallbacks_of(lambda: webtorch.nonzero(deep).tolist()) == {"nonzero"}
