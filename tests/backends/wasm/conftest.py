"""The wasm backend's tests' fixture: device "cpu" served by the wasm backend for one test."""
import pytest

from webtorch import _device
from webtorch.backends.wasm import get_backend


@pytest.fixture
def wasm_cpu():
    """Device "cpu" is the wasm backend for the test (and its default generator a Philox stream of it)."""
    from webtorch.ops import creation
    saved = _device._backends.get("cpu")
    _device._backends["cpu"] = get_backend()
    gen = creation.default_generator("cpu")
    saved_rng, gen._rng = gen._rng, None
    yield
    gen._rng = saved_rng
    if saved is None:
        _device._backends.pop("cpu", None)
    else:
        _device._backends["cpu"] = saved
