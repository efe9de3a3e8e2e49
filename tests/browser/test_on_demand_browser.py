"""The runtime wheel's on-demand modules in Chromium (webtorch/browser/on_demand.py): a first training step on
webgpu and on "cpu" imports none of them; the first import of one (torch.distributions, the Lua-style nn, a
learning-rate scheduler) gets them from the archive beside the wheel -- fetched in the background after the start
(it lands while the event loop runs), or synchronously (XMLHttpRequest, binary through the x-user-defined charset) in the page and in a Web Worker --
and they work; with no archive served the step still runs and the import fails naming the module and the URL.
Without a page: tests/tooling/test_on_demand_modules.py."""
import hashlib
import shutil

import pytest

from webtorch_devtools import session as session_module
from webtorch_devtools.bytecode import ON_DEMAND, on_demand_path
from webtorch_devtools.session import BrowserSession
from webtorch_devtools.wheel import build_wheel

SCRIPT = """
import hashlib, sys, time
import webtorch as torch
from webtorch import nn
import webtorch.nn.functional as F
from webtorch.browser.on_demand import fetch_sync

ON_DEMAND = %r
for device in ("webgpu", "cpu"):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = torch.randn(16, 64, device=device), torch.randint(0, 10, (16,), device=device)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(device, "step loss", round(loss.item(), 3))
print("on-demand imported by the steps:", [m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in ON_DEMAND)])
import asyncio
from pyodide.ffi import run_sync
from webtorch import _bytecode_archive
for _ in range(100):  # the event loop runs meanwhile: the background fetch lands
    if _bytecode_archive.finder.on_demand_in_hand():
        break
    run_sync(asyncio.sleep(0.1))
print("prefetched:", _bytecode_archive.finder.on_demand_in_hand())
t0 = time.perf_counter()
try:
    import webtorch.distributions as D
except ImportError as e:
    print("import error:", e)
    raise SystemExit(0)
print(f"first on-demand import {(time.perf_counter() - t0) * 1000:.0f} ms")
data = fetch_sync(sys.argv[1])
print("sync fetch", len(data), hashlib.sha256(data).hexdigest())
print("normal", list(D.Normal(torch.tensor(0.0), torch.tensor(1.0)).sample((4,)).shape))
from webtorch.legacy import nn as lnn
print("legacy", list(lnn.Linear(3, 2).forward(torch.ones(1, 3)).shape))
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
optimizer.step()
scheduler.step()
print("lr", optimizer.param_groups[0]["lr"])
"""


def _run(session, tmp_path, worker):
    script = tmp_path / "on_demand.py"
    script.write_text(SCRIPT % (ON_DEMAND,))
    wheel = session.server.wheel
    return session.run(script, [f"/wheel/{on_demand_path(wheel).name}"], worker=worker, timeout=600)


@pytest.mark.parametrize("worker", [False, True], ids=["page", "worker"])
def test_on_demand_modules_fetched_and_working(webtorch_browser_session, tmp_path, worker):
    res = _run(webtorch_browser_session, tmp_path, worker)
    assert res.status == 0, res.stderr[-3000:]
    out = res.stdout
    assert "webgpu step loss" in out and "cpu step loss" in out, out
    assert "on-demand imported by the steps: []" in out and "prefetched: True" in out, out
    archive = on_demand_path(webtorch_browser_session.server.wheel).read_bytes()
    assert f"sync fetch {len(archive)} {hashlib.sha256(archive).hexdigest()}" in out, out
    assert "first on-demand import" in out and "normal [4]" in out and "legacy [1, 2]" in out, out
    assert "lr 0.005" in out, out
    print(out)  # the first on-demand import's time (bench/results/wheel.md)


def test_missing_archive_error_names_module_and_url(webtorch_playwright, tmp_path, monkeypatch):
    alone = tmp_path / "wheel"
    alone.mkdir()
    wheel = shutil.copy(build_wheel(), alone)  # served without its on-demand archive
    monkeypatch.setattr(session_module, "build_wheel", lambda: wheel)
    with BrowserSession(playwright=webtorch_playwright) as s:
        res = _run(s, tmp_path, worker=False)
        url = f"{s.server.url}/wheel/{on_demand_path(wheel).name}"
    assert res.status == 0, res.stderr[-3000:]
    assert "webgpu step loss" in res.stdout and "cpu step loss" in res.stdout, res.stdout
    assert "prefetched: False" in res.stdout, res.stdout  # the background fetch failed quietly
    assert (f"import error: cannot import webtorch.distributions: webtorch's on-demand modules could not be fetched "
            f"from {url} (HTTP 404)") in res.stdout, res.stdout
