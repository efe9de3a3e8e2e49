"""Prints N lines (every 10th to stderr) for bench_browser_output.py; reports its own seconds."""
import sys
import time

from webtorch.browser.runner import report

n = int(sys.argv[1])
t0 = time.perf_counter()
for i in range(n):
    if i % 10 == 9:
        print(f"stderr line {i}", file=sys.stderr)
    else:
        print(f"stdout line {i} {'x' * 40}")
report("bench", f"{time.perf_counter() - t0}")
