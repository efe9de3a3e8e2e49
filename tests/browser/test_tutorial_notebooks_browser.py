"""Every tutorial notebook's code runs inside Pyodide in headless Chromium on WebGPU (each picks
torch.accelerator, webgpu in the page, as its default device), cells in order, its own checks passing; one page for
all six, each notebook in a fresh namespace."""
import re

from tutorial_notebooks import NOTEBOOKS, code, prepare_workdir

DRIVER = '''\
import runpy, sys, time, traceback

failed = []
for name in {names!r}:
    t0 = time.perf_counter()
    try:
        runpy.run_path(name + ".py", run_name="__main__")
        status = "ok"
    except BaseException:  # noqa: BLE001 -- report every notebook, then fail
        traceback.print_exc()
        failed.append(name)
        status = "FAILED"
    print(f"=== {{name}} {{status}} {{time.perf_counter() - t0:.1f}} s", flush=True)
sys.exit(1 if failed else 0)
'''


def test_tutorial_notebooks_run_in_browser(webtorch_browser, tmp_path):
    work = prepare_workdir(tmp_path / "tutorials")
    names = [p.stem for p in NOTEBOOKS]
    for p in NOTEBOOKS:
        (work / f"{p.stem}.py").write_text(code(p))
    (work / "main.py").write_text(DRIVER.format(names=names))
    r = webtorch_browser.run(work / "main.py", timeout=600)
    done = dict(re.findall(r"^=== (\S+) (ok|FAILED) [\d.]+ s$", r.stdout, flags=re.M))
    print("boot:", r.timings, "|", " | ".join(re.findall(r"^=== (\S+ \S+ [\d.]+ s)$", r.stdout, flags=re.M)))
    assert r.status == 0 and done == {n: "ok" for n in names}, f"{r.stdout[-6000:]}\n{r.stderr[-6000:]}"
    assert r.stdout.count("device: webgpu") == 5 and "training on: webgpu" in r.stdout, r.stdout[-3000:]
