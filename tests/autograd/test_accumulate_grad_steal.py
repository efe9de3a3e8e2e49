"""AccumulateGrad keeps a gradient nothing else refers to (no copy), and copies every other one.

A Linear layer's weight gradient arrives through TBackward0 and its bias gradient through the engine's
broadcast reduction: both are views of new tensors, which ``.grad`` may keep as they are. A gradient a hook
saw, one the user passed in, or one shared by two leaves must be copied: ``.grad`` never aliases a tensor
the user can reach.
"""
import numpy as np
import pytest
import torch

import webtorch


def _clones(fn):
    """Calls of Tensor.clone made while fn runs (AccumulateGrad copies through clone)."""
    calls = []
    orig = webtorch.Tensor.clone

    def clone(self, *a, **k):
        calls.append(tuple(self.shape))
        return orig(self, *a, **k)
    webtorch.Tensor.clone = clone
    try:
        fn()
    finally:
        webtorch.Tensor.clone = orig
    return calls


def _mlp(m, device):
    m.manual_seed(0)
    model = m.nn.Sequential(m.nn.Linear(6, 5), m.nn.ReLU(), m.nn.Linear(5, 3)).to(device)
    x = m.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6), device=device)
    return model, x


def test_mlp_step_copies_no_gradient(device):
    model, x = _mlp(webtorch, device)
    assert _clones(lambda: model(x).square().mean().backward()) == []
    tm, tx = _mlp(torch, "cpu")
    tm.load_state_dict({k: torch.tensor(v.cpu().numpy()) for k, v in model.state_dict().items()})
    tm(tx).square().mean().backward()
    for p, q in zip(model.parameters(), tm.parameters()):
        assert p.grad._base is None and p.grad.is_contiguous() and p.grad.stride() == q.grad.stride()
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)
    # the second backward accumulates in place into the kept gradients
    model(x).square().mean().backward()
    for p, q in zip(model.parameters(), tm.parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), 2 * q.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_gradient_seen_by_a_hook_is_copied(device):
    w = webtorch.ones(3, 2, device=device, requires_grad=True)
    seen = []
    w.register_hook(seen.append)
    (w * 2).sum().backward()  # MulBackward0 makes a new contiguous gradient: only the hook shares it
    w.grad.add_(1)
    assert seen[0].tolist() == [[2.0, 2.0]] * 3


def test_gradient_passed_in_is_copied(device):
    w = webtorch.ones(3, 2, device=device, requires_grad=True)
    g = webtorch.full((6,), 5.0, device=device)
    w.view(6).backward(g)  # ViewBackward0 passes on a contiguous view of g
    w.grad.add_(1)
    assert g.tolist() == [5.0] * 6 and w.grad.tolist() == [[6.0, 6.0]] * 3


@pytest.mark.parametrize("build", ["add", "cat", "expand_same"])
def test_gradients_sharing_storage_are_not_aliased(device, build):
    a = webtorch.ones(2, 3, device=device, requires_grad=True)
    b = webtorch.ones(2, 3, device=device, requires_grad=True)
    if build == "add":  # AddBackward0 hands one gradient to both leaves
        ((a + b) * 3).sum().backward()
    elif build == "cat":  # CatBackward0 hands out slices of one gradient
        (webtorch.cat([a, b]) * 3).sum().backward()
    else:  # one leaf reached twice: the sum of both paths is new
        (a.t() * 2 + a.t()).sum().backward()
        a.grad.add_(1)
        assert a.grad.tolist() == [[4.0] * 3] * 2
        return
    a.grad.add_(1)
    assert b.grad.tolist() == [[3.0] * 3] * 2


def test_create_graph_gradient_is_a_copy(device):
    w = webtorch.ones(2, 2, device=device, requires_grad=True)
    (w.t() * w).sum().backward(create_graph=True)
    assert w.grad.grad_fn is not None and w.grad._base is None
    np.testing.assert_allclose(w.grad.detach().cpu().numpy(), 2 * np.ones((2, 2)))
