"""Output throughput of ``webtorch run --browser``: a script printing N lines (every 10th to stderr) inside
Pyodide in headless Chromium.

    .venv/bin/python bench/bench_browser_output.py [--lines 100000] [--worker] [--out PATH]

lines/s = N / (host clock from the script's "start" report to the arrival of its last line): the whole
path, Python's print through the page (or Web Worker) to the host's stdout/stderr callbacks, every line
checked to arrive; Pyodide's boot is not in it. Also the seconds the script itself spends printing (its
in-page clock). Goal: >= 50,000 lines/s.
"""
import argparse
import sys
import time
from pathlib import Path

from _report import report

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))

from webtorch_devtools.session import BrowserSession  # noqa: E402

GOAL = 50_000


def _run(session, lines, worker, timeout):
    marks = {}

    def arrived(_text):
        marks["last"] = time.perf_counter()

    def on_report(kind, _text):
        marks.setdefault(kind, time.perf_counter())

    res = session.run(HERE / "browser" / "print_lines.py", [lines], worker=worker, timeout=timeout, stdout=arrived,
                      stderr=arrived, on_report=on_report)
    out, err = res.stdout.splitlines(), res.stderr.splitlines()
    want_err = lines // 10
    if res.status != 0 or len(out) != lines - want_err or len(err) != want_err:
        raise SystemExit(f"run failed or lost lines (status {res.status}, {len(out)} stdout and {len(err)} stderr "
                         f"lines):\n{res.stderr[-2000:]}")
    printing = float(next(t for k, t in res.reports if k == "printed"))
    return marks["last"] - marks["start"], printing, res.seconds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out", help="where to write the JSON (default bench/results/browser_output.json)")
    args = ap.parse_args(argv)
    rows = []
    with BrowserSession() as session:
        for worker in (False, True):
            host_s, printing, run_s = _run(session, args.lines, worker, args.timeout)
            rows.append({"mode": "worker" if worker else "page", "lines": args.lines, "run_s": run_s,
                         "output_s": host_s, "lines_per_s": args.lines / host_s,
                         "in_script_lines_per_s": args.lines / printing})
    report("browser_output", rows, [("mode", "mode", "s"), ("lines", "lines", "d"), ("run_s", "run s (boot incl.)", ".1f"),
                                    ("output_s", "first print -> last line s", ".2f"),
                                    ("lines_per_s", "lines/s", ",.0f"),
                                    ("in_script_lines_per_s", "in-script lines/s", ",.0f")],
           path=args.out, goal_lines_per_s=GOAL)


if __name__ == "__main__":
    main()
