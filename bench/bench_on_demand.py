"""The on-demand modules' first import in Chromium (`webtorch run --browser`, the page and a Web Worker): the
runtime wheel keeps the modules a first training step does not import in a second archive beside it
(webtorch_devtools/bytecode.py's ON_DEMAND), which the page fetches in the background after the start and an
import that needs it first fetches synchronously (webtorch/browser/on_demand.py).

    .venv/bin/python bench/bench_on_demand.py [--rounds 3]

Per round, a fresh page: once device "cpu" has started, ``import webtorch.distributions`` (the bytes prefetched
or not yet: what a user's first cell meets), then a second on-demand package (webtorch.legacy.nn: the archive is
read, its module only runs), and the synchronous fetch of the archive alone (what an import waits for when the
prefetch has not arrived). Medians over the rounds. Writes bench/results/on_demand.json.
"""
import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from _report import report

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))

from webtorch_devtools.bytecode import on_demand_path  # noqa: E402
from webtorch_devtools.session import BrowserSession  # noqa: E402

SCRIPT = """
import sys, time
import webtorch
webtorch.ones(2).sum().item()  # device "cpu" started (distributions' import makes tensors): not timed below
t0 = time.perf_counter()
import webtorch.distributions
t1 = time.perf_counter()
import webtorch.legacy.nn
t2 = time.perf_counter()
from webtorch.browser.on_demand import fetch_sync
data = fetch_sync(sys.argv[1])
t3 = time.perf_counter()
print(f"{(t1 - t0) * 1000:.2f} {(t2 - t1) * 1000:.2f} {(t3 - t2) * 1000:.2f} {len(data)}")
"""
FIGURES = ("first_import_ms", "second_package_ms", "sync_fetch_ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    got = {"page": [], "worker": []}
    with tempfile.TemporaryDirectory() as tmp, BrowserSession() as session:
        script = Path(tmp) / "first_import.py"
        script.write_text(SCRIPT)
        url = f"/wheel/{on_demand_path(session.server.wheel).name}"
        for _ in range(args.rounds):
            for mode in got:
                res = session.run(script, [url], worker=mode == "worker", timeout=600)
                if res.status != 0:
                    raise SystemExit(f"the run failed ({res.status}):\n{res.stderr[-3000:]}")
                *times, size = res.stdout.split()
                got[mode].append(dict(zip(FIGURES, map(float, times))) | {"archive_kib": int(size) / 1024})
    rows = [{"mode": mode, **{k: statistics.median(r[k] for r in runs) for k in (*FIGURES, "archive_kib")}}
            for mode, runs in got.items()]
    report("on_demand", rows, [("mode", "mode", "s"), ("archive_kib", "archive KiB", ".1f"),
                               ("first_import_ms", "import distributions ms", ".1f"),
                               ("second_package_ms", "then legacy.nn ms", ".1f"),
                               ("sync_fetch_ms", "sync fetch ms", ".1f")],
           title=f"on-demand modules in Chromium, medians of {args.rounds}", rounds=args.rounds)


if __name__ == "__main__":
    main()
