"""Real PyTorch programs (tests/compat/) run unmodified on webtorch: the same outcome and close numbers from
the same initial weights, on cpu and with the default device "webgpu"."""
import pytest

from compat_harness import program_names, run_program, differences
from devices import DEVICES

_torch_results = {}


def _reference(name, tmp_path_factory):
    if name not in _torch_results:
        init = tmp_path_factory.mktemp(f"compat_{name}") / "init.pt"
        _torch_results[name] = (run_program(name, "torch", init), init)
    return _torch_results[name]


@pytest.mark.parametrize("mode", ["cpu", "webgpu"])
@pytest.mark.parametrize("name", program_names())
def test_program_runs_unmodified(name, mode, tmp_path_factory):
    if mode not in DEVICES:
        pytest.fail("no webgpu adapter (WEBTORCH_REQUIRE_WEBGPU=1 makes that a set-up error)")
    ref, init = _reference(name, tmp_path_factory)
    ours = run_program(name, mode, init)
    assert differences(ref, ours) == []


def test_differences_catch_a_wrong_number():
    ref = {"close": {"loss": [1.0, 0.5]}, "same": {"pred": [0, 1]}, "check": {"learns": True}}
    assert differences(ref, ref) == []
    assert differences(ref, {"close": {"loss": [1.0, 0.51]}, "same": {"pred": [0, 1]}, "check": {}})
    assert differences(ref, {"close": {"loss": [1.0, 0.5]}, "same": {"pred": [1, 1]}, "check": {}})
    assert differences(ref, {"close": {"loss": [1.0, 0.5]}, "same": {"pred": [0, 1]}, "check": {"learns": False}})
