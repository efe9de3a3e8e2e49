"""The backend contract (backends/contract.py) and the classes built from it (backends/base.py): every backend
class wires each primitive of the one table to a function of its family modules taking the contract's
parameters, or to a declared host fallback; the builder refuses a class that does not."""
import ast
import dataclasses
import functools
import importlib
import inspect
import pathlib
import types

import pytest

from webtorch.backends.base import Backend
from webtorch.backends.contract import FAMILIES, FLOAT8_REFUSED, HYPER, PRIMITIVES
from webtorch.backends.numpy import NumpyBackend
from webtorch.backends.numpy.ufuncs import UFUNC
from webtorch.backends.op_facts import ELEMENTWISE_OPS
from webtorch.backends.wasm.backend import WasmBackend
from webtorch.backends.webgpu import host_rules
from webtorch.backends.webgpu.backend import WebGPUBackend

BACKENDS = pytest.mark.parametrize("cls", [NumpyBackend, WebGPUBackend, WasmBackend], ids=lambda c: c.__name__)
OWN = frozenset(n for n, p in PRIMITIVES.items() if p.family != "handle")


def test_the_table_declares_the_primitives():
    # the set the other tests check against: a wrong reading of the table (say, an empty one) must not pass them
    assert {"elementwise", "matmul", "conv", "adam_update", "linalg_svd", "uniform", "check_classes"} <= set(PRIMITIVES)
    assert len(PRIMITIVES) > 80 and {"handle", "elementwise", "optim", "linalg"} <= FAMILIES
    assert PRIMITIVES["elementwise"].params == ("op", "args", "dtype", "out")
    assert PRIMITIVES["elementwise"].defaults == {"out": None}
    assert PRIMITIVES["adam_update"].params[-1] == "hp" and all(p.doc for p in PRIMITIVES.values())


def test_each_fused_update_takes_one_hyper_parameter_record():
    assert set(HYPER) == {n for n, p in PRIMITIVES.items() if p.family == "optim"}
    assert [f.name for f in dataclasses.fields(HYPER["adam_update"])] == [
        "lr", "beta1", "beta2", "eps", "weight_decay", "amsgrad", "maximize", "decoupled"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        HYPER["sgd_update"](0.1, 0.9, 0.0, 0.0, False, False).lr = 1.0


def _names(fn):
    return list(inspect.signature(fn).parameters)


@BACKENDS
def test_every_primitive_is_wired_from_the_table(cls):
    assert set(cls.wiring) == OWN
    assert cls.host_fallbacks <= OWN and set(cls.host_when) <= OWN
    assert not cls.host_fallbacks & set(cls.host_when)
    lead = [cls.context] if cls.context else []
    for family, module in cls.families.items():
        if isinstance(module, str):  # loaded at its first call: checked and wired now
            cls.load_family(family)
    for name, fn in cls.wiring.items():
        module = cls.families[PRIMITIVES[name].family]
        if isinstance(module, str):
            module = importlib.import_module(module, cls.__module__.rpartition(".")[0])
        if name in cls.host_fallbacks:
            assert not hasattr(module, name), f"{name}: a host fallback with a kernel in {module.__name__}"
            continue
        kernel = getattr(module, name)
        assert _names(kernel) == lead + list(PRIMITIVES[name].params), name
        # bound directly: no layer between the call and the kernel, but the float8 refusal of a computing family
        # (contract.FLOAT8_REFUSED) on a backend that stores float8 values
        guarded = PRIMITIVES[name].family in FLOAT8_REFUSED and getattr(fn, "__wrapped__", None) is kernel
        assert fn is kernel or guarded or name in cls.host_when
    for name in (n for n, p in PRIMITIVES.items() if p.family == "handle"):
        assert _names(vars(cls)[name]) == ["self"] + list(PRIMITIVES[name].params), name


def test_numpy_backend_computes_everything_itself():
    assert NumpyBackend.host_fallbacks == frozenset() and NumpyBackend.host_when == {}
    assert NumpyBackend.matmul is NumpyBackend.wiring["matmul"]  # context-free: the functions are static methods
    assert set(UFUNC) == set(ELEMENTWISE_OPS), "every elementwise op of op_facts has exactly one NumPy function"


def test_wasm_backend_computes_everything_itself():
    """Every primitive of the contract runs in kernels.wasm: the page has no NumPy to fall back on."""
    assert WasmBackend.host_fallbacks == frozenset() and WasmBackend.host_when == {}
    assert WasmBackend.context == "ctx"


def test_webgpu_host_fallbacks_decided_in_kernels_are_declared():
    # a kernel family may call the host fallback only for a primitive host_rules.DECIDED_IN_KERNEL names
    assert set(host_rules.DECIDED_IN_KERNEL) <= OWN - WebGPUBackend.host_fallbacks
    folder = pathlib.Path(inspect.getfile(host_rules)).parent
    called = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "host_fallback" and \
                    isinstance(node.args[1], ast.Constant):
                called.add(node.args[1].value)
    assert called and called <= set(host_rules.DECIDED_IN_KERNEL), called - set(host_rules.DECIDED_IN_KERNEL)


# ---- the builder refuses what the contract does not allow (at class creation) -----------------------------------
def _families(**override):
    """NumpyBackend's families as namespaces, with ``override`` {primitive: function or None (absent)}."""
    out = {}
    for fam, module in NumpyBackend.families.items():
        ns = types.SimpleNamespace(__name__=f"fake_{fam}")
        for name, p in PRIMITIVES.items():
            if p.family == fam:
                setattr(ns, name, getattr(module, name))
        out[fam] = ns
    for name, fn in override.items():
        ns = out[PRIMITIVES[name].family]
        if fn is None:
            delattr(ns, name)
        else:
            setattr(ns, name, fn)
    return out


def _build(families, **attrs):
    body = {n: vars(NumpyBackend)[n] for n, p in PRIMITIVES.items() if p.family == "handle"}
    return type("Probe", (Backend,), dict(body, families=families, **attrs))


def test_builder_builds_a_class_from_families():
    assert set(_build(_families()).wiring) == OWN


def test_builder_refuses_a_missing_primitive():
    with pytest.raises(TypeError, match="no function fake_matmul.matmul for the primitive matmul"):
        _build(_families(matmul=None))


def test_builder_refuses_parameters_that_differ_from_the_contract():
    with pytest.raises(TypeError, match=r"takes \(b, a\) where the contract's matmul takes \(a, b\)"):
        _build(_families(matmul=lambda b, a: None))
    with pytest.raises(TypeError, match="names, order and defaults"):
        _build(_families(cumulative=lambda op, h, dim, dtype, reverse=True: None))


def _runtime_families(skip=()):
    """Families of functions taking a runtime ``rt`` first and then the contract's parameters (as backends/wasm/'s),
    each returning what it was called with."""
    def family_function(name):
        def fn(rt, *args):
            return ("kernel", rt, name, args)
        p = PRIMITIVES[name]
        fn.__signature__ = inspect.Signature(
            [inspect.Parameter("rt", inspect.Parameter.POSITIONAL_OR_KEYWORD)] +
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=p.defaults.get(n, inspect._empty))
             for n in p.params])
        return fn

    families = {fam: types.SimpleNamespace(__name__=fam) for fam in FAMILIES - {"handle"}}
    for name, p in PRIMITIVES.items():
        if p.family != "handle" and name not in skip:
            setattr(families[p.family], name, family_function(name))
    return families


