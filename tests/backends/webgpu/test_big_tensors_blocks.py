"""The row and plane families past one storage binding (block_split.py), against PyTorch on the CPU.

As in test_big_tensors.py the binding limit is forced to 4 KiB (1,024 float32), so every tensor here crosses it
the way a GPT-2 LM head's logits (batch x ctx x 50,257) or a ResNet-50 activation crosses the real 128 MiB: the
kernel runs block by block along its independent axes (rows, samples, channels, matrices; a scan's rows longer
than a binding in carried segments) and must give PyTorch's values and gradients. A single row, sample or channel
past the limit is refused naming the sizes.
Each family runs for both adapter kinds (devices.adapter_kind), as kernels differ between CPU adapters and GPUs.
"""
import numpy as np
import pytest
import torch

import webtorch
from webtorch.backends.webgpu import get_backend

from devices import adapter_kind, assert_outputs_match, tensor_maker, with_grads
from webgpu_counts import counted

BINDING = 4096  # bytes: 1,024 float32


def _arr(*shape, seed=1):
    return np.random.default_rng(seed + 7 * sum(shape)).standard_normal(shape).astype(np.float32)


def _ints(high, *shape):
    return np.random.default_rng(high + sum(shape)).integers(0, high, shape)


def _softmax(lib, t):
    F = lib.nn.functional
    x, y = t(_arr(37, 53), True), t(_arr(3, 20, 30), True)
    return with_grads([F.softmax(x, 1), F.softmax(x, 0), F.log_softmax(x, 1), F.log_softmax(y, 2),
                       F.softmax(y, 1), F.softmax(x.t(), 1), F.log_softmax(x[:, 3:50], 1)], [x, y])


def _cross_entropy(lib, t):
    F = lib.nn.functional
    logits, img = t(_arr(40, 60), True), t(_arr(4, 60, 10), True)
    tgt, tgt_img = t(_ints(60, 40)), t(_ints(60, 4, 10))
    return with_grads([F.cross_entropy(logits, tgt), F.cross_entropy(logits, tgt, reduction="none"),
                       F.cross_entropy(logits, tgt, label_smoothing=0.1), F.cross_entropy(img, tgt_img),
                       F.nll_loss(F.log_softmax(logits, 1), tgt, reduction="sum")], [logits, img])


def _layer_norm(lib, t):
    F = lib.nn.functional
    x, y = t(_arr(40, 60), True), t(_arr(3, 4, 5, 30), True)
    w, b = t(_arr(60), True), t(_arr(60), True)
    w2 = t(_arr(5, 30), True)
    return with_grads([F.layer_norm(x, (60,), w, b), F.layer_norm(x, (60,)), F.layer_norm(y, (5, 30), w2),
                       F.layer_norm(x[::2], (60,), None, b)], [x, y, w, b, w2])


def _batch_norm(lib, t):
    F = lib.nn.functional
    x, img = t(_arr(8, 6, 30), True), t(_arr(4, 5, 8, 9), True)
    w, b = t(_arr(6), True), t(_arr(6), True)
    rm, rv = t(np.zeros(6, np.float32)), t(np.ones(6, np.float32))
    bn = lib.nn.BatchNorm2d(5).to(img.device)
    outs = [F.batch_norm(x, rm, rv, w, b, training=True), F.batch_norm(x, None, None, training=True),
            bn(img), F.group_norm(img, 5), F.instance_norm(img)]
    return with_grads(outs, [x, img, w, b]) + [rm, rv, bn.running_mean, bn.running_var]


def _conv(lib, t):
    F = lib.nn.functional
    x, x1, xg = t(_arr(12, 2, 8, 8), True), t(_arr(12, 2, 50), True), t(_arr(12, 4, 6, 6), True)
    xt = t(_arr(12, 2, 6, 6), True)  # its transposed convolution's output is past the limit, the input is not
    w, b, w1 = t(_arr(4, 2, 3, 3), True), t(_arr(4), True), t(_arr(4, 2, 3), True)
    wg, wt = t(_arr(4, 2, 3, 3), True), t(_arr(2, 2, 3, 3), True)
    return with_grads([F.conv2d(x, w, b), F.conv2d(x, w, stride=2, padding=1).relu(), F.conv1d(x1, w1, padding=1),
                       F.conv2d(xg, wg, groups=2), F.conv_transpose2d(xt, wt, b[:2]),
                       F.conv2d(x[:, :, 1:, :7], w)], [x, x1, xg, xt, w, b, w1, wg, wt])


