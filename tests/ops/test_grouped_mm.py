"""torch.nn.functional.grouped_mm against PyTorch 2.13 (CPU): every layout, its argument checks, and gradients
(PyTorch's CPU kernel has none; they are checked against the same products written out in PyTorch)."""
import pytest
import torch

import webtorch

from devices import DEVICES

I32 = torch.int32
LAYOUTS = {
    "2d x 3d": ((6, 8), (2, 8, 4), [2, 6]),
    "2d x 3d, a gap and an empty group": ((8, 4), (3, 4, 4), [2, 2, 5]),
    "3d x 2d": ((2, 4, 8), (8, 12), [4, 12]),
    "2d x 2d": ((4, 12), (12, 8), [4, 12]),
    "2d x 2d, an empty slice": ((4, 12), (12, 8), [0, 12]),
    "3d x 3d": ((2, 4, 8), (2, 8, 4), None),
}


def _w(t, device="cpu"):
    return webtorch.tensor(t.tolist(), dtype=getattr(webtorch, str(t.dtype).split(".")[1]), device=device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_grouped_mm_matches_torch(layout, device):
    sa, sb, offs = LAYOUTS[layout]
    torch.manual_seed(0)
    a, b = torch.randn(sa), torch.randn(sb)
    o = None if offs is None else torch.tensor(offs, dtype=I32)
    want = torch.nn.functional.grouped_mm(a, b, offs=o)
    if "gap" in layout:  # PyTorch leaves rows no group covers unwritten; webtorch writes zeros
        want[5:] = 0
    got = webtorch.nn.functional.grouped_mm(_w(a, device), _w(b, device), offs=None if o is None else _w(o, device))
    assert got.dtype == webtorch.float32 and tuple(got.shape) == tuple(want.shape)
    assert torch.allclose(torch.tensor(got.tolist()), want, atol=1e-5)


def test_grouped_mm_gradients_are_those_of_the_products():
    torch.manual_seed(1)
    a, b = torch.randn(6, 8, requires_grad=True), torch.randn(2, 8, 4, requires_grad=True)
    torch.cat([a[:2] @ b[0], a[2:] @ b[1]]).pow(2).sum().backward()
    wa, wb = _w(a.detach()).requires_grad_(), _w(b.detach()).requires_grad_()
    webtorch.nn.functional.grouped_mm(wa, wb, offs=webtorch.tensor([2, 6], dtype=webtorch.int32)).pow(2).sum().backward()
    assert torch.allclose(torch.tensor(wa.grad.tolist()), a.grad, atol=1e-4)
    assert torch.allclose(torch.tensor(wb.grad.tolist()), b.grad, atol=1e-4)


@pytest.mark.parametrize("make", [
    lambda m: m.nn.functional.grouped_mm(m.randn(8), m.randn(2, 8, 4), offs=m.tensor([2, 6], dtype=m.int32)),
    lambda m: m.nn.functional.grouped_mm(m.randn(6, 8).double(), m.randn(2, 8, 4).double(),
                                         offs=m.tensor([2, 6], dtype=m.int32)),
    lambda m: m.nn.functional.grouped_mm(m.randn(6, 6), m.randn(2, 6, 4), offs=m.tensor([2, 6], dtype=m.int32)),
    lambda m: m.nn.functional.grouped_mm(m.randn(6, 8), m.randn(2, 4, 4), offs=m.tensor([2, 6], dtype=m.int32)),
    lambda m: m.nn.functional.grouped_mm(m.randn(6, 8), m.randn(2, 8, 4)),
    lambda m: m.nn.functional.grouped_mm(m.randn(2, 4, 8), m.randn(2, 8, 4), offs=m.tensor([2, 6], dtype=m.int32)),
    lambda m: m.nn.functional.grouped_mm(m.randn(6, 8), m.randn(2, 8, 4), offs=m.tensor([2, 6])),
    lambda m: m.nn.functional.grouped_mm(m.randn(6, 8), m.randn(2, 8, 4), offs=m.tensor([2, 4, 6], dtype=m.int32)),
    lambda m: m.nn.functional.grouped_mm(m.randn(6, 8), m.randn(2, 8, 4), offs=m.tensor([2, 6], dtype=m.int32),
                                         bias=m.randn(2, 4)),
    lambda m: m.nn.functional.grouped_mm(m.randn(6, 8), m.randn(2, 8, 4), offs=m.tensor([2, 6], dtype=m.int32),
                                         out_dtype=m.float16),
])
def test_grouped_mm_refuses_as_torch(make):
    with pytest.raises(RuntimeError) as theirs:
        make(torch)
    with pytest.raises(RuntimeError, match=f"^{theirs.value}$"):
        make(webtorch)


def test_offsets_past_the_end_are_refused():
    with pytest.raises(RuntimeError, match=r"offs\[1\] = 9 is outside the grouped dimension's 0..6"):
        webtorch.nn.functional.grouped_mm(webtorch.randn(6, 8), webtorch.randn(2, 8, 4),
                                          offs=webtorch.tensor([2, 9], dtype=webtorch.int32))
