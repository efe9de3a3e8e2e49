"""Output throughput of ``webtorch run --browser``: a script printing N lines (every 10th to stderr) inside
Pyodide in headless Chromium, against the same script printing none, in one browser session.

    .venv/bin/python bench/bench_browser_output.py [--lines 100000] [--worker] [--out PATH]

lines/s = N / (run seconds with N lines - run seconds with none): the whole path, Python's print through
the page (or Web Worker) to the host's stdout/stderr callbacks, every line checked to arrive. Also the
seconds the script itself spends printing (its in-page clock). Goal: >= 50,000 lines/s. Each run boots
Pyodide anew (10-25 s on this shared 2-core machine), so the difference is noisy at small N.
"""
import argparse
import sys
from pathlib import Path

from _report import report

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))

from webtorch_devtools.session import BrowserSession  # noqa: E402

GOAL = 50_000


def _run(session, lines, worker, timeout):
    res = session.run(HERE / "browser" / "print_lines.py", [lines], worker=worker, timeout=timeout)
    out, err = res.stdout.splitlines(), res.stderr.splitlines()
    want_err = lines // 10
    if res.status != 0 or len(out) != lines - want_err or len(err) != want_err:
        raise SystemExit(f"run failed or lost lines (status {res.status}, {len(out)} stdout and {len(err)} stderr "
                         f"lines):\n{res.stderr[-2000:]}")
    printing = float(next(t for k, t in res.reports if k == "bench"))
    return res.seconds, printing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--worker", action="store_true", help="run the script in a Web Worker")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out", help="where to write the JSON (default bench/results/browser_output.json)")
    args = ap.parse_args(argv)
    with BrowserSession() as session:
        empty, _ = _run(session, 0, args.worker, args.timeout)
        full, printing = _run(session, args.lines, args.worker, args.timeout)
    rows = [{"mode": "worker" if args.worker else "page", "lines": args.lines, "empty_run_s": empty,
             "run_s": full, "lines_per_s": args.lines / max(full - empty, 1e-9),
             "in_script_lines_per_s": args.lines / printing}]
    report("browser_output", rows, [("mode", "mode", "s"), ("lines", "lines", "d"), ("empty_run_s", "0 lines s", ".2f"),
                                    ("run_s", "N lines s", ".2f"), ("lines_per_s", "lines/s", ",.0f"),
                                    ("in_script_lines_per_s", "in-script lines/s", ",.0f")],
           path=args.out, goal_lines_per_s=GOAL)


if __name__ == "__main__":
    main()