def _pool(lib, t):
    F = lib.nn.functional
    x = t(_arr(12, 2, 8, 8), True)
    vals, idx = F.max_pool2d(x, 2, return_indices=True)
    return with_grads([vals, F.avg_pool2d(x, 3, stride=2, padding=1), F.adaptive_max_pool2d(x, 3),
                       F.adaptive_avg_pool2d(x, (3, 2)), F.max_unpool2d(vals, idx, 2), F.max_pool1d(x[:, 0], 3),
                       F.avg_pool2d(x, 2, ceil_mode=True, count_include_pad=False)], [x]) + [idx]


def _resnet_stem(lib, t):
    """conv -> batch_norm -> relu -> max_pool, as ResNet-50's first layers meet a large batch."""
    nn = lib.nn
    lib.manual_seed(0)
    stem = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2))
    x = t(_arr(10, 3, 6, 6))
    with lib.no_grad():
        stem[0].weight.copy_(t(_arr(4, 3, 3, 3)))
    stem = stem.to(x.device)
    y = stem(x)
    y.square().sum().backward()
    return [y, stem[0].weight.grad, stem[1].weight.grad, stem[1].running_var]


def _scan_sort(lib, t):
    x, i = t(_arr(37, 53), True), t(_ints(1000, 40, 50))
    seq = t(np.sort(_arr(40, 30), 1))
    vals, idx = x.sort(1)
    top, top_i = x.topk(5, 0, largest=False)
    cmax, cmax_i = x.cummax(1)
    outs = [x.cumsum(1), x.cumsum(0), x.cumprod(1), x.logcumsumexp(0), cmax, vals, top, x.sort(0, descending=True)[0],
            i.cumsum(1), i.sort(1)[0]]
    return with_grads(outs, [x]) + [idx, top_i, cmax_i, lib.searchsorted(seq, t(_arr(40, 70))),
                                    lib.searchsorted(seq[0], t(_arr(40, 70)), right=True)]


def _long_rows(lib, t):
    """Rows longer than one binding: scanned in segments carried into the next; nonzero and masks over them."""
    x, i = t(_arr(3, 2500), True), t(_ints(9, 2500, 3) - 4)
    cmin, cmin_i = x.cummin(1)
    outs = [x.cumsum(1), x.flip(1).cumsum(1), x.reshape(-1).cumsum(0), lib.logcumsumexp(x, 1), cmin,
            (x * 0.001 + 1).cumprod(1)]
    return with_grads(outs, [x]) + [cmin_i, x.cummax(1)[1], i.cumsum(0), i.cummax(0)[1], (x > 0).nonzero(),
                                    x.detach()[x.detach() > 0.5], lib.nonzero(x.detach().reshape(-1) < -1)]


def _pad_unfold(lib, t):
    F = lib.nn.functional
    x, y = t(_arr(8, 3, 50), True), t(_arr(12, 2, 8, 8), True)
    cols = t(_arr(12, 8, 49), True)
    outs = [F.pad(x, (2, 3), mode="reflect"), F.pad(y, (1, 1, 2, 2), mode="replicate"),
            F.pad(x, (4, 0), mode="circular"), F.pad(y, (1, 1, 2, 2), value=3.0), F.unfold(y, 2),
            F.fold(cols, (8, 8), 2)]
    ints = lib.arange(2000, device=x.device).reshape(20, 100)  # int64: padded as its 32-bit words
    return with_grads(outs, [x, y, cols]) + [F.pad(ints, (1, 1), value=7)]


def _embedding_renorm(lib, t):
    w = t(_arr(300, 24) * 3)
    out = lib.nn.functional.embedding(t(_ints(300, 4, 9)), w, max_norm=1.5)  # rescales the named rows of w
    emb = lib.nn.Embedding(300, 24, max_norm=2.0, norm_type=1.0).to(w.device)
    with lib.no_grad():
        emb.weight.copy_(w)
    return [out, w, emb(t(_ints(290, 7))), emb.weight.detach()]


def _linalg(lib, t):
    a = t(_arr(30, 8, 8) + 4 * np.eye(8, dtype=np.float32), True)
    b, b1 = t(_arr(30, 8, 3), True), t(_arr(8, 5), True)
    spd = a.detach() @ a.detach().mT + t(np.eye(8, dtype=np.float32))
    outs = [lib.linalg.inv(a), lib.linalg.det(a), lib.linalg.solve(a, b), lib.linalg.solve(a, b1),
            lib.linalg.cholesky(spd), lib.linalg.cholesky(spd, upper=True),
            lib.linalg.solve_triangular(a.triu(), b, upper=True)]
    return with_grads(outs, [a, b, b1])


CASES = {"softmax": _softmax, "cross_entropy": _cross_entropy, "layer_norm": _layer_norm, "batch_norm": _batch_norm,
         "conv": _conv, "pool": _pool, "resnet_stem": _resnet_stem, "scan_sort": _scan_sort,
         "embedding_renorm": _embedding_renorm, "linalg": _linalg, "long_rows": _long_rows, "pad_unfold": _pad_unfold}


