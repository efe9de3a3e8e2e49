"""The notebook app (web/notebook/) in headless Chromium: what a user waits for and how smooth the page stays.

    .venv/bin/python bench/bench_notebook.py [--out PATH]

  * page load -> kernel ready (Pyodide + webtorch + WebGPU booted in the worker), cold (a fresh browser
    profile) and warm (a reload: Pyodide's files from the HTTP cache);
  * first cell output: Ctrl+Enter on `print(...)` -> the text on the page;
  * digits MLP training steps/s (bench/browser/digits_mlp_steps.py) as a notebook cell vs the same file under
    `webtorch run --browser` (page and worker). Goal: the notebook within 10 % of run --browser;
  * UI responsiveness during that training cell: the longest main-thread task (PerformanceObserver
    "longtask", which reports tasks over 50 ms; 0 = none) and the longest gap between animation frames.
    Goal: no task over 50 ms;
  * autosave cost: one save of the notebook (with the training cell's outputs) to IndexedDB.
On this machine WebGPU is SwiftShader (the CPU) and the cores are shared: compare within one run.
Prints a table and writes bench/results/notebook.json.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

from _report import last_json_line, report

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "support"))

from notebook_ui import KERNEL_BOOT_MS, new_notebook, set_source, wait_done, with_app_and_browser  # noqa: E402
from webtorch_devtools.session import BrowserSession  # noqa: E402

STEPS_SCRIPT = HERE / "browser" / "digits_mlp_steps.py"
GOALS = {"notebook_vs_run_browser": 0.9, "longest_task_ms": 50}

_WATCH = """() => {
  window.__bench = { longest: 0, frameGap: 0 };
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__bench.longest = Math.max(window.__bench.longest, e.duration); })
    .observe({ type: "longtask", buffered: false });
  let last = performance.now();
  const frame = (t) => { window.__bench.frameGap = Math.max(window.__bench.frameGap, t - last); last = t; if (!window.__bench.stop) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
}"""


def steps_per_s(text):
    return float(last_json_line(text)["steps_per_s"])


def kernel_ready_ms(page):
    page.wait_for_selector("body[data-kernel=idle]", timeout=KERNEL_BOOT_MS)
    return page.evaluate("webtorchNotebook.kernelReadyAt")


def bench_notebook(browser, server):
    rows = {}
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.app_url)
    rows["load_to_kernel_ready_cold_ms"] = kernel_ready_ms(page)
    page.reload()
    rows["load_to_kernel_ready_warm_ms"] = kernel_ready_ms(page)
    new_notebook(page)
    set_source(page, 0, "print('hello from the kernel')")
    # timed in the page: the key press -> the mutation that shows the text (no driver round trips inside)
    page.evaluate("""() => {
      window.__first = {};
      document.addEventListener("keydown", () => { window.__first.t0 ??= performance.now(); }, { capture: true });
      new MutationObserver(() => {
        if (document.querySelector('.cell .outputs').innerText.includes('hello from the kernel')) window.__first.t1 ??= performance.now();
      }).observe(document.getElementById("notebook"), { childList: true, subtree: true, characterData: true });
    }""")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("() => window.__first.t1 !== undefined")
    rows["first_cell_output_ms"] = page.evaluate("window.__first.t1 - window.__first.t0")
    wait_done(page)
    set_source(page, 0, STEPS_SCRIPT.read_text())
    page.evaluate(_WATCH)
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(100)
    wait_done(page)
    page.evaluate("window.__bench.stop = true")
    rows["notebook_steps_per_s"] = steps_per_s(page.inner_text("#notebook"))
    rows["longest_task_ms"] = page.evaluate("window.__bench.longest")
    rows["longest_frame_gap_ms"] = page.evaluate("window.__bench.frameGap")
    saves = [page.evaluate("async () => { const t = performance.now(); await webtorchNotebook.save(); return performance.now() - t; }")
             for _ in range(5)]
    rows["autosave_ms"] = statistics.median(saves)
    rows["autosave_notebook_bytes"] = page.evaluate("JSON.stringify(webtorchNotebook.ipynb()).length")
    context.close()
    return rows


def bench_run_browser(worker):
    with BrowserSession() as s:
        res = s.run(STEPS_SCRIPT, [], worker=worker, timeout=600)
    if res.status != 0:
        raise SystemExit(f"webtorch run --browser failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    return steps_per_s(res.stdout)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=None, help="JSON path (default bench/results/notebook.json)")
    args = p.parse_args(argv)
    nb, = with_app_and_browser(bench_notebook)
    page_sps, worker_sps = bench_run_browser(False), bench_run_browser(True)
    t = time.strftime("%H:%M")
    rows = [
        {"figure": "page load -> kernel ready, cold", "value": nb["load_to_kernel_ready_cold_ms"], "unit": "ms", "goal": ""},
        {"figure": "page load -> kernel ready, warm (reload)", "value": nb["load_to_kernel_ready_warm_ms"], "unit": "ms", "goal": ""},
        {"figure": "first cell output (Ctrl+Enter -> text)", "value": nb["first_cell_output_ms"], "unit": "ms", "goal": ""},
        {"figure": "digits MLP, notebook cell", "value": nb["notebook_steps_per_s"], "unit": "steps/s", "goal": ""},
        {"figure": "digits MLP, webtorch run --browser (page)", "value": page_sps, "unit": "steps/s", "goal": ""},
        {"figure": "digits MLP, webtorch run --browser --worker", "value": worker_sps, "unit": "steps/s", "goal": ""},
        {"figure": "notebook / run --browser (page)", "value": nb["notebook_steps_per_s"] / page_sps, "unit": "ratio",
         "goal": f">= {GOALS['notebook_vs_run_browser']}"},
        {"figure": "notebook / run --browser --worker", "value": nb["notebook_steps_per_s"] / worker_sps, "unit": "ratio",
         "goal": f">= {GOALS['notebook_vs_run_browser']}"},
        {"figure": "longest main-thread task while training", "value": nb["longest_task_ms"], "unit": "ms",
         "goal": f"< {GOALS['longest_task_ms']} (0: none over 50)"},
        {"figure": "longest gap between frames while training", "value": nb["longest_frame_gap_ms"], "unit": "ms", "goal": ""},
        {"figure": "autosave (IndexedDB put), median of 5", "value": nb["autosave_ms"], "unit": "ms",
         "goal": f"notebook {nb['autosave_notebook_bytes']} B"},
    ]
    report("notebook", rows, [("figure", "figure", ""), ("value", "value", ".2f"), ("unit", "unit", ""), ("goal", "goal", "")],
           title=f"webtorch notebook app, headless Chromium (SwiftShader WebGPU), {t}", path=args.out, goals=GOALS)


if __name__ == "__main__":
    main()
