"""Prints N lines (every 10th to stderr) for bench_browser_output.py; reports when it starts and its own
seconds of printing."""
import sys
import time

from webtorch.browser.runner import report

n = int(sys.argv[1])
report("start", "")
t0 = time.perf_counter()
for i in range(n):
    if i % 10 == 9:
        print(f"stderr line {i}", file=sys.stderr)
    else:
        print(f"stdout line {i} {'x' * 40}")
report("printed", f"{time.perf_counter() - t0}")
