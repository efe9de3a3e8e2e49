"""Tensors past one storage binding on the webgpu device (binding_windows.py), against PyTorch on the CPU.

The binding limit is forced small (the device's limits.forced(binding=BINDING): 4 KiB instead of lavapipe's
128 MiB), so a few thousand elements cross it as GPT-2's token embedding crosses the real one, and every family's split runs at test
sizes: elementwise pieces (strided, broadcast, in place, index-valued), reductions in halves, products in M, N
and K blocks, embedding row and position ranges, optimizer chunks, random counter ranges, copies and checkpoints.
Each family runs for both adapter kinds (devices.adapter_kind), as kernels differ between CPU adapters and GPUs.
A GPT-2-shaped model with the real vocabulary and width (its token embedding past lavapipe's real binding limit)
takes a training step equal to the cpu device's; bench/bench_gpt2_small.py runs all 12 layers.
"""
import io

import numpy as np
import pytest
import torch

import webtorch
from webtorch.backends.webgpu import get_backend
from webtorch.backends.webgpu.kernel_launch import source

from devices import adapter_kind, assert_outputs_match as _compare, tensor_maker as _make, with_grads as _with_grads

BINDING = 4096  # bytes: 1,024 float32


def _arr(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


def _ints(high, *shape, seed=0):
    return np.random.default_rng(seed + high).integers(0, high, shape)


X = _arr(37, 53)  # 7,844 bytes: two bindings
W = _arr(300, 24)  # a (vocab, d) table of 28,800 bytes: seven


def _elementwise(lib, t):
    x = t(X)
    y = t(X.copy())
    y.add_(1.5)
    z = t(X.copy())
    z[1:] += z[:-1].clone()
    flag = x > 0
    big_int = lib.arange(3000, device=x.device) * 3  # int64 from an index: split pieces keep the flat index
    return [((x * 2 + 1).relu() - t(X[0]).sin()).exp().clamp(max=50), x.t() + t(X[:, :1]).t(), y, z,
            lib.where(flag, x, -x), big_int, x[5:30:3, ::2] * 2, t(W)[17] + 1, x.to(lib.float16).float()]


def _reduce(lib, t):
    x, w = t(X, True), t(W, True)
    return _with_grads([x.sum(), x.sum(0), x.sum(1), w.mean(0), x.amax(0), w.amin(1), (x * 0.01 + 1).prod(1),
                        x.var(1), w.norm(dim=0), x.logsumexp(1)], [x, w]) + [
        x.argmax(), x.argmin(1), (x > 0).all(1), (x > 2).any(0), t(W).t().sum(0)]


def _matmul(lib, t):
    F = lib.nn.functional
    w, h, b = t(W, True), t(_arr(5, 24), True), t(_arr(300), True)
    a, k = t(_arr(2, 3000), True), t(_arr(3000, 3), True)
    bat = t(_arr(2, 6, 24), True)
    return _with_grads([F.linear(h, w), F.linear(h, w, b).relu(), w @ h.t(), a @ k, lib.bmm(bat, w.t().expand(2, 24, 300)),
                        h @ w.t()[:, 7:290]], [w, h, b, a, k, bat])


def _embedding(lib, t):
    F = lib.nn.functional
    w = t(W, True)
    ids = t(_ints(300, 3, 5))
    out = [F.embedding(ids, w), F.embedding(ids, w, padding_idx=3) * 2, F.embedding(ids, w, scale_grad_by_freq=True)]
    logits = F.linear(out[0], w)  # the tied head of a language model
    return _with_grads(out + [logits], [w])


def _optimizer(lib, t):
    p, q, s = t(_arr(3000), True), t(_arr(7, 5), True), t(_arr(40, 50), True)
    opts = [lib.optim.AdamW([p], lr=0.1, weight_decay=0.1), lib.optim.Adam([q], lr=0.1),
            lib.optim.SGD([s], lr=0.1, momentum=0.9)]
    for _ in range(3):
        for o in opts:
            o.zero_grad()
        ((p * p).sum() + (q ** 3).sum() + (s * s).sum()).backward()
        for o in opts:
            o.step()
    return [p.detach(), q.detach(), s.detach()]


def _copies(lib, t):
    x = t(X)
    dst = t(np.zeros((53, 37), np.float32))
    dst.copy_(x.t())
    dst2 = lib.zeros(37, 53, device=x.device)
    dst2.copy_(lib.tensor(X))  # an upload into a storage past one binding
    return [x.t().contiguous(), x.clone(), dst, dst2, lib.cat([x, x], 0), x.reshape(53, 37)[::2]]


def _index(lib, t):
    x = t(W, True)
    rows, cols = t(_ints(300, 50)), t(_ints(24, 300, 5))
    target = lib.zeros(300, 24, device=x.device)
    target.scatter_add_(1, cols[:20], t(np.ones((20, 5), np.float32)))  # into a target past one binding
    put = x.detach().clone()
    put[rows[:7]] = 0.5
    acc = x.detach().clone()
    acc.index_put_((rows[:9],), t(np.ones((9, 24), np.float32)), accumulate=True)
    return _with_grads([x.index_select(0, rows), x[rows, 3:9], x.gather(1, cols)], [x]) + [target, put, acc]


CASES = {"elementwise": _elementwise, "reduce": _reduce, "matmul": _matmul, "embedding": _embedding,
         "optimizer": _optimizer, "copies": _copies, "index": _index}


@pytest.mark.parametrize("cpu_adapter", [True, False], ids=["cpu_adapter", "gpu_adapter"])
@pytest.mark.parametrize("family", sorted(CASES))
def test_family_past_a_forced_binding_limit(family, cpu_adapter):
    want = CASES[family](torch, _make(torch, "cpu"))
    with adapter_kind(cpu_adapter) as be, be.limits.forced(binding=BINDING):
        got = CASES[family](webtorch, _make(webtorch, "webgpu"))
        _compare(got, want, family)


def test_windows_bind_parts_of_one_buffer():
    """A storage past the binding limit is one buffer; kernels bind windows of it (more ids than buffers)."""
    rt = get_backend().rt
    with get_backend().limits.forced(binding=BINDING):
        x = webtorch.tensor(X, device="webgpu")
        assert abs((x * 2).sum().item() - 2 * X.sum()) < 1e-2
        buf = x._data.st.buf
        assert buf.nbytes > BINDING and buf.id in rt._windows and len(rt._windows[buf.id]) >= 2


def test_random_streams_do_not_depend_on_the_windows():
    def draw():
        g = webtorch.Generator(device="webgpu").manual_seed(7)
        w = webtorch.empty(300, 24, device="webgpu")
        w.normal_(0, 0.02, generator=g)
        return [webtorch.rand(5000, device="webgpu", generator=g).cpu().numpy(), w.cpu().numpy(),
                webtorch.randint(0, 9, (5000,), device="webgpu", generator=g).cpu().numpy()]
    plain = draw()
    with get_backend().limits.forced(binding=BINDING):
        split = draw()
    for a, b in zip(plain, split):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fmt", ["torch", "safetensors"])
def test_checkpoint_of_a_tensor_past_the_binding_limit(fmt, tmp_path):
    with get_backend().limits.forced(binding=BINDING):
        emb = webtorch.nn.Embedding(300, 24).to("webgpu")
        with webtorch.no_grad():
            emb.weight.copy_(webtorch.tensor(W))
        if fmt == "torch":
            buf = io.BytesIO()
            webtorch.save(emb.state_dict(), buf)
            buf.seek(0)
            state = webtorch.load(buf, map_location="webgpu")
            assert torch.equal(torch.load(io.BytesIO(buf.getvalue()), weights_only=True)["weight"], torch.tensor(W))
        else:
            from webtorch.serialization.safetensors import load_file, save_file
            path = str(tmp_path / "emb.safetensors")
            save_file(emb.state_dict(), path)
            state = {k: v.to("webgpu") for k, v in load_file(path).items()}
        back = webtorch.nn.Embedding(300, 24).to("webgpu")
        back.load_state_dict(state)
        np.testing.assert_array_equal(back.weight.detach().cpu().numpy(), W)
        assert back(webtorch.tensor([[299, 0]], device="webgpu")).sum().item() == pytest.approx(
            float(W[299].sum() + W[0].sum()), abs=1e-4)


@pytest.mark.parametrize("binding, n, dtype", [(BINDING, 3000, "int64"), (BINDING, 5000, "int32"),
                                             (4 * BINDING, 9000, "int64")])
def test_randperm_past_the_limit_sorts_in_chunks_and_equals_the_cpu_device(binding, n, dtype):
    """Keys past one binding are sorted in chunks of the largest power of two one binding shows (1,024 or 4,096
    pairs here: 4 to 16 chunks; stages inside a chunk bind windows of it, longer ones compare two chunks): the
    permutation is the cpu device's for the same seed, as it is below the limit."""
    want = webtorch.randperm(n, generator=webtorch.Generator().manual_seed(3)).tolist()
    with get_backend().limits.forced(binding=binding):
        g = webtorch.Generator(device="webgpu").manual_seed(3)
        got = webtorch.randperm(n, generator=g, device="webgpu", dtype=getattr(webtorch, dtype))
        assert got.dtype == getattr(webtorch, dtype) and got.tolist() == want


def test_a_kernel_binding_a_whole_storage_past_the_limit_names_itself_and_later_work_runs():
    """pending.check_bindings refuses a template kernel recorded over a whole storage past one binding, naming it
    (WebGPU would reject the flush). Every family binds windows today, so the dispatch is recorded here directly."""
    rec = get_backend().recorder
    with get_backend().limits.forced(binding=BINDING):
        x = webtorch.tensor(X, device="webgpu")
        buf = x._data.st.buf
        with pytest.raises(webtorch.OutOfMemoryError,
                           match=r"randperm_global.*7,844 bytes.*maxStorageBufferBindingSize \(4,096 bytes\)"):
            rec.record_kernel("randperm_global", source("randperm_global"), bytes(32), (1, 1, 1), [buf, buf], [buf],
                              [buf])
        assert (x[:3, :3] * 2).sum().item() == pytest.approx(2 * float(X[:3, :3].sum()), abs=1e-4)


def test_a_tensor_past_max_buffer_size_is_refused_naming_sizes_and_remedies():
    with get_backend().limits.forced(buffer=1 << 20):
        with pytest.raises(webtorch.OutOfMemoryError) as e:
            x = webtorch.ones(512, 1024, device="webgpu")  # kept: its storage is allocated
            x.sum().item()
        msg = str(e.value)
        assert "2,097,152 bytes" in msg and "maxBufferSize (1,048,576 bytes)" in msg
        assert "smaller batch" in msg and "torch.float16" in msg
        assert (webtorch.ones(4, device="webgpu") + 1).tolist() == [2.0] * 4


def test_info_reports_the_granted_limits():
    info = webtorch.webgpu.info()
    lim = info["limits"]
    assert lim["maxStorageBufferBindingSize"] >= 1 << 27 and lim["maxBufferSize"] >= lim["maxStorageBufferBindingSize"]
    assert info["adapter"] and isinstance(info["features"], list)


def _gpt2_step(lib, model, x, y):
    F = lib.nn.functional
    opt = lib.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)
    loss = F.cross_entropy(model(x).reshape(-1, 50257), y.reshape(-1))
    loss.backward()
    opt.step()
    return loss.item()


