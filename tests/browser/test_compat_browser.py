"""Inside the page: PyTorch programs of tests/compat/ run unmodified (import torch -> webtorch, the page's own
device policy: default device "cpu" -- the WebAssembly backend, no NumPy --, torch.accelerator webgpu, and on this
CPU-fallback adapter no cuda alias) with PyTorch's numbers from the same weights; the page's start-up answers are
checked in the same run (bench/bench_device_policy.py --browser runs all of them under every option)."""
import base64
import json

from compat_harness import PROGRAMS, run_program, differences

# probe_start builds its data with the legacy CPU constructors (torch.FloatTensor) and loads with map_location="cpu"
IN_PAGE = ("regression", "vae", "probe_start")
ARGS = {"regression": ["--epochs", "20"], "vae": ["--epochs", "15"]}  # fewer steps: SwiftShader is slow

DRIVER = '''\
import base64, json, runpy, sys, warnings
import webtorch.compat
webtorch.compat.alias_torch()
import torch
from torch.utils.data import DataLoader, TensorDataset
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loader = DataLoader(TensorDataset(torch.arange(4)), batch_size=2, num_workers=2)
print("PAGE", json.dumps({
    "accelerator": str(torch.accelerator.current_accelerator()) if torch.accelerator.is_available() else None,
    "default_device": str(torch.get_default_device()), "cuda": torch.cuda.is_available(),
    "workers_warned": any("num_workers" in str(w.message) for w in caught),
    "batches": [b[0].tolist() for b in loader], "cpu": (torch.zeros(2, device="cpu") + 1).tolist()}))
for name in NAMES:
    with open(name + ".pt", "wb") as f:
        f.write(base64.b64decode(open(name + ".b64").read()))
    sys.argv = [name + ".py", *ARGS.get(name, []), "--init", name + ".pt"]
    print("PROGRAM", name)
    try:
        runpy.run_path(name + ".py", run_name="__main__")
    except Exception as e:
        print("RESULTS", json.dumps({"check": {f"raised {type(e).__name__}: {e}": False}}))
'''


def test_compat_programs_in_page(webtorch_browser, tmp_path):
    files, refs = {}, {}
    for name in IN_PAGE:
        init = tmp_path / f"{name}.pt"
        refs[name] = run_program(name, "torch", init, ARGS.get(name, ()))
        files[f"{name}.py"] = (PROGRAMS / f"{name}.py").read_text()
        files[f"{name}.b64"] = base64.b64encode(init.read_bytes()).decode()
    header = f"NAMES = {list(IN_PAGE)!r}\nARGS = {ARGS!r}\n"
    r = webtorch_browser.run_source(header + DRIVER, files=files, timeout=600)
    assert r.status == 0, f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    page = json.loads(next(ln for ln in r.stdout.splitlines() if ln.startswith("PAGE "))[5:])
    assert page["accelerator"] == "webgpu" and page["default_device"] == "cpu" and page["cuda"] is False, page
    assert page["workers_warned"] and page["batches"] == [[0, 1], [2, 3]], page
    assert page["cpu"] == [1.0, 1.0], page
    results, current = {}, None
    for ln in r.stdout.splitlines():
        if ln.startswith("PROGRAM "):
            current = ln.split()[1]
        elif ln.startswith("RESULTS ") and current:
            results[current] = json.loads(ln[8:])
    bad = {name: differences(refs[name], results.get(name, {"check": {"printed no RESULTS": False}}))
           for name in IN_PAGE}
    assert bad == {name: [] for name in IN_PAGE}, f"{bad}\n{r.stdout[-3000:]}\n{r.stderr[-2000:]}"
