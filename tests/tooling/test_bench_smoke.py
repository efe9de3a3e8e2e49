"""The benchmarks in bench/ keep running: each script's quick mode runs to the end and writes its JSON.

Only the JSON's structure is checked (and that the three training backends reach the same loss), never a
timing: figures from a shared CI machine mean nothing.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from devices import DEVICES

BENCH = str(Path(__file__).resolve().parents[2] / "bench")
HAS_WEBGPU = "webgpu" in DEVICES


def run_bench(script, tmp_path, *args):
    out = tmp_path / f"{script}.json"
    proc = subprocess.run([sys.executable, os.path.join(BENCH, f"{script}.py"), *args, "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout}\n{proc.stderr}"
    assert out.exists(), f"{script} wrote no JSON:\n{proc.stdout}"
    with open(out) as f:
        data = json.load(f)
    for key in ("benchmark", "timestamp", "machine", "rows"):
        assert key in data, f"{script}: JSON lacks {key!r}"
    assert data["rows"], f"{script}: no rows"
    return data, proc.stdout


def test_training_quick(tmp_path):
    data, stdout = run_bench("bench_training", tmp_path, "--quick")
    assert data["benchmark"] == "training" and data["quick"] is True
    assert [r["model"] for r in data["rows"]] == ["mlp", "lenet"]
    counters = ["dispatches_per_step", "submits_per_step", "flushes_per_step", "host_fallbacks_per_step",
                "kernels_compiled_per_step", "nodes_fused_per_step"]
    for row in data["rows"]:
        for name in ("cpu", "webgpu", "torch"):
            assert f"steps_per_s_{name}" in row and f"final_loss_{name}" in row
        for key in ["webgpu_vs_cpu", "webgpu_vs_torch", "cpu_vs_torch", "host_fallback_ops"] + counters:
            assert key in row, f"row {row['model']} lacks {key!r}"
        assert isinstance(row["steps_per_s_cpu"], float) and isinstance(row["steps_per_s_torch"], float)
        # Same initial weights and data on every backend: a backend that trains differently shows here.
        assert row["max_loss_deviation_from_torch"] < 1e-4, row
        if HAS_WEBGPU:
            assert isinstance(row["steps_per_s_webgpu"], float)
            assert data["webgpu_adapter"]
            assert all(isinstance(row[k], float) for k in counters)
            assert isinstance(row["host_fallback_ops"], list)
        else:
            assert row["steps_per_s_webgpu"] is None and row["dispatches_per_step"] is None
    assert "steps/s" in stdout and "mlp" in stdout and "lenet" in stdout


# (script, arguments of a quick run, the benchmark name its JSON carries)
CPU_BENCHES = [
    ("bench_core", ["--repeat", "1", "--steps", "2"], "core"),
    ("bench_optim", ["--steps", "2"], "optim"),
    ("bench_rng", ["--n", "1000", "--repeat", "1"], "rng"),
    ("bench_wasm_fusion", ["--sizes", "1024", "--repeat", "1"], "wasm_fusion"),
]
WEBGPU_BENCHES = [
    ("bench_matmul", ["--sizes", "64", "--seconds", "0.01"], "matmul"),
    ("bench_conv", ["--batch", "1", "--cin", "2", "--cout", "4", "--size", "6", "--seconds", "0.01"], "conv"),
    ("bench_int64", ["--quick"], "int64"),
    ("bench_capture", ["--steps", "1", "--models", "mlp"], "capture"),
    ("bench_views", ["--repeat", "1", "--number", "5"], "views"),
    ("bench_gpt2_small", ["--layers", "1", "--ctx", "4", "--steps", "1"], "gpt2_small"),
]


@pytest.mark.parametrize("script,args,name", [pytest.param(*b, id=b[0]) for b in
                                              CPU_BENCHES + (WEBGPU_BENCHES if HAS_WEBGPU else [])])
def test_bench_quick(script, args, name, tmp_path):
    data, _ = run_bench(script, tmp_path, *args)
    assert data["benchmark"] == name
