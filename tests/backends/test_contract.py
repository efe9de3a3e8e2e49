"""The backend contract (backends/base.py): every backend class names each primitive in its own body, or in its
``host_fallbacks`` (the primitives it serves by computing on the host), and a primitive it implements takes
base.py's parameters. A primitive inherited from a mixin or from Backend itself does not count: a reader of the
backend's file must find every primitive there."""
import inspect

import pytest

from webtorch.backends.base import Backend
from webtorch.backends.numpy import NumpyBackend
from webtorch.backends.numpy.ufuncs import UFUNC
from webtorch.backends.op_facts import ELEMENTWISE_OPS
from webtorch.backends.webgpu.backend import WebGPUBackend

PRIMITIVES = frozenset(n for n, v in vars(Backend).items() if inspect.isfunction(v) and not n.startswith("_"))
BACKENDS = pytest.mark.parametrize("cls", [NumpyBackend, WebGPUBackend], ids=lambda c: c.__name__)


def _fallbacks(cls):
    fallbacks = vars(cls).get("host_fallbacks")
    assert isinstance(fallbacks, frozenset), f"{cls.__name__} has no class attribute host_fallbacks (a frozenset)"
    return fallbacks


def _parameters(cls, name):
    """Parameter names of cls's own primitive ``name``, without self."""
    f = vars(cls)[name]
    if isinstance(f, staticmethod):
        return list(inspect.signature(f.__func__).parameters)
    return list(inspect.signature(f).parameters)[1:]


def test_base_declares_the_primitives():
    # the set the other tests check against: a wrong reading of base.py (say, an empty set) must not pass them
    assert {"elementwise", "matmul", "conv", "adam_update", "linalg_svd", "uniform", "check_classes"} <= PRIMITIVES
    assert "__init__" not in PRIMITIVES and len(PRIMITIVES) > 80


@BACKENDS
def test_every_primitive_is_in_the_class_body_or_a_declared_host_fallback(cls):
    missing = sorted(PRIMITIVES - set(vars(cls)) - _fallbacks(cls))
    assert not missing, f"{cls.__name__} neither defines nor lists in host_fallbacks: {missing}"


@BACKENDS
def test_host_fallbacks_name_only_primitives(cls):
    unknown = sorted(_fallbacks(cls) - PRIMITIVES)
    assert not unknown, f"{cls.__name__}.host_fallbacks names what base.py does not declare: {unknown}"


@BACKENDS
def test_implemented_primitives_take_base_parameters(cls):
    own = (PRIMITIVES & set(vars(cls))) - _fallbacks(cls)
    wrong = {n: _parameters(cls, n) for n in sorted(own)
             if _parameters(cls, n) != list(inspect.signature(vars(Backend)[n]).parameters)[1:]}
    assert not wrong, f"{cls.__name__} primitives whose parameters differ from base.py's: {wrong}"


def test_numpy_backend_computes_everything_itself():
    assert NumpyBackend.host_fallbacks == frozenset()
    assert set(UFUNC) == set(ELEMENTWISE_OPS), "every elementwise op of op_facts has exactly one NumPy function"
