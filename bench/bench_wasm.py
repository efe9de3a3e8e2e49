"""Device "cpu" on WebAssembly (wasmtime, in CPython) vs on NumPy, in one run.

    .venv/bin/python bench/bench_wasm.py [--repeat 5] [--steps 10]

Measures, for each cpu backend (a child process each, WEBTORCH_CPU_BACKEND=numpy|wasm): matmul GFLOP/s of
float32 n x n at 256, 512, 1024 per second of the process's CPU time (the wasm column is kernels.wasm's blocked SIMD128 GEMM, one thread; the numpy
column NumPy's OpenBLAS sgemm on one thread, the physical reference), the Python cost per small op (bench_core's
16-element ops), and one MLP 784-256-10 Adam training step, also in process CPU time. Prints a table with the ratio wasm / numpy (GFLOP/s:
higher is better; times: lower is better) and writes bench/results/wasm.json. Each figure is the best of
``repeat`` timed batches.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import timeit

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from _report import last_json_line, report  # noqa: E402

SIZES = (256, 512, 1024)


def matmul_gflops(lib, n, repeat):
    a, b = lib.randn(n, n), lib.randn(n, n)
    a @ b
    # timed in the process's CPU time (one thread on both sides): on a shared machine the wall clock also counts the
    # time the process waited for a core
    best = min(timeit.repeat(lambda: a @ b, number=1, repeat=max(4 * repeat, 8), timer=time.process_time))
    return 2 * n ** 3 / best / 1e9


def child(repeat, steps):
    import webtorch
    from bench_core import mlp_step_ms, per_op
    res = {f"matmul {n} f32 [GFLOP/s]": matmul_gflops(webtorch, n, repeat) for n in SIZES}
    # per-op and step times in the process's CPU time too: on a shared machine the wall clock counts waits for a core
    res.update({f"{k} [us/op]": v for k, v in per_op(webtorch, repeat, time.process_time).items()})
    res["MLP 784-256-10 b128 Adam step [ms]"] = mlp_step_ms(webtorch, steps, repeat, time.process_time)
    print(json.dumps(res))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help="where to write the JSON (default bench/results/wasm.json)")
    args = ap.parse_args()
    if args.child:
        return child(args.repeat, args.steps)
    here = os.path.dirname(os.path.abspath(__file__))
    runs = {}
    for backend in ("numpy", "wasm"):
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--repeat", str(args.repeat),
                              "--steps", str(args.steps)], env=dict(os.environ, WEBTORCH_CPU_BACKEND=backend),
                             cwd=here, check=True, capture_output=True, text=True).stdout
        runs[backend] = last_json_line(out)
    rows = [{"metric": k, "numpy": runs["numpy"][k], "wasm": runs["wasm"][k], "ratio": runs["wasm"][k] / runs["numpy"][k]}
            for k in runs["numpy"]]
    report("wasm", rows, [("metric", "metric", "s"), ("numpy", "cpu numpy", ".2f"), ("wasm", "cpu wasm", ".2f"),
                          ("ratio", "wasm/numpy", ".2f")], path=args.out, repeat=args.repeat, steps=args.steps)


if __name__ == "__main__":
    main()
