"""PyPI's tqdm through webtorch.notebook.tqdm_hook: every way users import it gives tqdm's own class with the
notebook display (one live progress output per bar), in the app's kernel, under IPython and nowhere else."""
import json
import sys

import pytest

import tqdm as _installed  # noqa: F401 -- scripts/requirements-dev.txt pins the version the sites ship

from webtorch.notebook import host as host_mod
from webtorch.notebook import tqdm_hook
from webtorch.notebook.progress import PROGRESS_MIME


@pytest.fixture
def fresh_tqdm(monkeypatch):
    """tqdm imported anew with the hook installed (and both removed afterwards). tqdm_bar goes too: built on the tqdm
    class of its first import, it must be rebuilt on the fresh one (another test may have imported it first)."""
    saved = {k: v for k, v in sys.modules.items()
             if k == "tqdm" or k.startswith("tqdm.") or k == "webtorch.notebook.tqdm_bar"}
    for k in saved:
        del sys.modules[k]
    before = list(sys.meta_path)
    tqdm_hook.install()
    yield
    sys.meta_path[:] = before
    for k in [k for k in sys.modules if k == "tqdm" or k.startswith("tqdm.") or k == "webtorch.notebook.tqdm_bar"]:
        del sys.modules[k]
    sys.modules.update(saved)


@pytest.fixture
def app(monkeypatch):
    msgs = []
    host = host_mod.AppHost(lambda kind, text, did: msgs.append((kind, json.loads(text), did)))
    monkeypatch.setattr(host_mod, "_app_host", host)
    return host, msgs


def test_every_import_path_gives_the_notebook_bar(fresh_tqdm):
    from tqdm import tqdm, trange
    from tqdm.auto import tqdm as auto_tqdm, trange as auto_trange
    from tqdm.notebook import tqdm as nb_tqdm, tnrange
    from tqdm.autonotebook import tqdm as autonb_tqdm
    from tqdm.std import tqdm as std_tqdm
    from webtorch.notebook import tqdm_bar
    assert tqdm is auto_tqdm is nb_tqdm is autonb_tqdm is tqdm_bar.tqdm
    assert trange is auto_trange is tnrange is tqdm_bar.trange
    assert issubclass(tqdm, std_tqdm) and std_tqdm is not tqdm  # tqdm's own class, left as it is


def test_nested_bars_are_one_live_output_each(fresh_tqdm, app):
    host, msgs = app
    from tqdm.auto import tqdm, trange
    for _ in trange(2, desc="epochs"):
        for _ in tqdm(range(3), desc="batches", leave=False):
            pass
        tqdm.write("epoch done")
    with tqdm(total=4, unit="img") as bar:
        bar.update(4)
        bar.set_postfix(loss=0.25)
    host.flush()
    shown = [(m, did) for kind, m, did in msgs if kind == "display"]
    assert len(shown) == 4  # epochs, two inner bars, the manual bar
    by_id = {}
    for kind, m, did in msgs:
        by_id.setdefault(did, []).append(m["data"])
    outer = by_id[shown[0][1]][-1]
    assert outer[PROGRESS_MIME]["n"] == 2 and outer[PROGRESS_MIME]["total"] == 2
    assert outer[PROGRESS_MIME]["desc"] == "epochs" and outer[PROGRESS_MIME]["closed"]
    assert outer["text/plain"].startswith("epochs: 100%|")
    for inner_id in (shown[1][1], shown[2][1]):
        assert by_id[inner_id][-1] == {"text/plain": ""}  # leave=False: emptied when it closed
    manual = by_id[shown[3][1]][-1][PROGRESS_MIME]
    assert (manual["n"], manual["total"], manual["unit"], manual["postfix"]) == (4, 4, "img", "loss=0.25")
    assert not any(kind == "stderr" for kind, _, _ in msgs)  # nothing written to a terminal


def test_disabled_and_delayed_bars_show_nothing(fresh_tqdm, app):
    host, msgs = app
    from tqdm import tqdm
    assert list(tqdm(range(3), disable=True)) == [0, 1, 2]
    for _ in tqdm(range(3), delay=60):
        pass
    host.flush()
    assert msgs == []


def test_under_ipython_a_bar_is_html(fresh_tqdm, monkeypatch):
    shown = []

    class Host(host_mod.Host):
        def show(self, bundle, metadata=None, display_id=None):
            shown.append(bundle)
        update = show
    monkeypatch.setattr(host_mod, "_app_host", None)
    monkeypatch.setattr(host_mod, "current", lambda: Host())
    from tqdm.auto import trange
    list(trange(3))
    assert '<progress value="3" max="3"' in shown[-1]["text/html"]
    assert shown[-1]["text/plain"].startswith("100%|")
    # the <progress> element in place of the text bar: "100%" before it, "3/3 [...]" after it
    assert shown[-1]["text/html"].startswith("<div><code>100%</code> <progress") and "█" not in shown[-1]["text/html"]
    assert "</progress> <code>3/3 [" in shown[-1]["text/html"]
