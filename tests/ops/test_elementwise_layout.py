"""The strides of elementwise results against PyTorch on every device: PyTorch's TensorIterator lays a result out
as its inputs are when they agree (a transposed input gives a transposed result), else in the order the first
input that tells the dims apart gives, C order when nothing does (_geometry.elementwise_layout). Values too, as
the backend computes such a result on permuted views of the operands."""
import numpy as np
import pytest
import torch

import webtorch
from webtorch import _geometry as G

# (name, op): op(m, x) on a float32 arange of shape (2, 3, 4, 5) of library m
CASES = [
    ("transposed plus number", lambda m, x: x[0, 0].t() + 1),
    ("number times permuted", lambda m, x: 2 * x.permute(3, 1, 0, 2)),
    ("two permuted alike", lambda m, x: x.permute(0, 2, 3, 1) + x.permute(0, 2, 3, 1)),
    ("permuted two ways: the first decides", lambda m, x: x.permute(1, 0, 2, 3) - x.permute(1, 0, 3, 2).transpose(2, 3)),
    ("transposed with contiguous", lambda m, x: x[0, 0].t() * x[0, 0].t().contiguous()),
    ("contiguous with transposed", lambda m, x: x[0, 0].t().contiguous() * x[0, 0].t()),
    ("expanded with transposed", lambda m, x: x[0, 0, 0].expand(4, 5).t() + x[0, 0].t()),
    ("transposed plus broadcast row", lambda m, x: x[0, 0].t() + x[0, 0, :, 0]),
    ("broadcast column plus row", lambda m, x: x[0, 0, :, :1] + x[0, 0, :1, :]),
    ("stepped slice", lambda m, x: x[:, :, ::2] + 1),
    ("stepped slice transposed", lambda m, x: x[0, 0, :, ::2].t() * 3),
    ("size-1 dim moved", lambda m, x: x[:, :1].transpose(0, 1) + 1),
    ("channels-last strides", lambda m, x: x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2) + 1),
    ("unary of permuted", lambda m, x: (x.permute(3, 1, 0, 2) / 60).exp()),
    ("unary of stepped transposed", lambda m, x: x[0, 0, :, ::2].t().neg()),
    ("comparison of permuted", lambda m, x: x.permute(0, 2, 3, 1) > 30),
    ("where of permuted", lambda m, x: m.where(x.permute(0, 2, 3, 1) > 30, x.permute(0, 2, 3, 1), 0.0)),
    ("contiguous stays C order", lambda m, x: x + x),
]


@pytest.mark.parametrize("name,op", CASES, ids=[c[0] for c in CASES])
def test_elementwise_strides_match_torch(device, name, op):
    base = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    want = op(torch, torch.tensor(base))
    got = op(webtorch, webtorch.tensor(base, device=device))
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride(), name
    assert got.storage_offset() == 0 and got.is_contiguous() == want.is_contiguous()
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-5)


def test_layout_rule_matches_torch_on_random_strides():
    """elementwise_layout itself, on many permuted, sliced and broadcast operand pairs."""
    rng = np.random.default_rng(22)
    for _ in range(300):
        nd = int(rng.integers(2, 5))
        shape = tuple(int(s) for s in rng.integers(1, 4, nd))
        operands = []
        for _ in range(int(rng.integers(1, 3))):
            perm = rng.permutation(nd).tolist()
            stored = [shape[p] for p in perm]
            step = 2 if rng.random() < 0.3 else 1  # a stepped slice of the fastest stored dim
            stored[-1] *= step
            t = torch.empty(stored)[..., ::step].permute(*np.argsort(perm).tolist())
            if rng.random() < 0.3:  # broadcast along one dim
                t = t.narrow(int(rng.integers(nd)), 0, 1)
            operands.append(t)
        out_shape = tuple(torch.broadcast_shapes(*(t.shape for t in operands)))
        want = (operands[0] + operands[1] if len(operands) == 2 else operands[0].neg()).stride()
        layout = G.elementwise_layout(out_shape, [(tuple(t.shape), t.stride()) for t in operands])
        got = G.contiguous_strides(out_shape) if layout is None else layout[1]
        assert got == want, [(tuple(t.shape), t.stride()) for t in operands]
