"""Driving the notebook app (web/notebook/) through its UI with Playwright: shared by the app's browser tests
and bench/bench_notebook.py, bench/bench_kernel_start.py. Predicates for wait_for_function are written as functions
("() => ..."): the app's Content-Security-Policy forbids eval, which Playwright uses to poll a bare expression."""
import time

KERNEL_BOOT_MS = 180_000   # 2 shared cores: a Pyodide + webtorch boot can take a while
CELL_MS = 300_000


def wait_idle(page, timeout=CELL_MS):
    page.wait_for_selector("body[data-kernel=idle]", timeout=timeout)


def wait_devices(page, timeout=CELL_MS):
    """Until the device panel shows which device serves the kernel (the kernel sends it right after ready)."""
    page.wait_for_function("() => document.getElementById('device-info').innerText.includes('because')",
                           timeout=timeout)


def wait_done(page, timeout=CELL_MS):
    """Until no cell is queued or running and the kernel is idle."""
    page.wait_for_function("() => document.body.dataset.kernel === 'idle' && !document.querySelector('.cell.queued, .cell.running')",
                           timeout=timeout)


def open_app(page, url):
    page.goto(url)
    wait_idle(page, KERNEL_BOOT_MS)


def new_notebook(page):
    page.click("[data-action=new]")
    page.wait_for_function("() => document.querySelectorAll('#notebook .cell').length === 1")


def cells(page):
    return page.locator("#notebook .cell")


def set_source(page, index, code):
    """Replace cell ``index``'s text as a user pasting it (no auto-indent), leaving the editor focused."""
    page.locator("#notebook .cell").nth(index).locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


def run_code(page, code, index=None):
    """Type ``code`` into the last cell (or cell ``index``), Ctrl+Enter, wait; returns the cell's output text."""
    if index is None:
        index = cells(page).count() - 1
    set_source(page, index, code)
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(50)
    wait_done(page)
    return cells(page).nth(index).locator(".outputs").inner_text()


def run_all(page, timeout=CELL_MS):
    t0 = time.monotonic()
    page.click("[data-action=run-all]")
    page.wait_for_timeout(100)
    wait_done(page, timeout)
    return time.monotonic() - t0


def outputs_summary(page):
    """{errors: [text], images: n, plots: n, prompts: [...]} of the open notebook."""
    return page.evaluate("""() => ({
      errors: [...document.querySelectorAll('.output-error')].map((e) => e.innerText),
      images: document.querySelectorAll('.output img').length,
      plots: document.querySelectorAll('.output .uplot').length,
      progress: document.querySelectorAll('.output progress').length,
      prompts: [...document.querySelectorAll('.cell.code .prompt')].map((e) => e.textContent),
    })""")


def full_screenshot(page, path):
    """The whole notebook (not only the scrolled part) as a PNG."""
    page.evaluate("document.body.classList.add('full')")
    page.screenshot(path=str(path), full_page=True)
    page.evaluate("document.body.classList.remove('full')")


def screenshot_if_failed(request, shots, page_fixture="page"):
    """After a test (in an autouse fixture): a full screenshot of its page when its call failed."""
    rep = getattr(request.node, "rep_call", None)
    pg = request.node.funcargs.get(page_fixture)
    if rep is not None and rep.failed and pg is not None:
        full_screenshot(pg, shots / f"FAILED-{request.node.name}.png")


def with_app_and_browser(*steps):
    """Each ``step(browser, server)`` run against one NotebookServer and one launched Chromium (both closed
    after); returns their results."""
    from playwright.sync_api import sync_playwright

    from webtorch_devtools.chromium import launch
    from webtorch_devtools.notebook_app import NotebookServer
    server = NotebookServer()
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            try:
                return [step(browser, server) for step in steps]
            finally:
                browser.close()
    finally:
        server.close()
