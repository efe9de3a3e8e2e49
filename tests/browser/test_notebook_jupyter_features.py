"""What a Jupyter user expects of the notebook app (web/notebook/), in headless Chromium through its UI:
HTML and SVG outputs, display(..., display_id=...) updates, `from IPython.display import ...`, clear_output,
`name?` / help(), Tab completion from the kernel, and each cell's execution time. One screenshot per feature
goes under the test run's tmp folder (notebook_feature_screenshots*/)."""
import pytest

from webtorch_devtools.chromium import launch
from webtorch_devtools.notebook_app import NotebookServer

from notebook_ui import cells, full_screenshot, new_notebook, open_app, run_code, screenshot_if_failed, set_source


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return tmp_path_factory.mktemp("notebook_feature_screenshots")


@pytest.fixture(scope="module")
def page(webtorch_playwright):
    server = NotebookServer()
    browser = launch(webtorch_playwright)
    pg = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    open_app(pg, f"{server.url}/web/notebook/index.html")
    yield pg
    browser.close()
    server.close()


@pytest.fixture(autouse=True)
def screenshot_on_failure(request, shots):
    yield
    screenshot_if_failed(request, shots)


def _outputs(page, index=0):
    return cells(page).nth(index).locator(".outputs")


def test_html_and_svg_outputs(page, shots):
    new_notebook(page)
    run_code(page, "class Report:\n    def _repr_html_(self):\n        return '<h3 id=\"report\">Report</h3><ul><li>loss 0.1</li></ul>'\n"
                   "from IPython.display import display, SVG\n"
                   "display(SVG('<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"60\" height=\"30\">"
                   "<rect id=\"bar\" width=\"50\" height=\"20\" fill=\"teal\"/></svg>'))\nReport()")
    out = _outputs(page)
    assert out.locator("#report").inner_text() == "Report" and out.locator("li").inner_text() == "loss 0.1"
    assert out.locator("svg #bar").get_attribute("fill") == "teal"
    assert out.locator(".output[data-trusted=true]").count() == 2
    page.screenshot(path=str(shots / "html-svg.png"))


def test_display_id_updates_in_place(page, shots):
    new_notebook(page)
    run_code(page, "from IPython.display import display, update_display, HTML\nimport time\n"
                   "h = display(HTML('<b>step 0</b>'), display_id=True)\n"
                   "display(HTML('<i>total: 0</i>'), display_id='total')\n"
                   "for i in range(1, 4):\n    time.sleep(0.1)\n    h.update(HTML(f'<b>step {i}</b>'))\n"
                   "type(h).__name__")
    out = _outputs(page)
    assert out.locator(".output").count() == 3  # two displays updated in place, and the result
    assert out.locator(".output").nth(0).inner_text() == "step 3"
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    run_code(page, "update_display(HTML('<i>total: 42</i>'), display_id='total')", index=1)  # a later cell updates it
    assert out.locator(".output").nth(1).inner_text() == "total: 42"
    assert out.locator(".output").nth(2).inner_text() == "'DisplayHandle'"
    page.screenshot(path=str(shots / "display-id.png"))


def test_ipython_display_module(page, shots):
    new_notebook(page)
    run_code(page, "from IPython.display import display, HTML, Image, Markdown, SVG, clear_output\n"
                   "from webtorch.notebook.png import encode_png\n"
                   "png = encode_png(bytes(range(0, 256, 4)), 8, 8, 1)\n"
                   "for i in range(3):\n    clear_output(wait=True)\n    display(Markdown(f'**frame {i}**'))\n"
                   "display(Image(data=png, width=64), Markdown('Math: $x^2$ and *emphasis*'))\n"
                   "from IPython.display import Math\ndisplay(Math(r'\\frac{a}{b}'))\n"
                   "import IPython\nIPython.display.HTML('<u>via the package</u>')")
    out = _outputs(page)
    assert out.locator(".output").count() == 5, out.inner_text()  # clear_output(wait=True) kept only the last frame
    assert out.locator(".output").nth(0).inner_text() == "frame 2"
    img = out.locator("img.image-output")
    assert img.get_attribute("width") == "64" and img.get_attribute("src").startswith("data:image/png;base64,iVBOR")
    assert out.locator(".katex").count() == 2 and out.locator("em").inner_text() == "emphasis"
    assert out.locator(".latex-output .katex .mfrac").count() == 1
    assert out.locator("u").inner_text() == "via the package"
    page.screenshot(path=str(shots / "ipython-display.png"))


def test_help_with_question_mark_and_help(page, shots):
    new_notebook(page)
    text = run_code(page, "import torch\ntorch.nn.Linear?")
    assert "Init signature: Linear(in_features, out_features, bias=True" in text, text
    assert "Docstring:" in text and "Type:" in text and "File:" in text
    # the wheel has no docstrings: the kernel fetched them from beside it before the cell ran
    assert "Docstring:\ny = x A^T + b, with weight (out_features, in_features)" in text, text
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    text = run_code(page, "def twice(x):\n    'Double x.'\n    return 2 * x\ntwice??\nnot_defined_here?", index=1)
    assert "Source:\ndef twice(x):" in text and "Object `not_defined_here` not found." in text, text
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    text = run_code(page, "help(torch.nn.ReLU)", index=2)
    assert "class ReLU" in text and "Help on class ReLU" in text, text
    assert "The module-specific part of repr" in text, text  # an inherited method's docstring
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    text = run_code(page, "help()", index=3)  # pydoc's prompt would need input(): a message, not an OSError
    assert "this kernel has no input" in text and "Error" not in text, text
    full_screenshot(page, shots / "help.png")


def test_tab_completes_names_from_the_kernel(page, shots):
    new_notebook(page)
    run_code(page, "import torch\nlearning_rate_for_adam = 3e-4")
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    set_source(page, 1, "learning_ra")
    page.keyboard.press("Tab")
    popup = page.locator(".cm-tooltip-autocomplete")
    popup.wait_for()
    assert popup.inner_text().split() == ["learning_rate_for_adam"]
    page.wait_for_timeout(150)  # CodeMirror ignores Enter for 75 ms after the list opens (no accidental picks)
    page.keyboard.press("Enter")
    assert cells(page).nth(1).locator(".cm-content").inner_text() == "learning_rate_for_adam"
    page.keyboard.insert_text("\ntorch.nn.Line")
    page.keyboard.press("Tab")
    popup.wait_for()
    assert "Linear" in popup.inner_text().split()
    page.screenshot(path=str(shots / "completion.png"))
    page.keyboard.press("Escape")  # closes the list, the editor keeps focus
    assert popup.count() == 0 and page.evaluate("() => document.body.dataset.mode") == "edit"
    page.keyboard.press("Control+a")
    page.keyboard.insert_text("if True:\n")
    page.keyboard.press("Tab")  # at the start of a line Tab indents, as in Jupyter
    assert "\n" in cells(page).nth(1).locator(".cm-content").inner_text()
    assert page.locator(".cm-tooltip-autocomplete").count() == 0


def test_execution_time_is_shown_and_saved(page, shots):
    new_notebook(page)
    run_code(page, "import time\ntime.sleep(0.4)")
    shown = cells(page).nth(0).locator(".exec-time").inner_text()
    word, value, unit = shown.split()
    assert word == "took" and 400 <= float(value) * {"ms": 1, "s": 1000}[unit] < 10_000, shown
    meta = page.evaluate("() => webtorchNotebook.ipynb().cells[0].metadata.execution")
    assert set(meta) == {"iopub.execute_input", "shell.execute_reply"}
    page.screenshot(path=str(shots / "execution-time.png"))
    assert not page.errors, page.errors
