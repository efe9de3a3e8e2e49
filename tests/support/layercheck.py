"""Layer acceptance helper: build a layer in PyTorch and in webtorch, load PyTorch's weights into ours,
compare the state_dict layout, the outputs, and the gradients of every input and parameter.

    check_layer(lambda m: m.nn.Linear(4, 3), rand(2, 4), device=device)

``m`` is the library (torch or webtorch). NumPy float arguments become tensors that require grad.
"""
import numpy as np
import torch

import webtorch
from optest import assert_close, _make, _to_np, RNG


def load_torch_state(ours, theirs):
    """Copy a torch module's state_dict into ours through NumPy."""
    sd = {k: webtorch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    return ours.load_state_dict(sd)


def assert_same_layout(ours, theirs):
    w = [(k, tuple(v.shape), str(v.dtype)) for k, v in ours.state_dict().items()]
    t = [(k, tuple(v.shape), str(v.dtype)) for k, v in theirs.state_dict().items()]
    assert w == t, f"state_dict layout {w} != torch {t}"


def _outputs(out):
    if isinstance(out, (tuple, list)):
        return [o for x in out for o in _outputs(x)]
    return [out]


def check_layer(make, *args, device="cpu", train=True, atol=1e-5, rtol=1e-4, grad=True, call=None, steps=1):
    """Compare layer make(m) between the libraries; returns (ours, torch's) after the forward passes."""
    theirs = make(torch)
    ours = make(webtorch)
    assert_same_layout(ours, theirs)
    load_torch_state(ours, theirs)
    ours.to(device)
    theirs.train(train)
    ours.train(train)
    call = call or (lambda layer, *xs: layer(*xs))
    for step in range(steps):
        t_in = [_make(torch, a, None, grad) for a in args]
        w_in = [_make(webtorch, a, device, grad) for a in args]
        t_out = _outputs(call(theirs, *t_in))
        w_out = _outputs(call(ours, *w_in))
        assert len(t_out) == len(w_out)
        for i, (w, t) in enumerate(zip(w_out, t_out)):
            assert_close(w, t, atol, rtol, f"step {step} output {i}")
        for (k, wb), (_, tb) in zip(ours.named_buffers(), theirs.named_buffers()):
            assert_close(wb, tb, atol, rtol, f"step {step} buffer {k}")
        if not grad:
            continue
        t_terms, w_terms = [], []
        for w, t in zip(w_out, t_out):
            if t.requires_grad:
                weight = RNG.uniform(0.5, 1.5, size=tuple(t.shape))
                t_terms.append((t * torch.tensor(weight, dtype=t.dtype)).sum())
                w_terms.append((w * webtorch.tensor(weight, dtype=w.dtype, device=w.device)).sum())
        if not t_terms:
            continue
        sum(t_terms).backward()
        sum(w_terms).backward()
        for i, (w, t) in enumerate(zip(w_in, t_in)):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                assert_close(w.grad, t.grad, atol, rtol, f"grad of input {i}")
        for (k, wp), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
            if tp.grad is None:
                assert wp.grad is None or not np.any(_to_np(wp.grad)), f"{k}: torch has no grad"
                continue
            assert wp.grad is not None, f"grad of parameter {k} missing"
            assert_close(wp.grad, tp.grad, atol, rtol, f"grad of parameter {k}")
        ours.zero_grad()
        theirs.zero_grad()
    return ours, theirs


def check_default_init(make, tol=0.05):
    """Each parameter's default init matches PyTorch's distribution: mean, std, and bounds."""
    webtorch.manual_seed(0)
    torch.manual_seed(0)
    theirs = make(torch)
    ours = make(webtorch)
    for (k, wp), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        w = _to_np(wp).astype(np.float64).ravel()
        t = _to_np(tp).astype(np.float64).ravel()
        t_std = t.std()
        # tolerances of a few standard errors of the two sample estimates
        std_tol = max(tol, 4 / np.sqrt(2 * t.size))
        mean_tol = 5 * t_std / np.sqrt(t.size)
        assert abs(w.std() - t_std) <= std_tol * t_std + 1e-7, f"{k}: std {w.std()} vs torch {t_std}"
        assert abs(w.mean() - t.mean()) <= mean_tol + 1e-7, f"{k}: mean {w.mean()} vs {t.mean()}"
        if t_std == 0:
            np.testing.assert_array_equal(w, t, err_msg=k)
        else:
            # uniform inits: the same bound; normal inits: the same scale of extremes
            assert np.abs(w).max() <= 1.5 * np.abs(t).max(), f"{k}: max |w| {np.abs(w).max()} vs {np.abs(t).max()}"
            assert np.abs(w).max() >= 0.67 * np.abs(t).max(), f"{k}: max |w| {np.abs(w).max()} vs {np.abs(t).max()}"
