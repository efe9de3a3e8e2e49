"""randperm past one storage binding at the real limit, on the webgpu device natively and in the page, against the
cpu device's permutation for the same seed.

    .venv/bin/python bench/bench_randperm_big.py [--n 33554433] [--dtype int64] [--binding BYTES] [--browser]

n = 2^25 + 1 needs P = 2^26 sort keys (256 MiB of int32 keys, as many int32 indices, a 256 MiB int64 result):
past lavapipe's maxStorageBufferBindingSize (128 MiB), so py/webtorch/backends/webgpu/randperm_kernels.py sorts
in two chunks of 2^25 pairs (windows of the key and index buffers) and the int64 cast binds windows too. Natively
the adapter's own limit is used (lavapipe: 128 MiB). ``--browser`` runs the same (bench/browser/randperm_big.py)
inside Pyodide in headless Chromium on SwiftShader, whose device is granted 1 GiB bindings: ``--binding``
(default 134217728 in the page: WebGPU's default limit, what a page gets unless it asks for more) forces the
128 MiB limit there so the chunked path runs; the page's cpu device is the WebAssembly backend.
Per run: whether the permutation equals the cpu device's, seconds on the cpu device, on webgpu (to
synchronize) and for the readback, the webgpu pool's peak bytes, and natively the process's peak RSS. Writes
bench/results/randperm_big.json (or randperm_big_browser.json).

Why not a test: on this 2-core machine the native run took 878 s of wall clock alone (303 s of CPU time: lavapipe
runs the sort's 135 passes over 2^26 pairs, 2^25 compare-exchanges each) and 2,578 s beside a page run (the
recorded result), far past what a test may take. In the page, n = 2^25 + 1 at 128 MiB did not finish within the
session's 3,600 s (machine load 12-20); the same two-chunk layout at 1/16 the size (--n 2097153 --binding 8388608:
results/randperm_big_browser_small.json, natively results/randperm_big_small.json) equals the cpu device's in
74.5 s in the page vs 9.1 s natively, so SwiftShader is ~8x lavapipe here: the full size would take an estimated
0.5-2 h. The chunked path itself is tested at forced small limits (tests/backends/webgpu/test_big_tensors.py,
tests/browser/test_big_tensors_browser.py), where the same code runs with 4 to 16 chunks.
"""
import argparse
import json
import os
import resource
import sys

from _report import report

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "browser"))
from randperm_big import main as run_randperm  # noqa: E402  (bench/browser/randperm_big.py: both halves' code)

COLUMNS = [("where", "where", ""), ("n", "n", ",d"), ("binding", "binding bytes", ",d"), ("chunks", "chunks", "d"),
           ("equal", "= cpu", ""), ("cpu_seconds", "cpu s", ".1f"), ("webgpu_seconds", "webgpu s", ".1f"),
           ("readback_seconds", "readback s", ".1f"), ("max_memory_allocated", "pool peak B", ",d")]


def browser(cfg, timeout):
    from webtorch_devtools.session import BrowserSession
    with BrowserSession() as session:
        res = session.run(os.path.join(HERE, "browser", "randperm_big.py"), [json.dumps(cfg)], timeout=timeout)
        version = session.browser.version
    got = [json.loads(t) for k, t in res.reports if k == "randperm"]
    if res.status != 0 or not got:
        raise SystemExit(f"the in-browser run failed (status {res.status}):\n{res.stdout[-3000:]}\n"
                         f"{res.stderr[-3000:]}")
    return dict(got[0], where="page", seconds_in_page=res.seconds, browser=version)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=(1 << 25) + 1)
    ap.add_argument("--dtype", default="int64")
    ap.add_argument("--binding", type=int, help="force maxStorageBufferBindingSize to this many bytes "
                                               "(default: the adapter's natively, 128 MiB in the page)")
    ap.add_argument("--browser", action="store_true", help="inside Pyodide in headless Chromium (WebGPU)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds for the browser run")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/randperm_big[_browser].json)")
    args = ap.parse_args()
    cfg = {"n": args.n, "dtype": args.dtype, "binding": args.binding}
    if args.browser:
        cfg["binding"] = args.binding or 1 << 27
        row = browser(cfg, args.timeout)
    else:
        row = dict(run_randperm(cfg), where="native",
                   peak_rss_bytes=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    report("randperm_big_browser" if args.browser else "randperm_big", [row], COLUMNS,
           title=f"randperm({args.n:,}, dtype={args.dtype}) on webgpu ({row['adapter']}) vs the cpu device",
           path=args.out, **cfg)
    if not row["equal"]:
        raise SystemExit("the webgpu permutation differs from the cpu device's")


if __name__ == "__main__":
    main()
