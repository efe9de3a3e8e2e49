"""bench/bench_browser.py keeps running: its quick mode (webtorch in Pyodide, TF.js and jax-js in the same
headless Chromium, here on two of the models, the frameworks taking turns in two rounds) runs to the end and writes
its JSON and markdown table.
Structure, counters and the cross-check of the first losses (same initial values and data: the same math)
are checked, never a timing."""
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_browser_quick(tmp_path):
    out = tmp_path / "browser.json"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_browser.py"), "--quick", "--models", "mlp,lenet",
                           "--out", str(out)], capture_output=True, text=True, timeout=1200, cwd=ROOT)
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
    rows = data["rows"]
    assert [(r["model"], r["framework"].split()[0]) for r in rows] == [
        (m, fw) for m in ("mlp", "lenet") for fw in ("webtorch", "TensorFlow.js", "jax-js")]
    ours = {r["model"]: r for r in rows if r["framework"].startswith("webtorch")}
    for row in rows:
        assert row["error"] == "", row  # every peer ran every model in this browser
        assert len(row["rounds_ms"]) == data["rounds"] == 2, row  # the frameworks took turns in rounds
        assert row["steps_per_s"] > 0 and row["webtorch_vs_min"] <= row["webtorch_vs"] <= row["webtorch_vs_max"]
        assert row["first_loss_diff"] < 1e-3 * row["first_loss"], row  # the same math as webtorch
        # as many steps on the same data: the same loss after them
        assert abs(row["final_loss"] - ours[row["model"]]["final_loss"]) < 1e-3 * row["first_loss"], row
    for r in data["kernels"]:
        assert all(v > 0 for k, v in r.items() if k not in ("what", "vs")), r
        assert all(math.isfinite(m) and lo <= m <= hi for m, lo, hi in r["vs"].values()), r
    assert all(v > 0 for v in data["cold_start_ms"].values()), data["cold_start_ms"]
    md = out.with_suffix(".md").read_text()
    assert data["adapter"] in md and data["browser"] in md and "| LeNet-5" in md
