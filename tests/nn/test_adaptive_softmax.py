"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch 2.13 with the same weights: outputs, loss, gradients,
log_prob, predict, state_dict keys and errors."""
import pytest
import torch

import webtorch


def _pair(device, **kw):
    torch.manual_seed(0)
    m = torch.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10], **kw)
    w = webtorch.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10], **kw).to(device)
    w.load_state_dict({k: webtorch.tensor(v.numpy(), device=device) for k, v in m.state_dict().items()})
    assert list(w.state_dict()) == list(m.state_dict())
    return m, w


def _close(got, want, tol=1e-5):
    assert torch.allclose(torch.tensor(got.tolist()), want, atol=tol, rtol=tol)


@pytest.mark.parametrize("batched", [True, False])
def test_output_loss_and_gradients(batched, device):
    m, w = _pair(device, div_value=2.0, head_bias=True)
    x = torch.randn(7, 16) if batched else torch.randn(16)
    t = torch.tensor([0, 3, 4, 9, 10, 19, 5]) if batched else torch.tensor(12)
    out, wout = m(x, t), w(webtorch.tensor(x.numpy(), device=device), webtorch.tensor(t.numpy(), device=device))
    out.loss.backward()
    wout.loss.backward()
    _close(wout.output, out.output.detach())
    assert wout.loss.item() == pytest.approx(out.loss.item(), rel=1e-5)
    for (name, p), wp in zip(m.named_parameters(), w.parameters()):
        if p.grad is None:  # a cluster no target falls in
            assert wp.grad is None, name
        else:
            _close(wp.grad, p.grad)


def test_log_prob_and_predict(device):
    m, w = _pair(device)
    x = torch.randn(9, 16) * 3
    wx = webtorch.tensor(x.numpy(), device=device)
    _close(w.log_prob(wx), m.log_prob(x).detach())
    assert w.predict(wx).tolist() == m.predict(x).tolist()


def test_errors_as_pytorch():
    with pytest.raises(ValueError, match="length larger than 0"):
        webtorch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])
    with pytest.raises(ValueError, match="unique, positive integers sorted"):
        webtorch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3])
    w = webtorch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\], but values in range \[0, 12\]"):
        w(webtorch.randn(2, 8), webtorch.tensor([0, 12]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        w(webtorch.randn(3, 8), webtorch.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        w(webtorch.randn(2, 8), webtorch.zeros(2, 2, dtype=webtorch.long))
