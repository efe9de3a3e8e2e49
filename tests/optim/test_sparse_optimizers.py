"""Optimizers on the sparse gradients of nn.Embedding(sparse=True), against PyTorch 2.13 on every device:
SparseAdam, and the sparse paths of SGD and Adagrad, several steps with repeated indices, padding_idx and max_norm;
PyTorch's errors for the layouts an optimizer refuses; SparseAdam's state_dict round trips."""
import numpy as np
import pytest
import torch

import webtorch
from optest import check_same_error

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

BATCHES = [[[1, 3, 1, 7], [7, 7, 2, 19]], [[0, 1, 1, 1], [5, 3, 3, 2]], [[19, 18, 7, 7], [1, 3, 5, 7]]]


def train(lib, device, w, make_opt, steps=6, emb_kw=None, opt_state=None):
    """Parameters (and the optimizer) after ``steps`` steps of a weighted-sum loss on BATCHES, from weight w."""
    emb = lib.nn.Embedding(w.shape[0], w.shape[1], sparse=True, **(emb_kw or {})).to(device)
    with lib.no_grad():
        emb.weight.copy_(lib.tensor(w, device=device))
    opt = make_opt(lib, emb.parameters())
    if opt_state is not None:
        opt.load_state_dict(opt_state)
    scale = lib.arange(1., w.shape[1] + 1, device=device)
    for s in range(steps):
        opt.zero_grad()
        out = emb(lib.tensor(BATCHES[s % len(BATCHES)], device=device))
        ((out * scale).sum() + (out * out).sum()).backward()
        opt.step()
    return emb.weight.detach().cpu().numpy(), opt


def compare(device, make_opt, emb_kw=None, steps=6):
    w = np.random.rand(20, 4).astype(np.float32) - 0.5
    ours, _ = train(webtorch, device, w, make_opt, steps, emb_kw)
    theirs, _ = train(torch, "cpu", w, make_opt, steps, emb_kw)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert np.abs(ours - w).max() > 1e-3  # the steps moved the looked-up rows


EMB = {"plain": {}, "padding_idx": {"padding_idx": 7}, "max_norm": {"max_norm": 0.6}}
SPARSE_ADAM = [dict(lr=1e-2), dict(lr=5e-2, betas=(0.8, 0.9), eps=1e-6), dict(lr=1e-2, maximize=True)]


@pytest.mark.parametrize("emb", EMB)
@pytest.mark.parametrize("kw", SPARSE_ADAM, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_sparse_adam(kw, emb, device):
    compare(device, lambda lib, params: lib.optim.SparseAdam(params, **kw), EMB[emb])


@pytest.mark.parametrize("kw", [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, nesterov=True),
                                dict(lr=0.1, momentum=0.9, dampening=0.3), dict(lr=0.1, maximize=True)],
                         ids=["plain", "momentum", "nesterov", "dampening", "maximize"])
def test_sgd_sparse(kw, device):
    compare(device, lambda lib, params: lib.optim.SGD(params, **kw), EMB["padding_idx"])


@pytest.mark.parametrize("kw", [dict(lr=0.1), dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5),
                                dict(lr=0.1, maximize=True, eps=1e-6)], ids=["plain", "lr_decay", "maximize"])
def test_adagrad_sparse(kw, device):
    compare(device, lambda lib, params: lib.optim.Adagrad(params, **kw), EMB["padding_idx"])


def test_lbfgs_reads_a_sparse_gradient_as_dense(device):
    w = np.random.rand(20, 4).astype(np.float32) - 0.5
    results = []
    for lib, dev in ((torch, "cpu"), (webtorch, device)):
        emb = lib.nn.Embedding(20, 4, sparse=True).to(dev)
        with lib.no_grad():
            emb.weight.copy_(lib.tensor(w, device=dev))
        opt = lib.optim.LBFGS(emb.parameters(), lr=0.5, max_iter=4)

        def closure():
            opt.zero_grad()
            out = emb(lib.tensor(BATCHES[0], device=dev))
            loss = (out * out).sum()
            loss.backward()
            return loss
        opt.step(closure)
        results.append(emb.weight.detach().cpu().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-4, atol=1e-6)


