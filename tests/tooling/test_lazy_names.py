"""The names packages load on first use (webtorch._lazy) are the objects an eager import gives, every name the
package exports (__all__) answers, and an unknown name is still an AttributeError naming the module."""
import importlib
import subprocess
import sys

import pytest

import webtorch

from lazy_modules import NOT_AT_IMPORT

LAZY = ["webtorch.optim", "webtorch.distributions", "webtorch.legacy", "webtorch.nn.utils"]


@pytest.mark.parametrize("name", LAZY)
def test_lazy_names_are_the_modules_objects(name):
    package = importlib.import_module(name)
    table = {n for n in dir(package) if not n.startswith("_")}
    assert set(getattr(package, "__all__", ())) <= table
    for n in sorted(table):
        value = getattr(package, n)
        if hasattr(value, "__module__") and not isinstance(value, type(sys)):
            assert getattr(importlib.import_module(value.__module__), value.__name__) is value, n
    with pytest.raises(AttributeError, match=f"module '{name}' has no attribute 'nope'"):
        getattr(package, "nope")


def test_star_import_and_dir():
    ns = {}
    exec("from webtorch.optim import *", ns)
    assert ns["Adam"] is webtorch.optim.adam.Adam and ns["lr_scheduler"] is webtorch.optim.lr_scheduler
    assert "Normal" in dir(webtorch.distributions) and "nn" in dir(webtorch.legacy)
    assert webtorch.nn.utils.spectral_norm is webtorch.nn.utils.spectral_norm.__globals__["spectral_norm"]


def test_import_webtorch_leaves_them_unimported():
    code = f"import sys, webtorch; print([m for m in {NOT_AT_IMPORT!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", f"import webtorch imported {out.strip()} (they load on first use)"
