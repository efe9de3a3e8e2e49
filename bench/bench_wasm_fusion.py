"""Fused elementwise chains on device "cpu" (wasm, through wasmtime): the backend with fusion on vs off, in one run.

    .venv/bin/python bench/bench_wasm_fusion.py [--repeat 5] [--sizes 1024 16384 ...] [--steps 10]

Chains: GELU-tanh as ops/activation.py composes it (9 ops on x) and an affine + SiLU (6 ops on x, w, b), float32,
1K to 1M elements, through the public ops under no_grad (Python cost per op included), then the pending chain run
(backends/wasm/chain.py: ``Chain.flush``). "fused" records them into one ``ew_chain_float32`` kernel call whatever
their size (the threshold ``Chain.min_bytes`` lowered to 1, so the table shows where fusing pays), "per op" runs them
with fusion off (``Chain.set_enabled(False)``, as ``WEBTORCH_WASM_FUSION=0``); both results are compared bit for bit.
Then training steps as bench/browser/models.py builds them (MLP 784-256-10 Adam b128, 2-layer LSTM Adam), with the
backend's defaults, fusion on vs off. Each figure is the best of ``repeat`` batches of process time, the two modes
interleaved. Writes bench/results/wasm_fusion.json.
"""
import argparse
import os
import sys
import time
import timeit

os.environ["WEBTORCH_CPU_BACKEND"] = "wasm"
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "browser"))

from _report import report  # noqa: E402

K_GELU = 0.7978845608028654  # sqrt(2 / pi)
CHAINS = {
    "GELU-tanh (9 ops)": lambda x, w, b: x * 0.5 * (1.0 + ((x + x * x * x * 0.044715) * K_GELU).tanh()),
    "affine + SiLU (6 ops)": lambda x, w, b: (lambda y: y * y.sigmoid())((x - 0.25) * 1.5 * w + b),
}
SIZES = (1024, 4096, 16384, 65536, 262144, 1048576)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="element counts (default: 1K to 1M)")
    ap.add_argument("--steps", type=int, default=10, help="training steps per timed batch")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/wasm_fusion.json)")
    args = ap.parse_args()
    import models
    import webtorch
    from webtorch.backends.wasm import chain as chain_module, get_backend
    pending = get_backend()._ctx.chain

    def best(fns, number):
        """{mode: best us per call} of fns {mode: (fusion on, callable)}, the modes interleaved."""
        times = {mode: [] for mode in fns}
        for _ in range(args.repeat):
            for mode, (on, fn) in fns.items():
                pending.set_enabled(on)
                fn()
                times[mode].append(timeit.timeit(fn, number=number, timer=time.process_time) / number * 1e6)
        pending.set_enabled(True)
        return {mode: min(t) for mode, t in times.items()}

    def bits(t):
        return t.view(webtorch.int32).tolist()

    rows = []
    webtorch.manual_seed(0)
    default_min = pending.min_bytes
    pending.min_bytes = 1
    with webtorch.no_grad():
        for n in args.sizes:
            t = {k: webtorch.randn(n) for k in "xwb"}
            for name, fn in CHAINS.items():
                def run(fn=fn):
                    y = fn(**t)  # (held: a result nothing holds is never computed)
                    pending.flush()
                    return y
                pending.set_enabled(False)
                ref = bits(fn(**t))
                pending.set_enabled(True)
                identical = bits(fn(**t)) == ref
                us = best({"per_op": (False, run), "fused": (True, run)}, max(3, 1_000_000 // n))
                rows.append({"case": f"{name}, {n} floats", "per_op_us": us["per_op"], "fused_us": us["fused"],
                             "speedup": us["per_op"] / us["fused"], "bit_identical": identical})
    pending.min_bytes = default_min
    for name, label in (("mlp", "MLP 784-256-10 Adam b128 step"), ("lstm", "LSTM 2x128 seq 32 b16 Adam step")):
        losses = {}
        for on in (False, True):  # the same initial values each time: the losses agree bit for bit
            pending.set_enabled(on)
            step = models.build(webtorch, name, "cpu")
            losses[on] = [step() for _ in range(3)]
        us = best({"per_op": (False, step), "fused": (True, step)}, args.steps)
        rows.append({"case": label, "per_op_us": us["per_op"], "fused_us": us["fused"],
                     "speedup": us["per_op"] / us["fused"], "bit_identical": losses[False] == losses[True]})
    report("wasm_fusion", rows, [("case", "case", "s"), ("per_op_us", "per op [us]", ".1f"),
                                 ("fused_us", "fused [us]", ".1f"), ("speedup", "per op/fused", ".2f"),
                                 ("bit_identical", "identical", "")],
           path=args.out, repeat=args.repeat, steps=args.steps, min_bytes=default_min, block=chain_module.BLOCK)


if __name__ == "__main__":
    main()
