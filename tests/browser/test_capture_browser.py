"""A captured training step replays inside Pyodide as natively: equal to the eager steps bit for bit, one call
into bridge.js per replayed step with its loss read (the script of tests/backends/webgpu/test_capture.py's native run)."""
import json
from pathlib import Path

SCRIPTS = Path(__file__).parent / "scripts"


def test_captured_step_replays_in_browser(webtorch_browser):
    r = webtorch_browser.run(SCRIPTS / "capture_replay.py")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["replayed"] == out["eager"] and out["same_params"], out
    assert out["dispatches"] > 0
    assert out["per_replay"] == [{"submits": 1, "readbacks": 1, "bridge_calls": 1}] * len(out["per_replay"]), out
