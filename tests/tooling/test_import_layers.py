"""Imports go down the README's layers: the counts of scripts/import_layers.py do not grow, and autograd/ imports
nothing above it (it speaks Tensor only: the engine never reaches into ops)."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("import_layers", ROOT / "scripts" / "import_layers.py")
layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(layers)

# Ceilings: lower them when an upward import or a cycle goes (issue 14 aims at <= 5 and 1).
MAX_UPWARD = 0
MAX_CYCLES = 0
MAX_FILES_IN_CYCLES = 0  # Tensor no longer imports ops: ops attach __new__, __reduce_ex__ and to (ops/__init__.py)


@pytest.fixture(scope="module")
def webtorch_graph():
    return layers.graph()


def test_counts_do_not_grow(webtorch_graph):
    g = webtorch_graph
    up, cyc = layers.upward(g), layers.cycles(g)
    assert len(up) <= MAX_UPWARD, "\n".join(f"{a} -> {b}" for a, b in up)
    assert len(cyc) <= MAX_CYCLES, cyc
    assert sum(map(len, cyc)) <= MAX_FILES_IN_CYCLES, cyc


def test_autograd_imports_nothing_above_it(webtorch_graph):
    up = [(a, b) for a, b in layers.upward(webtorch_graph) if a.startswith("autograd/")]
    assert up == []
    assert not any(f.startswith("autograd/") for c in layers.cycles(webtorch_graph) for f in c)


def _write(pkg, rel, text):
    path = pkg / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_counter_sees_local_relative_and_absolute_imports(tmp_path):
    pkg = tmp_path / "webtorch"
    _write(pkg, "__init__.py", "from . import _tensor\n")
    _write(pkg, "_tensor.py", "from .autograd import engine\n")  # tensor -> autograd: down
    _write(pkg, "autograd/__init__.py", "")
    _write(pkg, "autograd/engine.py", "def f():\n    from ..ops.creation import zeros\n")  # up, function-local
    _write(pkg, "ops/__init__.py", "")
    _write(pkg, "ops/creation.py", "import webtorch.autograd.engine\nfrom .. import _tensor\n")
    _write(pkg, "backends/base.py", "from webtorch import nn\n")  # up to the api layer (nn/__init__.py)
    _write(pkg, "nn/__init__.py", "")
    g = layers.graph(pkg)
    assert layers.upward(g) == [("autograd/engine.py", "ops/creation.py"), ("backends/base.py", "nn/__init__.py")]
    assert layers.cycles(g) == [["_tensor.py", "autograd/engine.py", "ops/creation.py"]]
