"""Namespaces are written out by name (no globals().update, so go-to-definition finds every name): every op
family's FUNCTIONS is bound at webtorch.<name> and its FUNCTIONAL at torch.nn.functional.<name> to the same
object, and the root's own names answer as torch's do."""
import ast
import importlib
import pkgutil
from pathlib import Path

import pytest
import torch

import webtorch
import webtorch.nn.functional as F
from webtorch import ops

ROOT_FILE = Path(webtorch.__file__)


@pytest.mark.parametrize("family", ops.MODULES + ops.ON_FIRST_USE)
def test_every_op_of_a_family_is_at_the_root(family):
    mod = importlib.import_module(f"webtorch.ops.{family}")
    functions = getattr(mod, "FUNCTIONS", {})
    missing = sorted(k for k, v in functions.items() if getattr(webtorch, k, None) is not v)
    assert missing == [], f"import these from webtorch.ops.{family} in webtorch/__init__.py: {missing}"


FUNCTIONAL_FAMILIES = [m.name for m in pkgutil.iter_modules(ops.__path__)
                       if hasattr(importlib.import_module(f"webtorch.ops.{m.name}"), "FUNCTIONAL")]


def test_functional_families_found():
    assert {"activation", "loss", "dropout"} <= set(FUNCTIONAL_FAMILIES)


def test_every_ops_module_is_listed():
    """ops/__init__.py makes public the modules it lists (it cannot list the browser wheel's archived modules): each
    is in exactly one list, and only the families with tables in those that hold them."""
    lists = (ops.MODULES, ops.PUBLIC_ONLY, ops.INTERNAL, ops.ON_FIRST_USE)
    names = [m.name for m in pkgutil.iter_modules(ops.__path__) if not m.name.startswith("_")]
    assert sorted(names) == sorted(n for group in lists for n in group)
    for name in ops.INTERNAL:
        assert not {"FUNCTIONS", "FUNCTIONAL"} & set(vars(importlib.import_module(f"webtorch.ops.{name}"))), name


@pytest.mark.parametrize("family", FUNCTIONAL_FAMILIES)
def test_every_functional_of_a_family_is_in_nn_functional(family):
    mod = importlib.import_module(f"webtorch.ops.{family}")
    missing = sorted(k for k, v in mod.FUNCTIONAL.items() if getattr(F, k, None) is not v)
    assert missing == [], f"import these from webtorch.ops.{family} in webtorch/nn/functional.py: {missing}"


def test_no_module_fills_its_namespace_at_run_time():
    found = []
    for path in sorted(ROOT_FILE.parent.rglob("*.py")):
        for n in ast.walk(ast.parse(path.read_text())):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "update" \
                    and isinstance(n.func.value, ast.Call) and getattr(n.func.value.func, "id", None) == "globals":
                found.append(f"{path.relative_to(ROOT_FILE.parent)}:{n.lineno}")
    assert found == []


def test_root_binds_names_statically():
    """Every public name is bound by an import, a def or an assignment the source shows (go-to-definition)."""
    tree = ast.parse(ROOT_FILE.read_text())
    bound = set()
    for n in tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            bound.add(n.name)
        elif isinstance(n, ast.Assign):
            bound |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    lazy = set(webtorch._LAZY)
    # a submodule is bound by the import system when it is first imported (webtorch.ops, webtorch.serialization)
    public = {k for k in dir(webtorch) if not k.startswith("_")
              and getattr(getattr(webtorch, k), "__name__", None) != f"webtorch.{k}"}
    assert sorted(public - bound - lazy) == []


@pytest.mark.parametrize("make", [lambda m: m.tensor([2.0]), lambda m: m.tensor([float("nan")]),
                                  lambda m: m.tensor([0]), lambda m: m.tensor([[False]]), lambda m: m.zeros(2)])
def test_is_nonzero(make):
    def run(m):
        try:
            return m.is_nonzero(make(m))
        except RuntimeError as e:
            return type(e)
    assert run(webtorch) == run(torch)


def test_is_tensor_numel_result_type_can_cast():
    for m in (torch, webtorch):
        x = m.ones(2, 3, dtype=m.int32)
        assert m.is_tensor(x) and not m.is_tensor([1]) and m.numel(x) == 6
        assert not m.is_floating_point(x) and m.is_floating_point(x.float())
    assert str(webtorch.result_type(webtorch.ones(1, dtype=webtorch.int32), 2.5)) == \
        str(torch.result_type(torch.ones(1, dtype=torch.int32), 2.5))
    for a, b in [("float32", "int32"), ("int32", "float32"), ("int64", "bool"), ("bool", "uint8")]:
        assert webtorch.can_cast(getattr(webtorch, a), getattr(webtorch, b)) == \
            torch.can_cast(getattr(torch, a), getattr(torch, b))
