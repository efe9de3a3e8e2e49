"""Per-op cost of metadata, views and small ops on every device: webtorch "cpu" and "webgpu" vs PyTorch (cpu).

    .venv/bin/python bench/bench_views.py [--repeat 7] [--devices cpu,webgpu]

What a Tensor's geometry costs: reading shape/stride, making views (view, t, slicing, unsqueeze, expand), a
small add and a small Linear forward (4 x 16 -> 16, under no_grad and recording the graph). On "webgpu" ops only record into the pending queue:
each timed batch is followed, untimed, by a flush, so the figures are the Python-side recording cost. Beside the
times (best of ``repeat`` batches; ratio = webtorch / torch cpu), two counts that a loaded machine cannot
blur: Python function calls per op, and how many of them run backend code (webtorch/backends/). Prints a table
and writes bench/results/views.json.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from _report import report  # noqa: E402


def _cases(lib, device):
    x = lib.rand(8, 16, device=device)
    b = lib.rand(8, 16, device=device)
    lin = lib.nn.Linear(16, 16).to(device)
    inp = lib.rand(4, 16, device=device)

    def linear():
        with lib.no_grad():
            return lin(inp)

    def linear_grad():
        return lin(inp)
    return {
        "x.shape": lambda: x.shape,
        "x.stride()": lambda: x.stride(),
        "x.is_contiguous()": lambda: x.is_contiguous(),
        "a + b": lambda: x + b,
        "x.view(-1)": lambda: x.view(-1),
        "x.t()": lambda: x.t(),
        "x[2:6, ::2]": lambda: x[2:6, ::2],
        "x.unsqueeze(0)": lambda: x.unsqueeze(0),
        "x.expand(3, 8, 16)": lambda: x.expand(3, 8, 16),
        "x.t().reshape(-1) (copies)": lambda: x.t().reshape(-1),
        "Linear(16, 16) forward, no_grad": linear,
        "Linear(16, 16) forward, recording grad": linear_grad,
    }


def _best_us(fn, number, repeat, flush):
    fn()
    flush()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, time.perf_counter() - t0)
        flush()
    return best / number * 1e6


def _calls(fn):
    """(Python function calls, of them in backend code) of one fn()."""
    backends = os.sep + os.path.join("webtorch", "backends") + os.sep
    counts = [0, 0]

    def profile(frame, event, arg):
        if event == "call":
            counts[0] += 1
            counts[1] += backends in frame.f_code.co_filename
    fn()
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return tuple(counts)


def per_op(lib, device, repeat, number):
    """{op: (us per op, Python calls, backend calls)}."""
    flush = (lambda: None)
    if device == "webgpu":
        import webtorch.webgpu
        flush = webtorch.webgpu.synchronize
    res = {k: (_best_us(fn, number, repeat, flush),) + _calls(fn) for k, fn in _cases(lib, device).items()}
    flush()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--number", type=int, default=2000, help="ops per timed batch")
    ap.add_argument("--devices", default="cpu,webgpu")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/views.json)")
    args = ap.parse_args()
    import torch
    import webtorch

    theirs = per_op(torch, "cpu", args.repeat, args.number)
    rows = []
    for device in args.devices.split(","):
        ours = per_op(webtorch, device, args.repeat, args.number)
        for k, (us, calls, backend_calls) in ours.items():
            rows.append({"device": device, "op": k, "webtorch_us": us, "torch_cpu_us": theirs[k][0],
                         "ratio": us / theirs[k][0], "calls": calls, "backend_calls": backend_calls})
    report("views", rows, [("device", "device", "s"), ("op", "op", "s"), ("webtorch_us", "webtorch [us]", ".2f"),
                           ("torch_cpu_us", "torch cpu [us]", ".2f"), ("ratio", "ratio", ".2f"),
                           ("calls", "py calls", "d"), ("backend_calls", "backend calls", "d")],
           path=args.out, repeat=args.repeat, number=args.number)


if __name__ == "__main__":
    main()