@pytest.mark.parametrize("cpu_adapter", [True, False], ids=["cpu_adapter", "gpu_adapter"])
@pytest.mark.parametrize("family", sorted(CASES))
def test_family_in_blocks_past_a_forced_binding_limit(family, cpu_adapter):
    want = CASES[family](torch, tensor_maker(torch, "cpu"))
    with adapter_kind(cpu_adapter) as be, be.limits.forced(binding=BINDING):
        got, n = counted(lambda: CASES[family](webtorch, tensor_maker(webtorch, "webgpu")))
        assert_outputs_match(got, want, family)
    assert n["host_fallbacks"] == 0, family  # the kernels ran, in blocks; the host computed nothing


def test_the_logits_of_a_language_model_head_past_the_limit_take_a_training_step():
    """A GPT-2-shaped head in miniature: the (tokens, vocabulary) logits are past the binding limit, the
    cross-entropy's softmax rows are not; the loss and every gradient equal PyTorch's."""
    def step(lib, t):
        F = lib.nn.functional
        h, w = t(_arr(24, 16), True), t(_arr(300, 16), True)
        loss = F.cross_entropy(F.layer_norm(h, (16,)) @ w.t(), t(_ints(300, 24)))
        loss.backward()
        return [loss, h.grad, w.grad]
    want = step(torch, tensor_maker(torch, "cpu"))
    with get_backend().limits.forced(binding=BINDING):
        assert_outputs_match(step(webtorch, tensor_maker(webtorch, "webgpu")), want, "lm head")