def _sparse_grad_param(lib):
    p = lib.nn.Parameter(lib.ones(6, 2))
    lib.nn.functional.embedding(lib.tensor([1, 4, 1]), p, sparse=True).sum().backward()
    return p


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta", "ASGD", "Rprop",
                                  "Adafactor"])
def test_dense_optimizers_refuse_sparse_gradients(name):
    check_same_error(lambda lib: getattr(lib.optim, name)([_sparse_grad_param(lib)], lr=0.01).step())


@pytest.mark.parametrize("make", [
    lambda lib, p: lib.optim.SGD([p], lr=0.1, weight_decay=0.1),
    lambda lib, p: lib.optim.Adagrad([p], lr=0.1, weight_decay=0.1),
    lambda lib, p: lib.optim.SGD([p], lr=0.1, fused=True),
], ids=["sgd_weight_decay", "adagrad_weight_decay", "sgd_fused"])
def test_sparse_gradient_option_errors(make):
    check_same_error(lambda lib: make(lib, _sparse_grad_param(lib)).step())


def test_sparse_adam_refuses_dense_gradients_and_bad_options():
    def dense_grad(lib):
        p = lib.nn.Parameter(lib.ones(3))
        p.sum().backward()
        lib.optim.SparseAdam([p]).step()
    check_same_error(dense_grad)
    for kw in (dict(lr=0.0), dict(eps=0.0), dict(betas=(1.0, 0.9)), dict(betas=(0.9, -0.1))):
        check_same_error(lambda lib: lib.optim.SparseAdam([lib.nn.Parameter(lib.ones(3))], **kw))


def test_gradient_clipping_of_sparse_gradients_is_refused_as_pytorch():
    """PyTorch 2.13 has no norm or clamp for sparse tensors: both clip functions raise NotImplementedError."""
    for clip in (lambda lib, p: lib.nn.utils.clip_grad_norm_([p], 1.0),
                 lambda lib, p: lib.nn.utils.clip_grad_value_([p], 1.0)):
        for lib in (torch, webtorch):
            with pytest.raises(NotImplementedError):
                clip(lib, _sparse_grad_param(lib))


def test_sparse_adam_state_dict_round_trips(device):
    """Three steps, save, three more in a fresh optimizer (ours and PyTorch's) = six uninterrupted steps."""
    w = np.random.rand(20, 4).astype(np.float32) - 0.5

    def make(lib, params):
        return lib.optim.SparseAdam(params, lr=2e-2)
    whole, _ = train(webtorch, device, w, make, 6)
    half, opt = train(webtorch, device, w, make, 3)
    sd = opt.state_dict()
    assert sd["state"][0]["step"] == 3 and sd["param_groups"][0]["lr"] == 2e-2
    _, t_opt = train(torch, "cpu", w, make, 3)
    t_sd = t_opt.state_dict()
    for n in ("exp_avg", "exp_avg_sq"):
        np.testing.assert_allclose(sd["state"][0][n].cpu().numpy(), t_sd["state"][0][n].numpy(), rtol=1e-5, atol=1e-7)
    as_torch = {"state": {k: {n: (torch.tensor(v.cpu().numpy()) if isinstance(v, webtorch.Tensor) else v)
                              for n, v in s.items()} for k, s in sd["state"].items()},
                "param_groups": sd["param_groups"]}
    resumed, _ = train(webtorch, device, half, make, 3, opt_state=sd)
    np.testing.assert_allclose(resumed, whole, rtol=1e-6, atol=1e-7)
    t_resumed, _ = train(torch, "cpu", half, make, 3, opt_state=as_torch)
    np.testing.assert_allclose(t_resumed, whole, rtol=1e-5, atol=1e-6)
