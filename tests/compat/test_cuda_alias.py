"""The cuda alias (webtorch/_cuda_alias.py): off in CPython unless asked; when on, the CUDA idiom trains on webgpu
and torch.cuda answers for the webgpu device; the page's automatic rule (on for a GPU adapter, off on a CPU
fallback or without WebGPU) is checked here with the adapter's answer stubbed, and in Chromium by
tests/browser/test_cpu_page.py and tests/browser/test_notebook_app.py."""
import warnings

import pytest

import webtorch
from webtorch import _cuda_alias


@pytest.fixture
def alias(monkeypatch):
    """Restores the alias's choice after the test; the environment variable is unset inside it."""
    monkeypatch.delenv("WEBTORCH_CUDA", raising=False)
    monkeypatch.setitem(_cuda_alias._choice, "webgpu", None)
    return _cuda_alias


def test_off_in_cpython_by_default(alias):
    assert not webtorch.cuda.is_available() and webtorch.cuda.device_count() == 0
    assert webtorch.device("cuda").type == "cuda" and not webtorch.zeros(2).is_cuda
    with pytest.raises(RuntimeError, match="Torch not compiled with CUDA enabled"):
        webtorch.zeros(2).cuda()
    with pytest.raises(RuntimeError, match="no CUDA device"):
        webtorch.nn.Linear(2, 2).cuda()
    assert webtorch.get_default_device() == webtorch.device("cpu")
    assert alias.status() == (False, "off in CPython unless asked for (webtorch.cuda.use_webgpu() or "
                                     "WEBTORCH_CUDA=webgpu)")


def test_on_the_cuda_idiom_trains_on_webgpu(alias):
    webtorch.cuda.use_webgpu()
    assert webtorch.cuda.is_available() and webtorch.cuda.device_count() == 1
    device = "cuda" if webtorch.cuda.is_available() else "cpu"
    webtorch.manual_seed(0)
    model = webtorch.nn.Linear(3, 1).to(device)
    assert model.weight.device == webtorch.device("webgpu") and model.weight.is_cuda
    assert webtorch.device("cuda:0") == webtorch.device("webgpu", 0) and str(webtorch.device("cuda")) == "webgpu"
    x = webtorch.randn(8, 3).cuda()
    y = webtorch.ones(8, 1, device=webtorch.device("cuda"))
    opt = webtorch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(5):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert webtorch.nn.Linear(2, 2).cuda().weight.device.type == "webgpu"
    assert webtorch.cuda.FloatTensor([1.0, 2.0]).device.type == "webgpu"
    assert webtorch.zeros(1).long().type(webtorch.cuda.FloatTensor).device.type == "webgpu"
    assert webtorch.zeros(1).type("torch.cuda.LongTensor").dtype is webtorch.int64
    assert webtorch.cuda.current_device() == 0 and webtorch.cuda.get_device_name(0) == webtorch.webgpu.info()["adapter"]
    webtorch.cuda.synchronize()
    assert webtorch.cuda.memory_allocated() == webtorch.webgpu.memory_allocated()
    webtorch.cuda.manual_seed(3)
    a = webtorch.rand(4, device="cuda").tolist()
    webtorch.webgpu.manual_seed(3)
    assert webtorch.rand(4, device="webgpu").tolist() == a
    assert isinstance(webtorch.cuda.CUDAGraph(), webtorch.webgpu.Graph)
    with pytest.raises(RuntimeError, match="Invalid device index 1"):
        webtorch.cuda.set_device(1)
    with pytest.raises(RuntimeError, match="no CUDA properties"):
        webtorch.cuda.get_device_capability()
    with pytest.raises(RuntimeError, match="keeps no peak of reserved memory"):
        webtorch.cuda.max_memory_reserved()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with webtorch.autocast("cuda"):
            assert not webtorch.is_autocast_enabled("cuda")
        assert not webtorch.amp.GradScaler("cuda").is_enabled()
    assert len(caught) == 2 and all("names webtorch's webgpu device" in str(w.message) for w in caught)
    assert alias.status() == (True, "switched on (webtorch.cuda.use_webgpu() or WEBTORCH_CUDA=webgpu)")
    webtorch.cuda.use_webgpu(False)
    assert not webtorch.cuda.is_available() and webtorch.device("cuda").type == "cuda"


def test_environment_variable(alias, monkeypatch):
    monkeypatch.setenv("WEBTORCH_CUDA", "webgpu")
    assert webtorch.cuda.is_available() and webtorch.device("cuda").type == "webgpu"
    monkeypatch.setenv("WEBTORCH_CUDA", "none")
    assert not webtorch.cuda.is_available()
    monkeypatch.setenv("WEBTORCH_CUDA", "yes")
    with pytest.raises(RuntimeError, match="WEBTORCH_CUDA='yes' is not understood"):
        webtorch.cuda.is_available()


@pytest.mark.parametrize("adapter,on", [("gpu", True), ("cpu fallback", False), (None, False)])
def test_the_pages_automatic_rule(alias, monkeypatch, adapter, on):
    monkeypatch.setattr(_cuda_alias.sys, "platform", "emscripten")
    monkeypatch.setattr(_cuda_alias, "_adapter", lambda: adapter)
    assert alias.is_on() is on
    why = alias.status()[1]
    assert why == {"gpu": "the WebGPU adapter is a GPU",
                   "cpu fallback": "the WebGPU adapter is a CPU fallback, where \"cpu\" trains faster; "
                                   "webtorch.cuda.use_webgpu() turns it on",
                   None: "unavailable: this browser has no WebGPU adapter"}[adapter]
    webtorch.cuda.use_webgpu(True)  # asked for: on wherever there is an adapter
    assert alias.is_on() is (adapter is not None)
    webtorch.cuda.use_webgpu(False)
    assert not alias.is_on()