def test_gpt2_shaped_training_step_with_the_real_vocabulary_past_the_real_binding_limit():
    """One block of GPT-2 small's shape (d 768, 12 heads, vocabulary 50,257, head tied; 16 tokens, batch 1: the
    head's product is the step's cost on a CPU adapter): the token embedding, its gradient and AdamW's state are
    154 MB each, past lavapipe's real 128 MiB binding (an adapter that binds more -- NVIDIA's Vulkan driver: 2 GiB --
    runs it under 128 MiB, Chrome's default). bench/bench_gpt2_small.py runs 12 blocks, 128 tokens."""
    from bench_models import GPTModel
    cfg = {"layers": 1, "d": 768, "heads": 12, "ctx": 16, "vocab": 50257}
    limits = get_backend().limits
    with limits.forced(binding=min(limits.binding_size(), 128 << 20)):
        webtorch.manual_seed(0)
        cpu = GPTModel(webtorch, cfg, tied=True)
        gpu = GPTModel(webtorch, cfg, tied=True).to("webgpu")
        gpu.load_state_dict(cpu.state_dict())
        assert gpu.wte.weight._data.st.buf.nbytes > limits.binding_size()
        seq = webtorch.tensor([(i * 7919 + 11) % 50257 for i in range(17)]).reshape(1, 17)
        x, y = seq[:, :-1].contiguous(), seq[:, 1:].contiguous()
        want = _gpt2_step(webtorch, cpu, x, y)
        got = _gpt2_step(webtorch, gpu, x.to("webgpu"), y.to("webgpu"))
        assert got == pytest.approx(want, rel=1e-5, abs=1e-5)
        after = gpu.wte.weight.detach().cpu()
    assert (after - cpu.wte.weight.detach()).abs().max().item() < 1e-5
