"""Limits and faults of the webgpu device: oversized tensors, out-of-memory, device loss, and no buffer
leak over 1,000 training steps."""
import gc

import pytest

import webtorch
from webtorch import nn
import webtorch.nn.functional as F
from webtorch.backends.webgpu import get_backend
from webtorch.backends.webgpu.runtime import DeviceLostError, OutOfMemoryError


def test_tensor_over_the_real_binding_limit_works_through_windows():
    """Past maxStorageBufferBindingSize (128 MiB on lavapipe) a tensor is bound in windows (binding_windows.py);
    tests/backends/webgpu/test_big_tensors.py checks every family under a forced small limit."""
    limit = get_backend().rt.limits["maxStorageBufferBindingSize"]
    n = limit // 4 + 4096
    t = webtorch.empty(n, device="webgpu")
    t.fill_(1.0)
    t[-1] = 5.0
    assert t.sum().item() == pytest.approx(n + 4, rel=1e-6) and t[-3:].tolist() == [1.0, 1.0, 5.0]


def test_failed_allocation_is_out_of_memory_naming_the_size(monkeypatch):
    rt = get_backend().rt

    def refuse(**kwargs):
        raise RuntimeError("Not enough memory left")
    monkeypatch.setattr(rt.device, "create_buffer", refuse)
    with pytest.raises(OutOfMemoryError, match=r"could not allocate \d+ bytes"):
        rt.alloc(1 << 20)


def test_device_loss_on_readback_is_reported(monkeypatch):
    rt = get_backend().rt
    x = webtorch.ones(8, device="webgpu") * 2

    def lost(*args, **kwargs):
        raise RuntimeError("Parent device is lost")
    monkeypatch.setattr(rt.device.queue, "read_buffer", lost)
    with pytest.raises(DeviceLostError, match="the WebGPU device was lost"):
        x.sum().item()


def test_no_buffer_leak_over_1000_training_steps():
    webtorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).to("webgpu")
    opt = webtorch.optim.Adam(model.parameters(), lr=1e-3)
    x = webtorch.randn(8, 16, device="webgpu")
    y = webtorch.randint(0, 4, (8,), device="webgpu")

    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    first_loss = step()
    step()
    gc.collect()
    baseline = webtorch.webgpu.memory_allocated()
    for i in range(1000):
        last = step()
        if i % 100 == 99:
            assert webtorch.webgpu.memory_allocated() == baseline, f"memory grew by step {i + 1}"
    assert last < first_loss


def test_a_failed_allocation_in_a_flush_names_the_op_and_spares_later_work(monkeypatch):
    """The op whose buffer cannot be allocated raises OutOfMemoryError with the size; what was recorded before
    it ran, and the next, unrelated op works (no buffer is left invalid)."""
    rt = get_backend().rt
    real = rt.device.create_buffer

    def refuse_big(**kwargs):
        if kwargs["size"] >= 1 << 24:
            raise RuntimeError("Not enough memory left")
        return real(**kwargs)
    small = webtorch.ones(10, device="webgpu")
    webtorch.webgpu.synchronize()
    webtorch.webgpu.empty_cache()
    monkeypatch.setattr(rt.device, "create_buffer", refuse_big)
    done = small * 2
    big = webtorch.ones(5 << 20, device="webgpu") * 3
    with pytest.raises(webtorch.OutOfMemoryError, match=r"could not allocate \d+ bytes.* -- needed by "):
        big.sum().item()
    assert done.tolist() == [2.0] * 10
    assert (small + 1).sum().item() == 20.0


def test_an_allocation_past_max_buffer_size_is_out_of_memory_and_later_work_runs():
    rt = get_backend().rt
    with pytest.raises(OutOfMemoryError, match=r"could not allocate \d+ bytes"):
        rt.alloc(rt.limits["maxBufferSize"] + 16)
    assert (webtorch.arange(4.0, device="webgpu") * 2).tolist() == [0.0, 2.0, 4.0, 6.0]
