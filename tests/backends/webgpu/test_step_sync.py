"""A webgpu training step waits on the device once (for the loss it reads), natively as in the browser:
optimizer step counters keep a host-side copy, index and target range checks use bounds the host knows.
(tests/browser/test_step_sync_browser.py runs the same step script inside Pyodide.)"""
import runpy
from pathlib import Path

import pytest
import torch

import webtorch

STEP_SCRIPT = Path(__file__).resolve().parents[2] / "browser" / "scripts" / "step_sync.py"


@pytest.fixture
def webgpu():
    if not webtorch.webgpu.is_available():
        raise RuntimeError("no WebGPU adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    return "webgpu"


@pytest.fixture
def on_webgpu(webgpu):
    """Default device webgpu (as in Pyodide): optimizer step counters are created on the GPU."""
    webtorch.set_default_device(webgpu)
    try:
        yield webgpu
    finally:
        webtorch.set_default_device("cpu")


def _syncs():
    s = webtorch.webgpu.stats()
    return s["readbacks"], s["flushes"]


def test_training_step_flushes_and_reads_once(on_webgpu):
    out = runpy.run_path(str(STEP_SCRIPT))["main"]()
    assert out["per_step"] == [{"readbacks": 1, "flushes": 1, "submits": 1}] * len(out["per_step"])
    assert out["steps"] == [7.0] * 4  # the device's counters agree with the host's copies
    assert out["fallbacks"] == {}


def _trajectory(m, opt_cls, device, steps=5, poke_at=3, **kw):
    """Parameters after ``steps`` steps of opt_cls on a fixed problem; at ``poke_at`` the step counters (and
    NAdam's mu_product) are overwritten in place, which a stale host copy would miss."""
    w = m.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], device=device, requires_grad=True)
    b = m.tensor([0.1, -0.2], device=device, requires_grad=True)
    x = m.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], device=device)
    opt = opt_cls([w, b], lr=0.1, **kw)
    for i in range(steps):
        if i == poke_at:
            for p in (w, b):
                opt.state[p]["step"].fill_(20.0)
                if "mu_product" in opt.state[p]:
                    opt.state[p]["mu_product"].mul_(0.5)
        opt.zero_grad()
        ((x @ w.t() + b) ** 2).sum().backward()
        opt.step()
    state = opt.state_dict()["state"]
    return [w.tolist(), b.tolist()], [state[i]["step"].item() for i in (0, 1)], sorted(state[0])


@pytest.mark.parametrize("opt_name,kw", [("Adam", {}), ("Adam", {"foreach": False}), ("AdamW", {"amsgrad": True}),
                                         ("NAdam", {}), ("NAdam", {"foreach": False}), ("RAdam", {}),
                                         ("Adamax", {}), ("Adagrad", {})])
def test_step_counters_host_copy_matches_torch(on_webgpu, opt_name, kw):
    ours = _trajectory(webtorch, getattr(webtorch.optim, opt_name), on_webgpu, **kw)
    ref = _trajectory(torch, getattr(torch.optim, opt_name), "cpu", **kw)
    assert ours[1] == ref[1] == [22.0, 22.0]
    assert ours[2] == ref[2]  # state_dict layout: PyTorch's keys
    for a, b in zip(ours[0], ref[0]):
        assert torch.allclose(torch.tensor(a), torch.tensor(b), rtol=1e-5, atol=1e-6), (a, b)


def test_optimizer_step_reads_nothing(on_webgpu):
    w = webtorch.zeros(4, requires_grad=True)
    opt = webtorch.optim.Adam([w], lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        (w - 1).pow(2).sum().backward()
        before = _syncs()
        opt.step()
        assert _syncs() == before
    assert opt.state[w]["step"].device.type == "webgpu" and opt.state[w]["step"].item() == 3.0


def test_index_checks_skip_readback_when_bounds_known(webgpu):
    x = webtorch.arange(40.0, device=webgpu).reshape(10, 4)
    perm = webtorch.randperm(10, generator=webtorch.Generator(device=webgpu).manual_seed(0), device=webgpu)
    labels = webtorch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], dtype=webtorch.int32, device=webgpu).long()
    logits = webtorch.randn(4, 10, device=webgpu)
    webtorch.webgpu.synchronize()
    before = _syncs()
    idx = perm[2:6]
    rows, ys = x[idx], labels[idx]  # randperm's range, carried through the slice
    picked = x[logits.argmax(dim=1)]  # argmax lies in [0, 10)
    loss = webtorch.nn.functional.cross_entropy(logits, ys)  # targets gathered from uploaded labels
    emb = webtorch.nn.functional.embedding(ys, x)
    assert _syncs() == before  # nothing read, nothing flushed yet
    p = perm.tolist()
    lab = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
    assert rows.tolist() == [[4.0 * i + j for j in range(4)] for i in p[2:6]]
    assert ys.tolist() == [lab[i] for i in p[2:6]] and emb.tolist() == x[ys].tolist()
    assert picked.shape == (4, 4) and loss.item() > 0


def test_index_checks_of_device_indices_need_no_readback(webgpu):
    x = webtorch.arange(10.0, device=webgpu)
    computed = (webtorch.arange(4, device=webgpu) * 3) % 7  # made on the device: range unknown to the host
    webtorch.webgpu.synchronize()
    before = _syncs()
    picked = x[computed]  # checked by the kernel (device_checks.py), not by a readback
    assert _syncs() == before
    assert picked.tolist() == [0.0, 3.0, 6.0, 2.0]
    wide = webtorch.tensor([0, 1, 50], device=webgpu)  # the storage's bound (50) is out of range, the view's not
    assert x[wide[:2]].tolist() == [0.0, 1.0]
    with pytest.raises(IndexError, match="index 50 is out of bounds for dimension 0 with size 10"):
        x[wide]  # host-known values of the whole view: raised at once
    with pytest.raises(IndexError, match="index 12 is out of bounds for dimension 0 with size 10"):
        x[computed * 2].tolist()  # raised by the next read
    with pytest.raises(IndexError, match="index -11 is out of bounds for dimension 0 with size 10"):
        x[computed - 11].tolist()


@pytest.mark.parametrize("target", [[1, 12], [-3, 0]])
def test_target_out_of_range_raises_on_webgpu_as_on_cpu(webgpu, target):
    for dev in ("cpu", webgpu):
        logits = webtorch.zeros(2, 10, device=dev)
        with pytest.raises(IndexError, match=f"Target {target[0] if target[0] < 0 else target[1]} is out of bounds"):
            webtorch.nn.functional.cross_entropy(logits, webtorch.tensor(target, device=dev))
        computed = webtorch.tensor(target, device=dev) * 1  # range unknown on webgpu: checked by the kernel
        with pytest.raises(IndexError, match="is out of bounds"):
            webtorch.nn.functional.nll_loss(logits, computed).item()
    with pytest.raises(IndexError, match="Target"):
        torch.nn.functional.cross_entropy(torch.zeros(2, 10), torch.tensor(target))
