"""Device "cpu"'s worker threads in the page (web/wasm_host.js, backends/wasm/threads.py): in a cross-origin
isolated page the GEMM's rows (and conv2d's samples, forward and input gradient) run on 2+ threads and give one
thread's bits exactly (f32 and f64; odd sizes, transposed operands, batched, a weight broadcast over the batch); a
page that is not isolated instantiates the same module (its memory is shared) and runs everything on one thread."""
import json
import os
from pathlib import Path

import pytest
from webtorch_devtools.session import BrowserSession

SCRIPT = Path(__file__).parent / "scripts" / "wasm_threads.py"


@pytest.fixture(scope="module")
def isolated_session(webtorch_playwright):
    s = BrowserSession(playwright=webtorch_playwright, cross_origin_isolated=True)
    yield s
    s.close()


def _run(session, want):
    r = session.run(SCRIPT, [str(want)], timeout=600)
    assert r.status == 0, f"status {r.status}\n{r.stdout}\n{r.stderr}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_threads_in_an_isolated_page_give_one_threads_bits(isolated_session):
    assert (os.cpu_count() or 1) > 1, "this test needs a machine with 2+ cores"
    out = _run(isolated_session, 2)
    assert out["isolated"] and out["threads"] >= 2, out
    assert all(r["split"] and r["equal"] for r in out["results"].values()), out["results"]


def test_a_page_that_is_not_isolated_runs_on_one_thread(webtorch_browser_session):
    out = _run(webtorch_browser_session, 1)
    assert not out["isolated"] and out["threads"] == 1, out
    assert all(not r["split"] and r["equal"] for r in out["results"].values()), out["results"]
