"""Without NumPy, Tensor.numpy() names the cause and the way out (in the page the same call first tries to load
Pyodide's NumPy; tests/browser/test_cpu_page.py checks that message)."""
import sys

import pytest

import webtorch as torch


def test_numpy_without_numpy_names_the_cause(monkeypatch):
    t = torch.tensor([1.0, 2.0])
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` now raises ModuleNotFoundError
    with pytest.raises(ModuleNotFoundError, match=r"Tensor.numpy\(\) needs NumPy, which is not installed: pip install"):
        t.numpy()
    assert t.tolist() == [1.0, 2.0]
