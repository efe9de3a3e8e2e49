"""Device "cpu"'s worker threads under load: matmul GFLOP/s in a cross-origin isolated headless Chromium page as
webtorch chooses the threads (no set_num_threads: backends/wasm/threads.py measures each kernel's split and
one-thread rates), on every thread and on one (set_num_threads), interleaved rounds, while ``--busy`` extra
processes spin (``while 1: pass``) to load the cores.

    .venv/bin/python bench/bench_browser_threads.py [--busy 0] [--rounds 4] [--reps 5] [--sizes 1024,512] [--out PATH]

Prints the medians over rounds (with min-max) and writes bench/results/browser_threads.json.
"""
import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from _report import last_json_line, report

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--busy", type=int, default=0, help="extra busy-loop processes while the page measures")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--reps", type=int, default=5, help="products per round and mode (their median counts)")
    ap.add_argument("--sizes", default="1024,512")
    ap.add_argument("--out")
    args = ap.parse_args()
    from webtorch_devtools.session import BrowserSession
    session = BrowserSession(cross_origin_isolated=True)
    busy = []
    try:
        busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(args.busy)]
        load_start = os.getloadavg()[0]
        r = session.run(HERE / "browser" / "matmul_threads.py", [str(args.rounds), str(args.reps), args.sizes],
                        timeout=1800)
        load_end = os.getloadavg()[0]
    finally:
        for p in busy:
            p.kill()
            p.wait()
        session.close()
    if r.status != 0:
        raise SystemExit(f"the page failed ({r.status}):\n{r.stdout}\n{r.stderr}")
    out = last_json_line(r.stdout)
    rows = []
    for key, values in out["gflops"].items():
        n, threads = key.split()
        rows.append({"size": int(n), "threads": threads, "gflops": statistics.median(values),
                     "min": min(values), "max": max(values)})
    report("browser_threads", rows, [("size", "matmul n", "d"), ("threads", "threads", ""),
                                     ("gflops", "GFLOP/s (median)", ".2f"), ("min", "min", ".2f"),
                                     ("max", "max", ".2f")],
           title=f"device cpu matmul in an isolated page, {args.busy} extra busy processes, load "
                 f"{load_start:.1f} -> {load_end:.1f}", path=args.out, busy=args.busy, rounds=args.rounds,
           reps=args.reps, load_start=load_start, load_end=load_end, per_round=out["gflops"])


if __name__ == "__main__":
    main()
