"""matmul's errors against torch: type and exact message for every rank pairing. PyTorch's wording follows the
path its _matmul_impl takes (dot / mv / mm / the larger operand folded for one mm or mv / bmm over broadcast
batch dims), and the fold depends on requires_grad and strides, so those vary too."""
import itertools

import pytest
import torch

import webtorch

SHAPES = [(3,), (4,), (2, 3), (3, 4), (4, 5), (2, 3, 4), (3, 4, 5), (2, 5, 4), (2, 1, 3, 4), (4, 2, 3)]


def _operand(m, device, shape, requires_grad, transposed, dtype):
    if transposed and len(shape) >= 3:  # same shape, batch dims not foldable into rows without a copy
        x = m.ones((shape[1], shape[0]) + shape[2:], device=device, dtype=dtype).transpose(0, 1)
    else:
        x = m.ones(shape, device=device, dtype=dtype)
    return x.requires_grad_(True) if requires_grad else x


def _outcome(m, device, a, b, variant):
    rga, rgb, tra, trb, int_b = variant
    try:
        r = m.matmul(_operand(m, device, a, rga, tra, m.float32),
                     _operand(m, device, b, rgb, trb, m.int64 if int_b else m.float32))
        return ("ok", tuple(r.shape), str(r.dtype).replace("webtorch", "torch"))
    except Exception as e:  # noqa: BLE001
        return (type(e).__name__, str(e))


VARIANTS = [v for v in itertools.product((0, 1), (0, 1), (0, 1), (0, 1), (0, 1)) if not (v[1] and v[4])]


@pytest.mark.parametrize("a", SHAPES, ids=str)
def test_matmul_outcome_matches_torch(a, device):
    mismatches = []
    for b, variant in itertools.product(SHAPES, VARIANTS):
        want = _outcome(torch, "cpu", a, b, variant)
        got = _outcome(webtorch, device, a, b, variant)
        if got != want:
            mismatches.append((a, b, variant, want, got))
    assert not mismatches, mismatches[:5]


_BATCH = "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}"


@pytest.mark.parametrize("a, b, message", [
    ((2, 2, 3), (3, 3, 4), _BATCH.format(2, 3, 0)),
    ((2, 3, 4), (2, 3, 3, 4), _BATCH.format(2, 3, 1)),
    ((2, 3, 4), (5,), "size mismatch, got input (6), mat (6x4), vec (5)"),
    ((2, 3, 4), (5, 6), "mat1 and mat2 shapes cannot be multiplied (6x4 and 5x6)"),
    ((2, 3), (2, 4, 5), "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    ((4,), (2, 3, 5), "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."),
    ((2, 3), (4,), "size mismatch, got input (2), mat (2x3), vec (4)"),
])
def test_matmul_messages(a, b, message, device):
    with pytest.raises(RuntimeError) as info:
        webtorch.matmul(webtorch.ones(a, device=device), webtorch.ones(b, device=device))
    assert str(info.value) == message


@pytest.mark.parametrize("fn", [
    lambda m, d: m.mv(m.ones(2, 3, device=d), m.ones(3, device=d, dtype=m.int64)),
    lambda m, d: m.bmm(m.ones(2, 3, 4, device=d, dtype=m.int64), m.ones(2, 4, 5, device=d)),
    lambda m, d: m.mm(m.ones(2, 3, device=d), m.ones(3, 2, device=d, dtype=m.int64)),
    lambda m, d: m.dot(m.ones(3, device=d), m.ones(4, device=d, dtype=m.int64)),
], ids=["mv", "bmm", "mm", "dot"])
def test_product_dtype_mismatch(fn, device):
    with pytest.raises(RuntimeError) as want:
        fn(torch, "cpu")
    with pytest.raises(RuntimeError) as got:
        fn(webtorch, device)
    assert str(got.value) == str(want.value)
