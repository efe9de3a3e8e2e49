"""A training step inside Pyodide crosses into bridge.js once, submits once and waits on the GPU once (for the
loss it reads): the step script of tests/backends/webgpu/test_step_sync.py, on the browser's WebGPU."""
import json
from pathlib import Path

SCRIPTS = Path(__file__).parent / "scripts"


def test_training_step_one_crossing_one_submit_in_browser(webtorch_browser):
    r = webtorch_browser.run(SCRIPTS / "step_sync.py")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["platform"] == "emscripten"
    one = {"readbacks": 1, "flushes": 1, "submits": 1, "bridge_calls": 1, "gpu_waits": 1}
    assert out["per_step"] == [one] * len(out["per_step"]), out["per_step"]
    assert out["steps"] == [7.0] * 4
    assert out["losses"][-1] < out["losses"][0] and out["fallbacks"] == {}
