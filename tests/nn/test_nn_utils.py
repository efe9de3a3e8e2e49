"""nn.utils against PyTorch: parameters_to_vector / vector_to_parameters, gradient clipping."""
import math

import numpy as np
import pytest
import torch

import webtorch
from layercheck import load_torch_state


def _models():
    def make(m):
        return m.nn.Sequential(m.nn.Linear(3, 4), m.nn.ReLU(), m.nn.Linear(4, 2))
    torch.manual_seed(0)  # the same weights whatever ran before (the check below is order-independent)
    t = make(torch)
    w = make(webtorch)
    load_torch_state(w, t)
    return t, w


def _with_grads(scale=1.0):
    t, w = _models()
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    (t(torch.tensor(x)) * scale).pow(2).sum().backward()
    (w(webtorch.tensor(x)) * scale).pow(2).sum().backward()
    return t, w


def test_parameters_to_vector_roundtrip():
    t, w = _models()
    tv = torch.nn.utils.parameters_to_vector(t.parameters())
    wv = webtorch.nn.utils.parameters_to_vector(w.parameters())
    np.testing.assert_array_equal(wv.detach().numpy(), tv.detach().numpy())
    assert wv.requires_grad
    new = webtorch.arange(float(wv.numel()))
    webtorch.nn.utils.vector_to_parameters(new, w.parameters())
    np.testing.assert_array_equal(webtorch.nn.utils.parameters_to_vector(w.parameters()).detach().numpy(),
                                  new.numpy())
    assert isinstance(w[0].weight, webtorch.nn.Parameter) and tuple(w[0].weight.shape) == (4, 3)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        webtorch.nn.utils.vector_to_parameters([1, 2], w.parameters())


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, "inf"])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_matches_torch(norm_type, foreach):
    t, w = _with_grads(scale=3.0)
    tn = torch.nn.utils.clip_grad_norm_(t.parameters(), 0.5, norm_type=norm_type, foreach=foreach)
    wn = webtorch.nn.utils.clip_grad_norm_(w.parameters(), 0.5, norm_type=norm_type, foreach=foreach)
    assert isinstance(wn, webtorch.Tensor) and wn.dim() == 0
    np.testing.assert_allclose(wn.item(), tn.item(), rtol=1e-5)
    for pw, pt in zip(w.parameters(), t.parameters()):
        np.testing.assert_allclose(pw.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_no_change_below_max():
    t, w = _with_grads()
    before = [p.grad.numpy().copy() for p in w.parameters()]
    total = webtorch.nn.utils.clip_grad_norm_(w.parameters(), 1e6)
    assert total.item() > 0
    for b, p in zip(before, w.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), b, rtol=1e-6)


def test_clip_grad_norm_single_tensor_and_nonfinite():
    p = webtorch.nn.Parameter(webtorch.ones(3))
    p.grad = webtorch.tensor([3.0, 4.0, 0.0])
    assert webtorch.nn.utils.clip_grad_norm_(p, 1.0).item() == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8, 0.0], rtol=1e-5)
    p.grad = webtorch.tensor([float("inf"), 1.0, 0.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite"):
        webtorch.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    assert webtorch.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="empty generator"):
        webtorch.nn.utils.clip_grad_norm_((q for q in []), 1.0)


def test_clip_grad_value():
    t, w = _with_grads(scale=3.0)
    torch.nn.utils.clip_grad_value_(t.parameters(), 0.7)
    webtorch.nn.utils.clip_grad_value_(w.parameters(), 0.7)
    for pw, pt in zip(w.parameters(), t.parameters()):
        # float32 sums in another order: one ulp-level difference on a small gradient is 1e-5 relative
        np.testing.assert_allclose(pw.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-7)
        assert np.abs(pw.grad.numpy()).max() <= 0.7


def test_get_total_norm_and_clip_with_norm():
    t, w = _with_grads(scale=2.0)
    tn = torch.nn.utils.get_total_norm([p.grad for p in t.parameters()], 2.0)
    wn = webtorch.nn.utils.get_total_norm([p.grad for p in w.parameters()], 2.0)
    np.testing.assert_allclose(wn.item(), tn.item(), rtol=1e-5)
    torch.nn.utils.clip_grads_with_norm_(t.parameters(), 0.1, tn)
    webtorch.nn.utils.clip_grads_with_norm_(w.parameters(), 0.1, wn)
    for pw, pt in zip(w.parameters(), t.parameters()):
        np.testing.assert_allclose(pw.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-8)
