"""NaN, ±inf and ±0 through the generated WGSL (wgsl_ops.py) and the search kernel, against PyTorch 2.13.

WGSL leaves NaN and the infinities to the adapter in its builtins and float compares (naga on lavapipe gives
an ordered ``!=``, so NaN != 1 was false; atan(NaN) was 0; asin/acos were 4e-4 off), and floor(a / b)-style
formulas are not C's at the infinities: every op here is run on every pair of special values and compared
with PyTorch's CPU result, NaN positions included.
"""
import numpy as np
import pytest
import torch

import webtorch

from special_values import BINARY, SEARCH_SEQS, SEARCH_VALUES, UNARY, mismatches, pairs as special_pairs

DEV = "webgpu"


def _check(t, w):
    return mismatches(t.numpy(), w.cpu().numpy())


@pytest.fixture(scope="module")
def pairs():
    """Every (a, b) pair of the special values, as torch and webgpu tensors."""
    a, b = special_pairs()
    return (torch.tensor(a), torch.tensor(b)), (webtorch.tensor(a, device=DEV), webtorch.tensor(b, device=DEV))


@pytest.mark.parametrize("op", BINARY)
def test_binary_special_values(op, pairs):
    (ta, tb), (wa, wb) = pairs
    t, w = getattr(torch, op)(ta, tb), getattr(webtorch, op)(wa, wb)
    bad = _check(t, w)
    assert not len(bad), [(ta[i].item(), tb[i].item(), t[i].item(), w.cpu()[i].item()) for i in bad[:8]]


@pytest.mark.parametrize("op", UNARY)
def test_unary_special_values(op, pairs):
    (ta, _), (wa, _) = pairs
    t, w = getattr(torch, op)(ta), getattr(webtorch, op)(wa)
    bad = _check(t, w)
    assert not len(bad), [(ta[i].item(), t[i].item(), w.cpu()[i].item()) for i in bad[:8]]


def test_nan_counts_as_nonzero(pairs):
    (ta, _), (wa, _) = pairs
    assert webtorch.count_nonzero(wa).item() == torch.count_nonzero(ta).item()
    assert webtorch.nonzero(wa).tolist() == torch.nonzero(ta).tolist()


def test_asin_acos_accuracy():
    x = np.linspace(-1, 1, 20001).astype(np.float32)
    w = webtorch.tensor(x, device=DEV)
    for op in ("asin", "acos"):
        ref = getattr(np, "arc" + op[1:])(x.astype(np.float64))
        assert np.abs(getattr(w, op)().cpu().numpy() - ref).max() < 1e-5, op


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("seq", SEARCH_SEQS)
def test_searchsorted_nan_values(seq, right):
    v = SEARCH_VALUES
    t = torch.searchsorted(torch.tensor(seq), torch.tensor(v), right=right)
    w = webtorch.searchsorted(webtorch.tensor(seq, device=DEV), webtorch.tensor(v, device=DEV), right=right)
    assert w.tolist() == t.tolist()
