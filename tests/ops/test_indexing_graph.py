"""The autograd graph basic indexing builds, against torch: one Select/Slice/Unsqueeze node per int, non-full
slice and None of the key, in key order (a full slice written from 0 applies nothing, a lone slice key always
slices, a key applying nothing is an alias), then IndexBackward0 for the advanced entries; values and gradients
through such chains."""
import pytest
import torch

import webtorch
from optest import check, rand

KEYS = ["[1:, 0]", "[0, 1:]", "[:, None, 2]", "[..., 1:3]", "[1:3]", "[0]", "[None]", "[...]", "[:]",
        "[1:, 0, ::2]", "[0, 0]", "[..., 0]", "[:, :, 1]", "[None, 1:, None, 2]", "[1:, ..., 0]", "[-1, :, 1:2]",
        "[:, 1:, :]", "[:, :, :]", "[0:4]", "[:, 0:5]", "[::1]", "[0, None]", "[0:2, None]", "[:, :, None]",
        "[1:2, 1:2, 1:2]", "[:, -1]", "[:, 0:100]", "[:, -5:]", "[:, :100]", "[0:100]", "[2:2, 1]",
        "[:, 1, idx]", "[1:, idx, 0]", "[idx, 1:]", "[..., idx]", "[None, idx]", "[mask, 1:]", "[0, mask2]",
        "[True]", "[False]", "[1:, True]"]


def _chain(t):
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        nxt = [n for n, _ in fn.next_functions if n is not None]
        fn = nxt[0] if nxt else None
    return names


def _index(m, device, key):
    x = m.rand(4, 5, 6, device=device, requires_grad=True)
    scope = {"x": x, "idx": m.tensor([0, 1], device=device), "mask": m.ones(4, dtype=m.bool, device=device),
             "mask2": m.ones(5, 6, dtype=m.bool, device=device)}
    return eval("x" + key, scope)  # noqa: S307 -- the keys above, written as Python indexing


@pytest.mark.parametrize("key", KEYS)
def test_grad_fn_chain_matches_torch(key, device):
    assert _chain(_index(webtorch, device, key)) == _chain(_index(torch, "cpu", key))


@pytest.mark.parametrize("key", [(slice(1, None), 0), (0, slice(1, None)), (slice(None), None, 2),
                                 (Ellipsis, slice(1, 3)), (None, slice(1, None), None, 2),
                                 (slice(1, None), 0, slice(None, None, 2)), (slice(-4, None), slice(0, 100))])
def test_values_and_grads_through_chain(key, device):
    check(lambda m, x: (x * 2)[key] * 3, rand(4, 5, 6), device=device)


def test_no_grad_result_is_one_view_with_same_values(device):
    x = webtorch.rand(4, 5, 6, device=device)
    v = x[1:, 0, ::2]
    assert v.grad_fn is None and v._base is x
    assert v.tolist() == x.detach().cpu()[1:, 0, ::2].tolist()


def test_chained_view_writes_through_to_base(device):
    results = []
    for m, dev in ((torch, "cpu"), (webtorch, device)):
        x = m.zeros(4, 5, device=dev, requires_grad=True)
        y = x * 1
        v = y[1:, 2]
        assert v._base is y
        v.fill_(7.0)
        (y * m.arange(20.0, device=dev).reshape(4, 5)).sum().backward()
        results.append((y.detach().cpu().tolist(), x.grad.cpu().tolist()))
    assert results[1] == results[0]
