"""webtorch.notebook in CPython: the text fallbacks (scripts, `webtorch run --browser`), the IPython path
(JupyterLite, Jupyter: display handles and update_display), PNG images, tables and the app kernel's cell
runner."""
import asyncio
import builtins
import concurrent.futures
import json
import struct
import sys
import zlib

import pytest

import webtorch
from webtorch.notebook import LinePlot, display, show_image, tqdm
from webtorch.notebook import host as host_mod
from webtorch.notebook.image import image_grid
from webtorch.notebook.png import encode_png


def _decode_png(data):
    """(width, height, colour type, raw rows without filter bytes) of a PNG made by encode_png."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + n
    w, h, depth, ctype = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert depth == 8
    raw = zlib.decompress(chunks[b"IDAT"])
    stride = w * (1 if ctype == 0 else 3)
    rows = [raw[r * (stride + 1):(r + 1) * (stride + 1)] for r in range(h)]
    assert all(r[0] == 0 for r in rows)
    return w, h, ctype, b"".join(r[1:] for r in rows)


def test_png_round_trip():
    pix = bytes(range(12))
    assert _decode_png(encode_png(pix, 4, 3, 1)) == (4, 3, 0, pix)
    assert _decode_png(encode_png(pix, 2, 2, 3)) == (2, 2, 2, pix)
    with pytest.raises(ValueError, match="do not hold"):
        encode_png(pix, 5, 5, 1)


def test_image_grid_normalises_each_image_and_pads():
    a = webtorch.tensor([[0.0, 2.0], [4.0, 8.0]])          # min-max normalised
    b = webtorch.tensor([[0.0, 0.5], [1.0, 0.25]])         # already in [0, 1]: kept
    png, w, h, n, chw = image_grid([a, b], nrow=2)
    assert (w, h, n, chw) == (2 * 2 + 3 * 2, 2 + 2 * 2, 2, (1, 2, 2))
    _, _, ctype, pix = _decode_png(png)
    assert ctype == 0
    row = lambda y: pix[y * w:(y + 1) * w]  # noqa: E731
    assert list(row(2)[2:4]) == [0, 64] and list(row(3)[2:4]) == [128, 255]
    assert list(row(2)[6:8]) == [0, 128] and list(row(3)[6:8]) == [255, 64]
    assert set(row(0)) == {0}


def test_image_grid_shapes_and_errors():
    assert image_grid(webtorch.rand(5, 3, 4, 4), nrow=2)[1:4] == (2 * 4 + 3 * 2, 3 * 4 + 4 * 2, 5)
    assert _decode_png(image_grid(webtorch.rand(3, 4, 4))[0])[2] == 2
    assert image_grid(webtorch.arange(16, dtype=webtorch.uint8).reshape(1, 4, 4))[3] == 1
    with pytest.raises(ValueError, match="permute"):
        image_grid(webtorch.rand(4, 4, 3))
    with pytest.raises(TypeError, match="tensor"):
        image_grid("not an image")


def test_text_host_lines(capsys):
    show_image(webtorch.rand(4, 1, 8, 8), title="digits")
    plot = LinePlot(title="train")
    plot.append(0, loss=1.5)
    for _ in tqdm(range(3), desc="epoch"):
        pass
    display({"acc": 0.5})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "digits: 4 images 1x8x8 (42x12 px grid)"
    assert out[1] == "train: step=0 loss=1.5"
    assert out[2].startswith("epoch:   0%|") and out[-2].startswith("epoch: 100%|") and "3/3" in out[-2]
    assert out[-1] == "{'acc': 0.5}"


def test_tqdm_api():
    bar = tqdm(total=10, desc="d")
    with bar:
        bar.update(4)
        bar.set_postfix(loss=0.25, step=3)
        bar.set_description("e")
        assert len(bar) == 10 and bar.n == 4
        assert bar.line().startswith("e:  40%|") and "loss=0.25, step=3" in bar.line()
    assert bar.closed
    assert len(tqdm([1, 2, 3])) == 3
    with pytest.raises(TypeError, match="iterable"):
        iter(tqdm(total=3)).__next__()


def test_lineplot_rejects_bad_points():
    plot = LinePlot()
    with pytest.raises(TypeError, match="at least one"):
        plot.append(1)
    with pytest.raises(TypeError, match="loss must be a number"):
        plot.append(1, loss="high")
    plot.append(1, loss=webtorch.tensor(0.5))
    plot.append(2, acc=0.9)
    assert plot.series == {"loss": [0.5, None], "acc": [None, 0.9]}
    assert plot.svg().startswith("<svg") and "acc" in plot.svg()


def test_tables():
    from webtorch.notebook.display import mime_bundle
    html = mime_bundle({"loss": 0.5, "acc": webtorch.tensor(0.75)})[0]["text/html"]
    assert "<td>loss</td><td>0.5</td>" in html and "<td>0.75</td>" in html
    assert "<th>a</th><th>b</th>" in mime_bundle([{"a": 1, "b": 2}, {"a": 3, "b": 4}])[0]["text/html"]
    assert mime_bundle((1, 2))[0] == {"text/plain": "(1, 2)"}
    assert mime_bundle(webtorch.ones(2))[0] == {"text/plain": "tensor([1., 1.])"}


@pytest.fixture
def ipython_shell(monkeypatch):
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell

    class Recorder(DisplayPublisher):
        def __init__(self):
            super().__init__()
            self.calls = []

        def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kw):
            self.calls.append((data, transient or {}, update))

    shell = InteractiveShell.instance()
    rec = Recorder()
    monkeypatch.setattr(shell, "display_pub", rec)
    monkeypatch.setattr(host_mod, "_ipython_host", None)
    yield shell, rec
    InteractiveShell.clear_instance()


def test_ipython_host_displays_and_updates(ipython_shell):
    shell, rec = ipython_shell
    plot = LinePlot(title="t")
    for i in range(3):
        plot.append(i, loss=1.0 / (i + 1))
    show_image(webtorch.rand(1, 4, 4))
    shell.events.trigger("post_execute")  # the cell ended: pending live updates go out
    first, *rest = rec.calls
    assert "image/svg+xml" in first[0] and not first[2]
    pid = first[1]["display_id"]
    img = next(c for c in rec.calls if "image/png" in c[0])
    assert img[0]["text/plain"].startswith("1 image 1x4x4")
    last_update = [c for c in rest if c[2] and c[1].get("display_id") == pid][-1]
    assert "step=2 loss=0.3333" in last_update[0]["text/plain"]
    assert last_update[0]["image/svg+xml"].count("<path") == 1


def test_kernel_runs_cells_like_jupyter(monkeypatch):
    from webtorch.notebook import kernel
    msgs = []
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    monkeypatch.setattr(sys, "stderr", sys.stderr)
    monkeypatch.setattr(host_mod, "_app_host", None)
    monkeypatch.setattr(builtins, "help", builtins.help)  # install wraps help(): restored after the test
    kernel.install(lambda kind, text, did: msgs.append((kind, text)))

    async def cells():
        assert await kernel.run_cell("import asyncio\nprint('a')\nawait asyncio.sleep(0)\n6 * 7", 1) == "ok"
        assert await kernel.run_cell("def f():\n    return 1 / 0\nf()", 2) == "error"
    # in a thread of its own: after the browser tests this thread holds the session's (sync) Playwright loop
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, cells()).result()
    kinds = [k for k, _ in msgs]
    assert kinds == ["stdout", "stdout", "result", "stats", "error", "stats"], kinds
    assert json.loads(msgs[2][1])["data"]["text/plain"] == "42"
    err = json.loads(msgs[4][1])
    assert err["ename"] == "ZeroDivisionError"
    assert err["traceback"][1] == '  File "<cell 2>", line 3, in <module>'  # kernel frames trimmed
    assert not any("kernel.py" in line for line in err["traceback"])
