"""The matmul kernels on the webgpu device (matmul_tiled for GPUs, matmul_register for CPU adapters): every
operand layout (loaded as vec4 along the tile, vec4 across it with an in-register transpose, or scalar),
batched and broadcast operands, and the fused elementwise epilogue (bias, activation) -- against NumPy."""
import numpy as np
import pytest

import webtorch
from webtorch.backends.webgpu import matmul_kernels as wb
from webtorch.backends.webgpu.matmul_layout import operand_mode

from devices import adapter_kind
from webgpu_counts import counted


def _layout(x, transposed, offset):
    """x (..., r, c) as a webgpu tensor with the same values: stored transposed and/or at an offset."""
    base = np.ascontiguousarray(np.swapaxes(x, -1, -2)) if transposed else x
    flat = np.concatenate([np.zeros(offset, np.float32), base.ravel()])
    t = webtorch.tensor(flat, device="webgpu")[offset:].reshape(base.shape)
    return t.transpose(-1, -2) if transposed else t


KERNELS = ["matmul_tiled", "matmul_register"]


def _product(x, y, kernel):
    """x @ y (webgpu tensors, batch dims broadcast) through ``kernel``: (NumPy array, WGSL source used)."""
    be = x._be
    rec = be._rec
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    out = rec.new(tuple(batch) + (x.shape[-2], y.shape[-1]), webtorch.float32)
    wb.record_matmul(rec, x._data, y._data, out, tuple(batch), x.shape[-2], y.shape[-1], x.shape[-1], kernel=kernel)
    attrs = rec.pending.nodes[-1].attrs
    assert attrs["name"] == kernel
    return be.to_numpy(out), attrs["source"]


@pytest.mark.parametrize("m,k,n", [(64, 32, 64), (37, 19, 45), (128, 784, 256), (128, 256, 10), (16, 12, 20),
                                   (5, 8, 130), (200, 64, 4), (4, 4, 4), (12, 3, 9)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("offset", [0, 4, 3])
@pytest.mark.parametrize("kernel", KERNELS)
def test_layouts(m, k, n, ta, tb, offset, kernel):
    rng = np.random.default_rng(m * 7 + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    out, _ = _product(_layout(a, ta, offset), _layout(b, tb, offset), kernel)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4 * np.sqrt(k))


@pytest.mark.parametrize("ta,tb", [(False, False), (True, True), (True, False)])
@pytest.mark.parametrize("kernel", KERNELS)
def test_batched_broadcast(ta, tb, kernel):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 1, 20, 36)).astype(np.float32)
    b = rng.standard_normal((2, 36, 24)).astype(np.float32)
    out, _ = _product(_layout(a, ta, 0), _layout(b, tb, 4), kernel)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("a_shape, b_shape", [((2, 1, 3, 1, 2, 4, 5), (5,)), ((4,), (2, 1, 3, 1, 2, 4, 5)),
                                              ((1, 2, 1, 2, 1, 3, 5), (2, 1, 2, 1, 2, 5, 3)), ((5,), (5,))])
def test_the_primitive_drops_a_1d_operand_dim_past_four_batch_dims(a_shape, b_shape):
    """The backend primitive itself (not the op above it) gives np.matmul's shape and values: a batch of more
    than four dims is folded through contiguous copies, and a 1-D operand's dim is dropped there too."""
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(a_shape).astype(np.float32), rng.standard_normal(b_shape).astype(np.float32)
    be = webtorch.tensor(a, device="webgpu")._be
    out = be.to_numpy(be.matmul(webtorch.tensor(a, device="webgpu")._data, webtorch.tensor(b, device="webgpu")._data))
    want = np.matmul(a, b)
    assert out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_the_adapter_picks_the_kernel():
    """matmul_register where the adapter runs shaders on the CPU, matmul_tiled on a GPU, naive when thin."""
    x, y = webtorch.ones(8, 8, device="webgpu"), webtorch.ones(8, 8, device="webgpu")
    for cpu, name in ((True, "matmul_register"), (False, "matmul_tiled")):
        with adapter_kind(cpu), webtorch.no_grad():
            z = x @ y
            assert x._be.recorder.pending.nodes[-1].attrs["name"] == name
            assert z.sum().item() == 512
            webtorch.ones(2, 8, device="webgpu") @ y
            assert x._be.recorder.pending.nodes[-1].attrs["name"] == "matmul_naive"


