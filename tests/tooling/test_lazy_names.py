"""The names packages load on first use (webtorch._lazy) are the objects an eager import gives, every name the
package exports (__all__) answers, and an unknown name is still an AttributeError naming the module."""
import importlib
import subprocess
import sys

import pytest

import webtorch

from lazy_modules import NOT_AT_IMPORT

LAZY = ["webtorch.optim", "webtorch.distributions", "webtorch.legacy", "webtorch.nn.utils", "webtorch.autograd"]


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


# a fresh process: Tensor methods of op families loaded at first use (ops/__init__.py ON_FIRST_USE), looked up for
# the first time after a __torch_function__ subclass exists, while a mode is active, on a sparse tensor, by inspect
FIRST_LOOKUPS = """
import inspect, sys, webtorch
from webtorch.overrides import TorchFunctionMode
assert "webtorch.ops.differences" not in sys.modules and "webtorch.ops.covariance" not in sys.modules
seen = []
class Logged(webtorch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        seen.append(func.__name__)
        return super().__torch_function__(func, types, args, kwargs or {})
class Mode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        seen.append("mode " + func.__name__)
        return func(*args, **(kwargs or {}))
x = webtorch.tensor([1.0, 4.0, 9.0])
assert list(inspect.signature(webtorch.Tensor.diff).parameters)[:2] == ["input", "n"]
assert webtorch.Tensor.diff is sys.modules["webtorch.ops.differences"].METHODS["diff"]
assert type(x.as_subclass(Logged).diff()) is Logged and seen == ["diff"], seen
with Mode():
    c = x.cov()
assert abs(c.item() - 49 / 3) < 1e-5
assert seen[1:] == ["mode cov"], seen
try:
    webtorch.tensor([[0.0, 1.0]]).to_sparse().histc()
except NotImplementedError as e:
    assert "histc is not supported on sparse COO tensors" in str(e)
else:
    raise AssertionError("a sparse tensor computed histc")
print("ok")
"""


def test_tensor_methods_of_families_loaded_at_first_use():
    r = subprocess.run([sys.executable, "-c", FIRST_LOOKUPS], capture_output=True, text=True, check=False)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]
