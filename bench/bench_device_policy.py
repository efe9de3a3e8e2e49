"""Which device should code land on in the page? The options of issue 19 §3 measured on the compat suite
(tests/compat/: PyTorch programs written for CPU or CUDA machines, run unmodified with ``import torch`` ->
webtorch from PyTorch's initial weights): per option, how many programs give PyTorch's outcome and how long
they take.

    .venv/bin/python bench/bench_device_policy.py [--programs a,b] [--out PATH]

Options (default device; what ``torch.accelerator`` reports; ``torch.cuda.is_available()`` stays False):
  pytorch         "cpu"; webgpu       -- PyTorch's rule: tensors stay on cpu unless the program moves them to
                                         the accelerator it probed for
  webgpu-default  "webgpu"; webgpu    -- the page's policy until issue 19: every unnamed tensor on webgpu
  cpu-only        "cpu"; none         -- a browser without WebGPU
Runs in CPython: "cpu" is whatever serves it here (WEBTORCH_CPU_BACKEND: numpy by default, wasm), webgpu is
wgpu-py (lavapipe on these machines), so the seconds compare options within one run, not the page's speed.
Writes bench/results/device_policy.json.
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from _report import report

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests"))

from compat_harness import differences, program_names, run_program  # noqa: E402

OPTIONS = {"pytorch": ("cpu", "webgpu"), "webgpu-default": ("webgpu", "webgpu"), "cpu-only": ("cpu", None)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", default=",".join(program_names()))
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    names = args.programs.split(",")
    rows, tmp = [], Path(tempfile.mkdtemp())
    refs = {n: run_program(n, "torch", tmp / f"{n}.pt") for n in names}
    for option, (default, accelerator) in OPTIONS.items():
        passed, seconds, failures = 0, 0.0, {}
        for n in names:
            t0 = time.perf_counter()
            try:
                bad = differences(refs[n], run_program(n, default, tmp / f"{n}.pt", accelerator=accelerator))
            except Exception as e:  # noqa: BLE001 -- a program that raises is a failure of this option
                bad = [f"raised {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"]
            seconds += time.perf_counter() - t0
            if bad:
                failures[n] = bad[0]
            else:
                passed += 1
        rows.append({"option": option, "default_device": default, "accelerator": accelerator or "none",
                     "passed": passed, "programs": len(names), "seconds": seconds,
                     "failures": "; ".join(f"{k}: {v}" for k, v in failures.items())})
    report("device_policy", rows, [("option", "option", "s"), ("default_device", "default", "s"),
                                   ("accelerator", "accelerator", "s"), ("passed", "passed", "d"),
                                   ("programs", "of", "d"), ("seconds", "seconds (all programs)", ".1f"),
                                   ("failures", "first difference per failing program", "s")],
           path=args.out, cpu_backend=os.environ.get("WEBTORCH_CPU_BACKEND", "numpy"), programs=names)


if __name__ == "__main__":
    main()
