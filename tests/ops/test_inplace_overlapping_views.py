"""In-place ops on views whose elements share memory (unfold windows, as_strided with small strides) give
PyTorch's result: its loops compute element after element in C order, each reading memory as the earlier ones
left it, so ``t.unfold(0, 2, 1).add_(1)`` adds 1 twice to every shared element. Expanded (stride-0) views are
refused with PyTorch's error instead. Gradients through such a write are PyTorch's too (one CopySlices: the op's
self gradient copied into the view's region, a result it saved read from the written view), as are its refusals."""
import pytest
import torch

import webtorch

CASES = {
    "add_": lambda m, v: v.add_(1),
    "mul_": lambda m, v: v.mul_(2),
    "sub_tensor": lambda m, v: v.sub_(m.ones(4, 2, dtype=v.dtype, device=v.device)),
    "addcmul_self": lambda m, v: v.addcmul_(v, v),
    "mul_self": lambda m, v: v.mul_(v),
    "div_": lambda m, v: v.div_(2),
    "pow_": lambda m, v: v.pow_(2),
    "lerp_": lambda m, v: v.lerp_(m.zeros(4, 2, device=v.device), 0.5),
    "exp_": lambda m, v: v.exp_(),
    "elu_": lambda m, v: m.nn.functional.elu_(v.sub_(3)),
    "relu_": lambda m, v: v.sub_(2).relu_(),
    "clamp_": lambda m, v: v.clamp_(1, 3),
    "copy_": lambda m, v: v.copy_(m.arange(8.0, device=v.device).reshape(4, 2)),
    "masked_fill_": lambda m, v: v.masked_fill_(v > 2, 0.0),
    "cumsum_": lambda m, v: v.cumsum_(1),
    "index_put_accumulate": lambda m, v: v.index_put_((m.tensor([0, 1], device=v.device),),
                                                      m.tensor(1.0, device=v.device), accumulate=True),
}


def _run(m, case, device, view):
    t = m.arange(5.0, device=device) if m is webtorch else m.arange(5.0)
    v = t.unfold(0, 2, 1) if view == "unfold" else t.as_strided((4, 2), (1, 1))
    CASES[case](m, v)
    return t.tolist()


@pytest.mark.parametrize("view", ["unfold", "as_strided"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_inplace_on_self_overlapping_view_as_pytorch(case, view, device):
    want = _run(torch, case, "cpu", view)
    got = _run(webtorch, case, device, view)
    assert got == pytest.approx(want, rel=1e-5), (case, view)  # exp_ of exp_: float32 rounding grows


def test_windows_wider_than_one_vector_and_nested_overlap(device):
    t, w = torch.arange(40.0), webtorch.arange(40.0, device=device)
    t.unfold(0, 20, 1).add_(1), w.unfold(0, 20, 1).add_(1)
    assert w.tolist() == t.tolist()
    t, w = torch.arange(30.0), webtorch.arange(30.0, device=device)  # overlap in two dims
    t.as_strided((3, 4, 5), (2, 3, 1)).mul_(1.5), w.as_strided((3, 4, 5), (2, 3, 1)).mul_(1.5)
    assert w.tolist() == pytest.approx(t.tolist(), rel=1e-6)


def test_a_view_that_does_not_overlap_takes_one_write(device):
    t = webtorch.arange(12.0, device=device)
    v = t.as_strided((2, 3), (4, 3))  # addresses 0,3,6,4,7,10: distinct, though not dense
    v.add_(1)
    want = torch.arange(12.0)
    want.as_strided((2, 3), (4, 3)).add_(1)
    assert t.tolist() == want.tolist()


def test_expanded_views_are_refused_as_pytorch(device):
    for m in (torch, webtorch):
        x = (m.zeros(3, device=device) if m is webtorch else m.zeros(3)).expand(2, 3)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single "
                                               "memory location"):
            x.add_(1)


def test_forward_values_under_autograd(device):
    x = webtorch.arange(5.0, device=device, requires_grad=True)
    y = x * 1
    y.as_strided((3, 3), (1, 1)).add_(1)
    assert y.tolist() == [1.0, 3.0, 5.0, 5.0, 5.0]
    (y ** 2).sum().backward()
    assert x.grad.tolist() == [2.0, 6.0, 10.0, 10.0, 10.0]  # PyTorch 2.13's gradient for this program


def _grads(m, case, device, view):
    """The gradient of a loss of the base after an in-place op through an overlapping view of it: PyTorch's
    CopySlices copies the op's self gradient into the view's region (a shared element keeps one window's, the
    last one's in C order), it does not sum the windows' gradients."""
    kw = {"device": device} if m is webtorch else {}
    a = m.linspace(-2.0, 3.0, 5, requires_grad=True, **kw)
    t = a * 1
    v = t.unfold(0, 2, 1) if view == "unfold" else t.as_strided((4, 2), (1, 1))
    CASES[case](m, v)
    (t * m.tensor([1.0, -2.0, 3.0, 0.5, 2.0], **kw)).sum().backward()
    return a.grad.tolist()


# the op saves the view as an operand, and writes it: PyTorch's backward refuses the changed saved tensor
_SAVED_VIEW_WRITTEN = {"addcmul_self", "mul_self"}
GRAD_CASES = sorted(CASES)


@pytest.mark.parametrize("view", ["unfold", "as_strided"])
@pytest.mark.parametrize("case", GRAD_CASES)
def test_gradient_through_inplace_on_self_overlapping_view_as_pytorch(case, view, device):
    if case in _SAVED_VIEW_WRITTEN:
        for m, dev in ((torch, "cpu"), (webtorch, device)):
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                _grads(m, case, dev, view)
        return
    want = _grads(torch, case, "cpu", view)
    assert _grads(webtorch, case, device, view) == pytest.approx(want, rel=1e-5, abs=1e-6), (case, view)
