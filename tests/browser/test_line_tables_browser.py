"""The wheel's line tables (webtorch/_line_tables.py) in the notebook app, in headless Chromium: restored in the
background once the on-demand archive's prefetch lands, and a cell whose error is raised inside webtorch shows the
line of every webtorch frame as CPython from the sources does; in a kernel whose prefetch failed, the kernel
restores them synchronously before it formats the traceback. Screenshots go under the test run's tmp folder
(line_tables_screenshots*/). Without a page: tests/tooling/test_line_tables.py."""
import pytest

from webtorch_devtools.chromium import launch
from webtorch_devtools.notebook_app import NotebookServer

from deep_error import DEEP_ERROR, source_frames, webtorch_frames
from notebook_ui import full_screenshot, new_notebook, open_app, run_code, screenshot_if_failed

RESTORED_IN_THE_BACKGROUND = """import asyncio
from webtorch import _bytecode_archive
finder = _bytecode_archive.finder
for _ in range(600):  # the event loop runs meanwhile: the prefetch lands, the restore runs in slices
    if finder.restore_lines is not None and not finder.stripped:
        break
    await asyncio.sleep(0.1)
print("restored:", finder.restore_lines is not None, "left:", sorted(finder.stripped))"""

NOT_RESTORED_YET = """from webtorch import _bytecode_archive
print("restored:", _bytecode_archive.finder.restore_lines is not None)"""


class PrefetchFails(NotebookServer):
    """The app's server, whose first answer for the on-demand archive (the kernel's background prefetch) is a 404;
    later requests (the kernel's synchronous fetch) get it. The page's kernel starts without the ``import torch``
    alias: webtorch.compat is an on-demand module, whose import at the kernel's start would be the first request."""
    failed = False
    init_script = "localStorage.setItem('webtorch-notebook-torch-alias', 'off')"

    def resolve(self, path):
        if path.endswith(".on_demand.zst") and not self.failed:
            self.failed = True
            return None, None
        return super().resolve(path)


@pytest.fixture(scope="module")
def browser(webtorch_playwright):
    b = launch(webtorch_playwright)
    yield b
    b.close()


@pytest.fixture
def page(browser, request, tmp_path_factory):
    """A new notebook in the app served by ``request.param`` (default NotebookServer), in a fresh context; a full
    screenshot under line_tables_screenshots*/ when the test failed."""
    server = getattr(request, "param", NotebookServer)()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    if getattr(server, "init_script", None):
        context.add_init_script(server.init_script)
    pg = context.new_page()
    pg.shots = tmp_path_factory.mktemp("line_tables_screenshots")
    try:
        open_app(pg, f"{server.url}/web/notebook/index.html")
        new_notebook(pg)
        yield pg
        screenshot_if_failed(request, pg.shots)
    finally:
        context.close()
        server.close()


def test_a_cell_error_inside_webtorch_shows_its_lines(page):
    out = run_code(page, RESTORED_IN_THE_BACKGROUND)
    assert "restored: True left: []" in out, out
    out = run_code(page, DEEP_ERROR)
    assert "RuntimeError" in out and webtorch_frames(out) == source_frames(), out
    full_screenshot(page, page.shots / "cell-traceback-lines.png")


@pytest.mark.parametrize("page", [PrefetchFails], indirect=True, ids=["prefetch-failed"])
def test_the_kernel_restores_them_before_its_traceback(page):
    assert "restored: False" in run_code(page, NOT_RESTORED_YET)
    out = run_code(page, DEEP_ERROR)
    assert "RuntimeError" in out and webtorch_frames(out) == source_frames(), out
    full_screenshot(page, page.shots / "cell-traceback-lines-synchronous.png")
