"""Which device should code land on in the page? The options of issue 19 §3 measured on the compat suite
(tests/compat/: PyTorch programs written for CPU or CUDA machines, run unmodified with ``import torch`` ->
webtorch from PyTorch's initial weights): per option, how many programs give PyTorch's outcome and how long
they take.

    .venv/bin/python bench/bench_device_policy.py [--programs a,b] [--out PATH]
    .venv/bin/python bench/bench_device_policy.py --browser [--programs a,b]   # inside the page (Chromium)

Options (default device; what ``torch.accelerator`` reports; what "cuda" names):
  pytorch         "cpu"; webgpu; none    -- PyTorch's rule: tensors stay on cpu unless the program moves them to
                                            the accelerator it probed for (the page on a CPU-fallback adapter)
  pytorch+cuda    "cpu"; webgpu; webgpu  -- the same with the cuda alias on: programs that pick "cuda" when
                                            torch.cuda.is_available() train on webgpu (the page on a GPU adapter)
  webgpu-default  "webgpu"; webgpu; none -- the page's policy until issue 19: every unnamed tensor on webgpu
  cpu-only        "cpu"; none; none      -- a browser without WebGPU
Runs in CPython: "cpu" is whatever serves it here (WEBTORCH_CPU_BACKEND: numpy by default, wasm), webgpu is
wgpu-py (lavapipe on these machines), so the seconds compare options within one run, not the page's speed.
Writes bench/results/device_policy.json.

``--browser``: the same programs inside Pyodide in headless Chromium (WebGPU on SwiftShader, the page's "cpu" the
WebAssembly backend), one fresh page per option (bench/browser/compat_programs.py), plus the page as it was before
issue 19 ("before": "cpu" was the NumPy backend, which the offline page cannot load; default webgpu). Programs run
with BROWSER_ARGS (fewer steps: SwiftShader is slow). Writes bench/results/device_policy_browser.json.
"""
import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from _report import report

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "support"))

from compat_harness import PROGRAMS, differences, program_names, run_program  # noqa: E402

OPTIONS = {"pytorch": ("cpu", "webgpu", None), "pytorch+cuda": ("cpu", "webgpu", "webgpu"),
           "webgpu-default": ("webgpu", "webgpu", None), "cpu-only": ("cpu", None, None)}
BROWSER_OPTIONS = {"before": ("numpy", "webgpu", "webgpu", None), **{k: ("wasm", *v) for k, v in OPTIONS.items()}}
BROWSER_ARGS = {"regression": ["--epochs", "20"], "vae": ["--epochs", "15"]}


def _first_line(e):
    return f"raised {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


def row(option, default, accelerator, cuda, outcomes, seconds):
    """The table row of one option: ``outcomes`` {program: list of differences from PyTorch's report}."""
    failures = {n: bad[0] for n, bad in outcomes.items() if bad}
    return {"option": option, "default_device": default, "accelerator": accelerator or "none", "cuda": cuda or "none",
            "passed": len(outcomes) - len(failures), "programs": len(outcomes), "seconds": seconds,
            "failures": "; ".join(f"{k}: {v}" for k, v in failures.items())}


def native(names, refs, tmp):
    rows = []
    for option, (default, accelerator, cuda) in OPTIONS.items():
        outcomes, seconds = {}, 0.0
        for n in names:
            t0 = time.perf_counter()
            try:
                outcomes[n] = differences(refs[n], run_program(n, default, tmp / f"{n}.pt", accelerator=accelerator,
                                                              cuda=cuda))
            except Exception as e:  # noqa: BLE001 -- a program that raises is a failure of this option
                outcomes[n] = [_first_line(e)]
            seconds += time.perf_counter() - t0
        rows.append(row(option, default, accelerator, cuda, outcomes, seconds))
    return rows


def browser(names, refs, tmp):
    import shutil

    from webtorch_devtools.session import BrowserSession
    folder = tmp / "page"
    folder.mkdir()
    shutil.copy(Path(__file__).parent / "browser" / "compat_programs.py", folder)
    for n in names:
        shutil.copy(PROGRAMS / f"{n}.py", folder)
        shutil.copy(tmp / f"{n}.pt", folder)
    rows = []
    with BrowserSession() as session:
        for option, (cpu_backend, default, accelerator, cuda) in BROWSER_OPTIONS.items():
            cfg = {"names": names, "args": BROWSER_ARGS, "cpu_backend": cpu_backend, "default": default,
                   "accelerator": accelerator, "cuda": cuda}
            r = session.run(folder / "compat_programs.py", [json.dumps(cfg)], timeout=1800)
            results, seconds, current = {}, 0.0, None
            for ln in r.stdout.splitlines():
                if ln.startswith("PROGRAM "):
                    current = ln.split()[1]
                elif ln.startswith("RESULTS ") and current:
                    results[current] = json.loads(ln[len("RESULTS "):])
                elif ln.startswith("SECONDS "):
                    seconds += float(ln.split()[1])
            why = "did not run" if r.status == 0 else f"the page stopped (status {r.status}): {r.stderr[-300:]}"
            outcomes = {n: differences(refs[n], results[n]) if n in results else [why] for n in names}
            rows.append(row(option, default, accelerator, cuda, outcomes, seconds))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", default=",".join(program_names()))
    ap.add_argument("--browser", action="store_true", help="inside the page (Chromium) instead of CPython")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    names = args.programs.split(",")
    tmp = Path(tempfile.mkdtemp())
    argv_of = BROWSER_ARGS if args.browser else {}
    refs = {n: run_program(n, "torch", tmp / f"{n}.pt", argv_of.get(n, ())) for n in names}
    rows = (browser if args.browser else native)(names, refs, tmp)
    report("device_policy_browser" if args.browser else "device_policy", rows,
           [("option", "option", "s"), ("default_device", "default", "s"), ("accelerator", "accelerator", "s"),
            ("cuda", "cuda", "s"),
            ("passed", "passed", "d"), ("programs", "of", "d"), ("seconds", "seconds (all programs)", ".1f"),
            ("failures", "first difference per failing program", "s")], path=args.out,
           cpu_backend="page" if args.browser else os.environ.get("WEBTORCH_CPU_BACKEND", "numpy"), programs=names,
           program_args=argv_of)


if __name__ == "__main__":
    main()