HOST = staticmethod(lambda rt, name, *args: ("host", rt, name, args))


def test_builder_refuses_fallbacks_that_are_not_primitives_or_are_implemented():
    with pytest.raises(TypeError, match="does not declare: \\['nonsense'\\]"):
        _build(_runtime_families(), context="rt", host_call=HOST, host_fallbacks=frozenset({"nonsense"}))
    with pytest.raises(TypeError, match="both a host fallback and implemented"):
        _build(_runtime_families(), context="rt", host_call=HOST, host_fallbacks=frozenset({"matmul"}))
    with pytest.raises(TypeError, match="host fallbacks need a context"):
        _build(_families(unique=None), host_fallbacks=frozenset({"unique"}))
    with pytest.raises(TypeError, match="host_when predicate of matmul takes"):
        _build(_runtime_families(), context="rt", host_call=HOST, host_when={"matmul": lambda rt, x, y: False})


def test_builder_binds_a_runtime_context_first():
    # a backend whose family functions take their runtime first (as backends/wasm/'s): each primitive becomes a
    # partial of the instance's context; host fallbacks and host_when predicates get the same context
    cls = _build(_runtime_families(skip={"unique"}), context="rt", host_fallbacks=frozenset({"unique"}),
                 host_when={"matmul": lambda rt, a, b: a == "big"}, host_call=HOST)
    be = cls()
    be.bind("RT")
    assert isinstance(be.empty, functools.partial) and be.empty((2,), "f") == ("kernel", "RT", "empty", ((2,), "f"))
    assert be.unique(1, True, False, False, None) == ("host", "RT", "unique", (1, True, False, False, None))
    assert be.matmul("big", 1) == ("host", "RT", "matmul", ("big", 1))
    assert be.matmul("small", 1) == ("kernel", "RT", "matmul", ("small", 1))


def test_numpy_fresh_results_are_c_contiguous_whatever_the_input_layout():
    # the op layer gives every fresh result C-contiguous geometry without asking the backend (contract.py): NumPy
    # lays ufunc and reduction results out as their inputs, so a transposed input must not leak through
    import numpy as np
    from webtorch import _dtype as D
    be = NumpyBackend
    t = np.arange(12, dtype=np.float32).reshape(3, 4).T
    results = [be.elementwise("add", [t, t], D.float32), be.elementwise("mul", [t, 2.0], D.float32),
               be.elementwise("relu", [t], D.float32), be.elementwise("exp", [t], D.float32),
               be.elementwise("lt", [t, t], D.float32), be.elementwise("add", [t, t], D.float64),
               be.reduce("sum", t[None], (0,), True, D.float32), be.reduce("amax", t[..., None], (2,), True,
                                                                           D.float32),
               be.arg_reduce("argmax", t[..., None], 2, True)]
    assert all(r.flags.c_contiguous for r in results)
    np.testing.assert_array_equal(results[0], 2 * t)
