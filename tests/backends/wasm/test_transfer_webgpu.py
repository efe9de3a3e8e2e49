"""Copies between the page's two devices, cpu (the wasm backend) and webgpu, move bytes (no NumPy: the page has
none), for every dtype both hold, contiguous or not. Run on the backends directly, whatever serves "cpu" here."""
import pytest

import webtorch as torch
from webtorch.backends import wasm
from webtorch._device import backend_for
from devices import DEVICES

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.float32]
VALUES = [[1, 0, 3], [4, 5, 0]]


def _webgpu():
    if "webgpu" not in DEVICES:
        pytest.fail("no webgpu adapter (WEBTORCH_REQUIRE_WEBGPU=1 makes that a set-up error)")
    return backend_for("webgpu")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_wasm_to_webgpu_and_back(dtype):
    cpu, gpu = wasm.get_backend(), _webgpu()
    want = [[bool(v) for v in row] for row in VALUES] if dtype is torch.bool else VALUES
    h = cpu.from_flat([v for row in VALUES for v in row], (2, 3), dtype)
    g = cpu.to_other(h, gpu)
    assert gpu.tolist(g) == want
    t = cpu.as_strided(h, (3, 2), (1, 3), 0)  # the transpose: copied in C order
    assert gpu.tolist(cpu.to_other(t, gpu)) == [list(c) for c in zip(*want)]
    back = gpu.to_other(gpu.as_strided(g, (3, 2), (1, 3), 0), cpu)
    assert cpu.tolist(back) == [list(c) for c in zip(*want)]


def test_bool_bytes_upload():
    gpu = _webgpu()
    assert gpu.tolist(gpu.from_buffer(bytes([1, 0, 0, 1, 1]), (5,), torch.bool)) == [True, False, False, True, True]
