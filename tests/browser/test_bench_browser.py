"""bench/bench_browser.py keeps running: its quick mode (webtorch in Pyodide, TF.js and jax-js in the same
headless Chromium) runs to the end and writes its JSON. Structure and counters are checked, never a timing."""
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_browser_quick(tmp_path):
    out = tmp_path / "browser.json"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_browser.py"), "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    data = json.loads(out.read_text())
    assert data["benchmark"] == "browser" and data["quick"] is True
    f = data["figures"]
    # steady state: the step's work and the loss readback share one bridge call and one submit
    assert f["bridge_calls_per_step"] == 1 and f["submits_per_step"] == 1 and f["readbacks_per_step"] == 1
    assert f["host_fallbacks_per_step"] == 0
    for key in ("record_us_no_grad", "record_us_autograd", "pyodide_boot_ms", "first_step_ms",
                "cold_start_overhead_ms", "wheel_kib"):
        assert isinstance(f[key], (int, float)) and f[key] > 0, (key, f[key])
    names = [r["framework"] for r in data["rows"]]
    assert names[0].startswith("webtorch") and any("TensorFlow.js" in n for n in names) and \
        any("jax-js" in n for n in names)
    for row in data["rows"]:
        assert row["error"] == "", row  # every peer ran in this browser
        assert row["steps_per_s"] > 0 and math.isfinite(row["webtorch_vs"])
        assert 0 < row["final_loss"] < 5  # softmax cross-entropy over 10 classes starts near ln(10)
    assert "steps/s" in proc.stdout and "webtorch / it" in proc.stdout
