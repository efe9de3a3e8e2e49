"""webtorch.notebook.matplotlib_backend in CPython (matplotlib 3.10.8, the version of Pyodide 314's lock): the
app's kernel registers it, ``plt.show()`` and a cell's unshown figures become PNG outputs, as Jupyter's inline
backend does. (In the browser matplotlib needs a package URL, unreachable here: that path is untested.)"""
import base64
import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import asyncio, json, sys
    from webtorch.notebook import kernel
    msgs = []
    kernel.install(lambda kind, text, did: msgs.append((kind, text)))
    async def cells():
        await kernel.run_cell("import matplotlib.pyplot as plt\\nplt.plot([1, 3, 2])\\nplt.title('shown')\\nplt.show()", 1)
        await kernel.run_cell("plt.imshow([[0, 1], [1, 0]])", 2)  # not shown: the cell's end shows it
        await kernel.run_cell("import matplotlib\\nprint(matplotlib.get_backend(), len(plt.get_fignums()))", 3)
    asyncio.run(cells())
    sys.__stdout__.write(json.dumps(msgs))
""")


def test_figures_become_png_outputs():
    env = {**os.environ}
    env.pop("MPLBACKEND", None)
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, check=True).stdout
    msgs = json.loads(out)
    displays = [json.loads(text)["data"] for kind, text in msgs if kind == "display"]
    assert len(displays) == 2, msgs  # the shown figure, then the one the cell's end showed
    for bundle in displays:
        assert base64.b64decode(bundle["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
        assert bundle["text/plain"].startswith("<Figure size")
    printed = "".join(text for kind, text in msgs if kind == "stdout")
    assert printed == "module://webtorch.notebook.matplotlib_backend 0\n", printed  # registered; figures closed
    results = [json.loads(text)["data"]["text/plain"] for kind, text in msgs if kind == "result"]
    assert results and results[0].startswith("<matplotlib.image.AxesImage")