@pytest.mark.parametrize("a_shape, a_t, b_shape, b_t, modes", [
    ((16, 150), False, (150, 500), False, ("2u", "1u")),  # K 150: A column-major (LeNet's conv2 weight)
    ((150, 16), True, (16, 500), False, ("1u", "1u")),    # A read transposed with row stride 150: row-major
    ((4, 64, 6), False, (4, 6, 1000), True, ("2u", "1u")),  # K 6 on both sides: A column-major, B row-major
    ((9, 7), False, (7, 5), False, ("0u", "0u")),          # small, and no dim a multiple of 4: as they are
])
def test_scalar_layouts_become_vec4_on_a_cpu_adapter(a_shape, a_t, b_shape, b_t, modes):
    """A product whose operand would take scalar loads (mode 0) copies it into a vec4 layout first, same values."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(a_shape, np.float32), rng.standard_normal(b_shape, np.float32)
    with adapter_kind(True), webtorch.no_grad():
        x, y = _layout(a, a_t, 0), _layout(b, b_t, 0)
        z = x @ y
        src = x._be.recorder.pending.nodes[-1].attrs["source"]
        np.testing.assert_allclose(z.cpu().numpy(), a @ b, rtol=1e-4, atol=1e-4)
    assert (f"const A_MODE: u32 = {modes[0]};" in src, f"const B_MODE: u32 = {modes[1]};" in src) == (True, True)


def test_operand_modes():
    """The loader picks vec4 loads exactly when strides, offsets and sizes allow them."""
    assert operand_mode(1, 64, 32, 16, (0, 0, 0, 0), 0) == 1
    assert operand_mode(64, 1, 32, 16, (0, 0, 0, 0), 8) == 2
    assert operand_mode(1, 64, 30, 16, (0, 0, 0, 0), 0) == 0  # size along not a multiple of 4
    assert operand_mode(1, 64, 32, 16, (0, 0, 0, 0), 3) == 0  # misaligned offset
    assert operand_mode(1, 64, 32, 16, (0, 0, 0, 6), 0) == 0  # misaligned batch stride
    assert operand_mode(3, 5, 32, 16, (0, 0, 0, 0), 0) == 0


# ---- fused epilogue (epilogue.py): elementwise consumers of a GEMM run in its store ------------------------

def _inputs(*shapes):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    return arrays, [webtorch.tensor(a, device="webgpu") for a in arrays]


@pytest.mark.parametrize("kernel,pipelines", [("matmul_tiled", 1), ("matmul_register", 3)])
def test_pipelines_per_layout(kernel, pipelines):
    # tiled: operand modes are uniforms and the tile shape is fixed (a pipeline costs seconds on SwiftShader);
    # register: one pipeline per (A mode, B mode) pair, whatever the shape
    a, b = np.random.default_rng(3).standard_normal((2, 40, 36), np.float32)
    products = [(a, b.T, False, True), (a.T, b, True, False), (a[:10], b.T[:, :6], False, False),
                (a[:12], b.T[:, :8], False, True), (a.T[:20], b[:, :4], True, False)]
    sources = set()
    for x, y, tx, ty in products:
        out, source = _product(_layout(x, tx, 0), _layout(y, ty, 0), kernel)
        np.testing.assert_allclose(out, x @ y, rtol=1e-4, atol=1e-4)
        sources.add(source)
    assert len(sources) == pipelines


def test_linear_bias_relu_is_one_dispatch():
    (x, w, b), (tx, tw, tb) = _inputs((24, 40), (36, 40), (36,))
    F = webtorch.nn.functional
    with webtorch.no_grad():
        y, n = counted(lambda: F.relu(F.linear(tx, tw, tb)))
    assert n["dispatches"] == 1
    np.testing.assert_allclose(y.cpu().numpy(), np.maximum(x @ w.T + b, 0), rtol=1e-5, atol=1e-5)


def test_training_chain_stores_both_results_and_grads_match():
    import torch
    (x, w, b), (tx, tw, tb) = _inputs((24, 40), (36, 40), (36,))
    tw.requires_grad_(True)
    tb.requires_grad_(True)
    F = webtorch.nn.functional

    def step():
        h = F.linear(tx, tw, tb)  # kept by ReLU's backward: the epilogue stores it and relu(h)
        loss = (F.relu(h) * h).sum()
        loss.backward()
        return loss
    loss, _ = counted(step)
    rw, rb = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    rh = torch.nn.functional.linear(torch.tensor(x), rw, rb)
    ref = (torch.relu(rh) * rh).sum()
    ref.backward()
    np.testing.assert_allclose(loss.item(), ref.item(), rtol=1e-4)
    np.testing.assert_allclose(tw.grad.cpu().numpy(), rw.grad.numpy(), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(tb.grad.cpu().numpy(), rb.grad.numpy(), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("cpu", [False, True])
def test_conv_bias_relu_join_the_gemm(cpu):
    # a GPU: one conv_igemm dispatch; a CPU adapter: im2col, then the GEMM storing bias + relu
    import torch
    (x, w, b), (tx, tw, tb) = _inputs((2, 3, 9, 9), (8, 3, 3, 3), (8,))
    F = webtorch.nn.functional
    with adapter_kind(cpu), webtorch.no_grad():
        y, n = counted(lambda: F.relu(F.conv2d(tx, tw, tb, padding=1)))
    assert n["dispatches"] == (2 if cpu else 1)
    ref = torch.relu(torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), padding=1))
    np.testing.assert_allclose(y.cpu().numpy(), ref.numpy(), rtol=1e-4, atol=1e-4)


def test_operand_written_between_is_not_moved_before_the_write():
    (a, b, c), (ta, tb, tc) = _inputs((16, 20), (20, 12), (12,))
    with webtorch.no_grad():
        def fn():
            p = ta @ tb
            tc.mul_(2.0)  # recorded between the matmul and the add that reads tc
            return p + tc
        y, _ = counted(fn)
    np.testing.assert_allclose(y.cpu().numpy(), a @ b + 2 * c, rtol=1e-5, atol=1e-4)


def test_chain_stops_at_a_read_through_another_view():
    (a, b), (ta, tb) = _inputs((20, 20), (20, 20))
    with webtorch.no_grad():
        def fn():
            h = (ta @ tb).relu()
            return h, h + h.t()  # other invocations' elements of h: read from memory after the dispatch
        (h, z), _ = counted(fn)
    ref = np.maximum(a @ b, 0)
    np.testing.assert_allclose(h.cpu().numpy(), ref, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(z.cpu().numpy(), ref + ref.T, rtol=1e-5, atol=1e-4)


def test_batched_matmul_epilogue_broadcast_operand():
    (a, b, s), (ta, tb, ts) = _inputs((3, 10, 12), (3, 12, 8), (3, 1, 8))
    with webtorch.no_grad():
        y, n = counted(lambda: (ta @ tb) * ts - 1.0)
    assert n["dispatches"] == 1
    np.testing.assert_allclose(y.cpu().numpy(), (a @ b) * s - 1.0, rtol=1e-5, atol=1e-4)
