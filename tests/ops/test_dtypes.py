"""dtypes against PyTorch 2.13: promote_types over every pair, result_type with tensors of each rank and
Python scalars, names/properties, and the dtype of arithmetic results."""
import itertools

import pytest
import torch

import webtorch

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint32", "float16", "bfloat16", "float32", "float64"]


def wt(name):
    return getattr(webtorch, name)


def tt(name):
    return getattr(torch, name)


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_promote_types_all_pairs(a, b):
    try:
        expected = str(torch.promote_types(tt(a), tt(b)))
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
            webtorch.promote_types(wt(a), wt(b))
        assert "not supported" in str(e)
        return
    assert str(webtorch.promote_types(wt(a), wt(b))) == expected


CPU_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SCALARS = [True, 3, 2.5]


def _operands(lib, kind, name):
    dt = getattr(lib, name)
    if kind == "dim":
        return lib.ones(2, dtype=dt)
    return lib.ones((), dtype=dt)


@pytest.mark.parametrize("a,b", list(itertools.product(CPU_NAMES, CPU_NAMES)))
@pytest.mark.parametrize("ka,kb", [("dim", "dim"), ("dim", "zero"), ("zero", "dim"), ("zero", "zero")])
def test_result_type_tensors(a, b, ka, kb):
    t = torch.result_type(_operands(torch, ka, a), _operands(torch, kb, b))
    w = webtorch.result_type(_operands(webtorch, ka, a), _operands(webtorch, kb, b))
    assert str(w) == str(t)


@pytest.mark.parametrize("a", CPU_NAMES)
@pytest.mark.parametrize("s", SCALARS, ids=repr)
@pytest.mark.parametrize("k", ["dim", "zero"])
def test_result_type_scalars_and_arithmetic(a, s, k):
    t = _operands(torch, k, a)
    w = _operands(webtorch, k, a)
    assert str(webtorch.result_type(w, s)) == str(torch.result_type(t, s))
    assert str(webtorch.result_type(s, w)) == str(torch.result_type(s, t))
    if a != "bool" or s is not True:
        assert str((w * s).dtype) == str((t * s).dtype)
        assert str((s + w).dtype) == str((s + t).dtype)


def test_result_type_default_dtype_float64():
    try:
        torch.set_default_dtype(torch.float64)
        webtorch.set_default_dtype(webtorch.float64)
        for name in ("int32", "bool", "float16"):
            assert str(webtorch.result_type(webtorch.ones(2, dtype=wt(name)), 1.5)) == \
                str(torch.result_type(torch.ones(2, dtype=tt(name)), 1.5))
        assert str(webtorch.tensor([1.5]).dtype) == str(torch.tensor([1.5]).dtype) == "torch.float64"
        assert str(webtorch.arange(1.0, 3.0).dtype) == "torch.float64"
    finally:
        torch.set_default_dtype(torch.float32)
        webtorch.set_default_dtype(webtorch.float32)


def test_set_default_dtype_rejects_non_float():
    with pytest.raises(TypeError):
        torch.set_default_dtype(torch.int64)
    with pytest.raises(TypeError):
        webtorch.set_default_dtype(webtorch.int64)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_properties(name):
    w, t = wt(name), tt(name)
    assert repr(w) == repr(t) and str(w) == str(t)
    assert w.is_floating_point == t.is_floating_point
    assert w.is_signed == t.is_signed
    assert w.itemsize == t.itemsize
    assert w.is_complex == t.is_complex


def test_dtype_aliases():
    for alias in ("float", "double", "half", "long", "int", "short", "bool"):
        assert str(getattr(webtorch, alias)) == str(getattr(torch, alias))
    assert webtorch.float is webtorch.float32 and webtorch.long is webtorch.int64


def test_can_cast_matches_torch():
    for a, b in itertools.product(CPU_NAMES, CPU_NAMES):
        assert webtorch.can_cast(wt(a), wt(b)) == torch.can_cast(tt(a), tt(b)), (a, b)
