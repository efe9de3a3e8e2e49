"""webtorch.notebook's IPython.display stand-in (the app's kernel registers it when IPython is absent): its
objects give the same mime bundles as IPython 9's own (installed here as the oracle); display / update_display /
clear_output / DisplayHandle reach the app's host as Jupyter's messages do; the kernel installs it only where no
IPython can be imported."""
import asyncio
import concurrent.futures
import base64
import importlib.util
import json
import sys

import IPython.display as real
import pytest
from IPython.core.formatters import DisplayFormatter

from webtorch.notebook import host as host_mod
from webtorch.notebook import ipython_display as ours
from webtorch.notebook.display import mime_bundle
from webtorch.notebook.png import encode_png

PNG = encode_png(bytes(range(16)), 4, 4, 1)
SVG_DOC = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="2" height="2"/></svg>'


def _ipython_bundle(obj):
    data, md = DisplayFormatter().format(obj)
    return data, md


@pytest.mark.parametrize("make", [
    lambda m: m.HTML("<b>bold</b>"),
    lambda m: m.HTML("<i>x</i>", metadata={"isolated": True}),
    lambda m: m.Markdown("*emphasis* and $x^2$"),
    lambda m: m.Math(r"x^2 + \alpha"),
    lambda m: m.Math("$x$"),
    lambda m: m.Latex(r"The sum $\sum_i x_i$"),
    lambda m: m.Image(data=PNG),
    lambda m: m.Image(data=PNG, width=40, height=20),
    lambda m: m.Image(url="https://example.org/a.png", width=10),
], ids=["html", "html-metadata", "markdown", "math", "math-dollars", "latex", "png", "png-sized", "image-url"])
def test_bundles_equal_ipythons(make):
    ours_data, ours_md = mime_bundle(make(ours))
    theirs_data, theirs_md = _ipython_bundle(make(real))
    assert {k: v for k, v in ours_data.items() if k != "text/plain"} == \
        {k: v for k, v in theirs_data.items() if k != "text/plain"}
    assert ours_md == theirs_md
    assert ours_data["text/plain"] == theirs_data["text/plain"]


def test_svg_keeps_only_the_svg_element():
    ours_svg = mime_bundle(ours.SVG(SVG_DOC))[0]["image/svg+xml"]
    assert ours_svg.startswith("<svg") and "<?xml" not in ours_svg and 'width="2"' in ours_svg
    assert real.SVG(SVG_DOC)._repr_svg_().startswith("<svg")


def test_image_from_a_file_and_its_errors(tmp_path):
    p = tmp_path / "img.png"
    p.write_bytes(PNG)
    for img in (ours.Image(filename=str(p)), ours.Image(str(p))):
        assert base64.b64decode(mime_bundle(img)[0]["image/png"]) == PNG
    with pytest.raises(ValueError, match="does not download URLs"):
        ours.Image(url="https://example.org/a.png", embed=True)
    with pytest.raises(ValueError, match="format 'bmp' is not shown"):
        ours.Image(data=b"BM....", format="bmp")
    with pytest.raises(ValueError, match="would download the URL"):
        ours.HTML(url="https://example.org/page.html")


def test_html_from_a_file(tmp_path):
    p = tmp_path / "page.html"
    p.write_text("<p>from a file</p>")
    assert mime_bundle(ours.HTML(filename=str(p)))[0]["text/html"] == "<p>from a file</p>"
    assert mime_bundle(ours.HTML(str(p)))[0]["text/html"] == "<p>from a file</p>"


class Recorder(host_mod.AppHost):
    def __init__(self):
        self.sent = []
        super().__init__(lambda kind, text, did: self.sent.append((kind, json.loads(text), did)))


@pytest.fixture
def app_host(monkeypatch):
    rec = Recorder()
    monkeypatch.setattr(host_mod, "_app_host", rec)
    return rec


def test_display_ids_update_and_clear(app_host):
    handle = ours.display(ours.HTML("<b>0</b>"), display_id=True)
    assert isinstance(handle, ours.DisplayHandle)
    handle.update(ours.HTML("<b>1</b>"))
    assert ours.display(ours.Markdown("m"), display_id="fixed").display_id == "fixed"
    ours.update_display(ours.Markdown("n"), display_id="fixed")
    assert ours.display("plain") is None
    ours.display({"text/plain": "raw"}, raw=True)
    ours.display(ours.HTML("<i>h</i>"), include=["text/html"])
    ours.clear_output(wait=True)
    ours.clear_output()
    kinds = [(k, m.get("display_id"), m.get("data")) for k, m, _ in app_host.sent]
    did = handle.display_id
    assert kinds == [
        ("display", did, {"text/plain": "<IPython.core.display.HTML object>", "text/html": "<b>0</b>"}),
        ("update", did, {"text/plain": "<IPython.core.display.HTML object>", "text/html": "<b>1</b>"}),
        ("display", "fixed", {"text/plain": "<IPython.core.display.Markdown object>", "text/markdown": "m"}),
        ("update", "fixed", {"text/plain": "<IPython.core.display.Markdown object>", "text/markdown": "n"}),
        ("display", None, {"text/plain": "'plain'"}),
        ("display", None, {"text/plain": "raw"}),
        ("display", None, {"text/html": "<i>h</i>"}),
        ("clear", None, None),
        ("clear", None, None),
    ]
    assert [m["wait"] for k, m, _ in app_host.sent if k == "clear"] == [True, False]


def test_kernel_provides_ipython_display_only_where_ipython_is_missing(monkeypatch):
    from webtorch.notebook import kernel
    saved = {k: v for k, v in sys.modules.items() if k == "IPython" or k.startswith("IPython.")}
    for k in saved:
        monkeypatch.delitem(sys.modules, k)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "IPython" else real_find_spec(name, *a))
    kernel._provide_ipython_display()
    try:
        from IPython.display import HTML, clear_output, display  # noqa: F401 -- the import is what is tested
        import IPython
        from IPython.core.display import Markdown  # noqa: F401
        assert HTML is ours.HTML and IPython.get_ipython() is None and IPython.display is ours
    finally:
        for k in [k for k in sys.modules if k == "IPython" or k.startswith("IPython.")]:
            del sys.modules[k]
        sys.modules.update(saved)
    monkeypatch.setattr(importlib.util, "find_spec", real_find_spec)
    kernel._provide_ipython_display()  # a real IPython is importable: left alone
    assert sys.modules["IPython.display"] is real


def test_cell_result_of_a_display_object(app_host, monkeypatch):
    from webtorch.notebook import kernel
    monkeypatch.setattr(kernel, "_host", app_host)
    monkeypatch.setitem(sys.modules["__main__"].__dict__, "ours", ours)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # (a browser test's event loop may be running here)
        assert pool.submit(asyncio.run, kernel.run_cell("ours.SVG('<svg/>')", 1)).result() == "ok"
    result = next(m for k, m, _ in app_host.sent if k == "result")
    assert result["data"]["image/svg+xml"] == "<svg/>"
