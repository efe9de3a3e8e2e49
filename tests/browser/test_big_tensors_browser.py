"""Tensors past one storage binding on the browser's WebGPU: windows bound through bridge.js give the numbers of
whole bindings, and so do the row and plane families run in blocks (tests/backends/webgpu/test_big_tensors.py and
test_big_tensors_blocks.py check each family natively), and the device was
granted the adapter's own limits rather than WebGPU's defaults."""
import json
from pathlib import Path

SCRIPTS = Path(__file__).parent / "scripts"


def test_windows_in_the_page_give_the_numbers_of_whole_bindings(webtorch_browser):
    r = webtorch_browser.run(SCRIPTS / "big_tensors.py")
    assert r.status == 0, f"status {r.status}\n{r.stdout}\n{r.stderr}"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["binding"] > 1 << 27  # SwiftShader grants 1 GiB when asked; WebGPU's default is 128 MiB
    assert out["values"] == 5 + 7 + 300 * 24 and out["max_difference"] < 1e-5, out