def test_softmax_rows_of_logits_past_the_limit_bind_windows_of_them_without_block_copies():
    """Rows along a contiguous last dim: each block of rows binds windows of the logits (or of the gradient and
    the result) and of its output in place (softmax_norm_kernels._row_blocks) -- one dispatch per block, no
    block copied in or out, no submit between blocks -- and the values equal PyTorch's."""
    x, g = _arr(40, 300), _arr(40, 300, seed=2)  # 48,000 bytes each: 16 blocks of 2-3 rows (4 KiB)
    tx = torch.tensor(x, requires_grad=True)
    want = torch.log_softmax(tx, 1)
    want.backward(torch.tensor(g))
    with get_backend().limits.forced(binding=BINDING):
        xs, gs = webtorch.tensor(x, device="webgpu", requires_grad=True), webtorch.tensor(g, device="webgpu")
        y, forward = counted(lambda: webtorch.nn.functional.log_softmax(xs, 1))
        _, backward = counted(lambda: y.backward(gs))
        np.testing.assert_allclose(y.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(xs.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
    assert forward == {"dispatches": 16, "submits": 1, "host_fallbacks": 0}
    assert backward == {"dispatches": 16, "submits": 1, "host_fallbacks": 0}


def test_layer_norm_rows_past_the_limit_bind_windows_without_block_copies():
    """layer_norm's rows bind windows of the input, output and statistics in place as softmax's do: one forward
    dispatch per block of rows and one submit (block copies took 80 dispatches and 16 submits here), its
    backward one submit (125 dispatches and 16 submits before); values and every gradient equal PyTorch's."""
    x, g, w = _arr(40, 300), _arr(40, 300, seed=2), _arr(300)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    want = torch.nn.functional.layer_norm(tx, (300,), tw)
    want.backward(torch.tensor(g))
    with get_backend().limits.forced(binding=BINDING):
        xs, ws = webtorch.tensor(x, device="webgpu", requires_grad=True), webtorch.tensor(w, device="webgpu",
                                                                                           requires_grad=True)
        y, forward = counted(lambda: webtorch.nn.functional.layer_norm(xs, (300,), ws))
        _, backward = counted(lambda: y.backward(webtorch.tensor(g, device="webgpu")))
        for got, ref in ((y.detach(), want.detach()), (xs.grad, tx.grad), (ws.grad, tw.grad)):
            np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    assert forward == {"dispatches": 16, "submits": 1, "host_fallbacks": 0}
    assert backward["submits"] == 1 and backward["host_fallbacks"] == 0


def test_batch_norm_with_a_channel_past_the_limit_runs_in_windowed_passes_and_one_submit():
    """A channel's elements span the whole (N, C, S) tensor, so batch_norm past one binding runs as reductions and
    elementwise passes that bind windows (softmax_norm_kernels._batch_norm_in_passes): one channel of 4,800 bytes
    (refused before), running statistics updated, every gradient PyTorch's, no block copies and one submit."""
    def run(lib, t):
        x, w, b = t(_arr(4, 6, 300), True), t(_arr(6), True), t(_arr(6), True)
        rm, rv = t(np.zeros(6, np.float32)), t(np.ones(6, np.float32))
        y = lib.nn.functional.batch_norm(x, rm, rv, w, b, training=True, momentum=0.3)
        (y * t(_arr(4, 6, 300, seed=5))).sum().backward()
        return [y, x.grad, w.grad, b.grad, rm, rv]
    want = run(torch, tensor_maker(torch, "cpu"))
    with get_backend().limits.forced(binding=BINDING):
        got, n = counted(lambda: run(webtorch, tensor_maker(webtorch, "webgpu")))
        assert_outputs_match(got, want, "batch_norm")
    assert n["submits"] == 1 and n["host_fallbacks"] == 0


@pytest.mark.parametrize("call, what", [
    (lambda lib, x: lib.nn.functional.softmax(x, 1), "one row"),
    (lambda lib, x: lib.nn.functional.layer_norm(x, (1500,)), "one row"),
    (lambda lib, x: lib.nn.functional.conv1d(x.reshape(3, 1, 1500), x[:1, :3].reshape(1, 1, 3)), "one sample"),
    (lambda lib, x: lib.nn.functional.max_pool1d(x.reshape(3, 1, 1500), 2), "one plane"),
    (lambda lib, x: x.sort(1)[0], "one row"),
])
def test_one_unit_past_the_limit_is_refused_naming_sizes_limit_and_remedy(call, what):
    with get_backend().limits.forced(binding=BINDING):
        x = webtorch.tensor(_arr(3, 1500), device="webgpu")  # rows of 6,000 bytes
        with pytest.raises(webtorch.OutOfMemoryError) as e:
            call(webtorch, x).sum().item()
        msg = str(e.value)
        assert what in msg and "6,000 bytes" in msg and "maxStorageBufferBindingSize (4,096 bytes)" in msg
        assert "smaller" in msg and "torch.float16" in msg
        assert (x[:, :4] * 2).sum().item() == pytest.approx(2 * float(_arr(3, 1500)[:, :4].sum()), abs=1e-4)


def test_the_ops_the_host_serves_take_tensors_past_the_limit():
    """slogdet, qr, eigh and unique run on the host (host_rules.HOST_FALLBACKS): the whole tensor is read back
    and the result uploaded, neither of which knows a binding limit."""
    def run(lib, t):
        a = t(_arr(30, 8, 8))
        return [lib.linalg.slogdet(a)[1], lib.linalg.qr(a)[1].abs(), lib.linalg.eigh(a @ a.mT)[0],
                lib.unique(t(_ints(3000, 2000)))]
    want = run(torch, tensor_maker(torch, "cpu"))
    with get_backend().limits.forced(binding=BINDING):
        assert_outputs_match(run(webtorch, tensor_maker(webtorch, "webgpu")), want, "host-served", tol=1e-3)


def test_a_singular_matrix_in_a_later_block_is_named_by_its_place_in_the_whole_batch():
    a = _arr(30, 8, 8)
    a[23, 2] = a[23, 5]
    with get_backend().limits.forced(binding=BINDING), \
            pytest.raises(webtorch.linalg.LinAlgError, match=r"Batch element 23\)"):
        webtorch.linalg.inv(webtorch.tensor(a, device="webgpu"))
    with pytest.raises(torch.linalg.LinAlgError, match=r"Batch element 23\)"):
        torch.linalg.inv(torch.tensor(a))


def test_a_captured_step_through_split_kernels_replays_as_the_eager_one():
    """The blocks submit one by one (block_split.in_blocks flushes between them): inside a capture those flushes
    join the captured step, and replaying it gives the eager step's numbers."""
    def setup():
        webtorch.manual_seed(0)
        head = webtorch.nn.Sequential(webtorch.nn.LayerNorm(16), webtorch.nn.Linear(16, 300)).to("webgpu")
        return head, webtorch.optim.SGD(head.parameters(), lr=0.1)

    def step(head, opt, x, y):
        opt.zero_grad()
        loss = webtorch.nn.functional.cross_entropy(head(x), y)  # (24, 300) logits: past the limit
        loss.backward()
        opt.step()
        return loss

    batches = [(webtorch.tensor(_arr(24, 16, seed=s), device="webgpu"),
                webtorch.tensor((_ints(300, 24) + 37 * s) % 300, device="webgpu")) for s in range(3)]
    with get_backend().limits.forced(binding=BINDING):
        head, opt = setup()
        eager = [step(head, opt, x, y).item() for x, y in batches]
        head, opt = setup()
        sx, sy = batches[0][0].clone(), batches[0][1].clone()
        g = webtorch.webgpu.Graph()
        with webtorch.webgpu.graph(g):
            loss = step(head, opt, sx, sy)
        replayed = []
        for x, y in batches:
            sx.copy_(x)
            sy.copy_(y)
            g.replay()
            replayed.append(loss.item())
    assert replayed == eager
