"""Embedding / EmbeddingBag with sparse=True against PyTorch 2.13 on every device: the weight gradient is a sparse
COO tensor with PyTorch's entries (one per looked-up index, padding_idx left out), accumulates as PyTorch's does
(sparse + sparse, sparse + dense), and refuses what PyTorch refuses."""
import numpy as np
import pytest
import torch

import webtorch
from optest import check_same_error

IDX = [[1, 3, 1, 7], [7, 7, 2, 19]]


def weights(n=20, dim=4):
    return np.random.rand(n, dim).astype(np.float32) - 0.5


def lookup(lib, w, device, idx=IDX, **kw):
    """The sparse weight gradient of a weighted sum of F.embedding(idx, w, sparse=True, **kw)."""
    dev = {"device": device} if lib is webtorch else {}
    weight = lib.tensor(w, **dev).requires_grad_()
    out = lib.nn.functional.embedding(lib.tensor(idx, **dev), weight, sparse=True, **kw)
    (out * lib.arange(float(out.shape[-1]), **dev)).sum().backward()
    return weight


def assert_same_grad(ours, theirs, entries=True):
    g, tg = ours.grad, theirs.grad
    assert g.is_sparse == tg.is_sparse
    if g.is_sparse:
        assert g.is_coalesced() == tg.is_coalesced()
        if entries:
            assert g._indices().cpu().tolist() == tg._indices().tolist()
            np.testing.assert_allclose(g._values().cpu().numpy(), tg._values().numpy(), rtol=1e-6)
        g, tg = g.to_dense(), tg.to_dense()
    np.testing.assert_allclose(g.cpu().numpy(), tg.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 7}, {"padding_idx": -1}, {"max_norm": 0.5}],
                         ids=["plain", "padding_idx", "padding_idx_neg", "max_norm"])
def test_functional_embedding_sparse_grad(kw, device):
    w = weights()
    ours, theirs = lookup(webtorch, w, device, **kw), lookup(torch, w, "cpu", **kw)
    assert ours.grad.layout is webtorch.sparse_coo and ours.grad.device.type == device
    assert_same_grad(ours, theirs)
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=1e-6)  # max_norm's renorm


def test_only_padding_gives_an_empty_gradient(device):
    w = weights()
    ours, theirs = (lookup(lib, w, dev, idx=[7, 7], padding_idx=7) for lib, dev in ((webtorch, device), (torch, "cpu")))
    assert ours.grad._nnz() == theirs.grad._nnz() == 0
    assert tuple(ours.grad._indices().shape) == tuple(theirs.grad._indices().shape) == (1, 0)


def test_module_and_repr(device):
    outs = []
    for lib, dev in ((torch, "cpu"), (webtorch, device)):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(20, 4, padding_idx=3, sparse=True).to(dev)
        emb(lib.tensor(IDX, device=dev)).sum().backward()
        outs.append((repr(emb), emb.weight.grad.coalesce()._indices().cpu().tolist()))
    assert outs[0] == outs[1]


def test_accumulation_sparse_then_sparse(device):
    """Two backward calls: the stored gradient holds both calls' entries (uncoalesced), summing as PyTorch's."""
    w = weights()
    grads = []
    for lib, dev in ((torch, "cpu"), (webtorch, device)):
        d = {"device": dev}
        weight = lib.tensor(w, **d).requires_grad_()
        for idx in (IDX, [1, 3]):
            lib.nn.functional.embedding(lib.tensor(idx, **d), weight, sparse=True).sum().backward()
        grads.append(weight)
    assert grads[1].grad._nnz() == 10
    assert_same_grad(grads[1], grads[0], entries=False)


@pytest.mark.parametrize("order", ["sparse_first", "dense_first", "one_backward"])
def test_accumulation_with_a_dense_gradient(order, device):
    """A sparse and a dense gradient of one parameter add up to a dense .grad, in either order and when they meet
    inside one backward."""
    w = weights()
    grads = []
    for lib, dev in ((torch, "cpu"), (webtorch, device)):
        d = {"device": dev}
        weight = lib.tensor(w, **d).requires_grad_()

        def sparse_loss():
            return lib.nn.functional.embedding(lib.tensor(IDX, **d), weight, sparse=True).sum()

        def dense_loss():
            return (weight * weight).sum()
        if order == "one_backward":
            (sparse_loss() + dense_loss()).backward()
        else:
            first, second = (sparse_loss, dense_loss) if order == "sparse_first" else (dense_loss, sparse_loss)
            first().backward()
            second().backward()
        grads.append(weight)
    assert not grads[1].grad.is_sparse
    assert_same_grad(grads[1], grads[0])


def test_zero_grad_keeps_an_empty_sparse_gradient(device):
    w = weights()
    ours, theirs = lookup(webtorch, w, device), lookup(torch, w, "cpu")
    for lib, p in ((webtorch, ours), (torch, theirs)):
        opt = lib.optim.SGD([p], lr=0.1)
        opt.zero_grad(set_to_none=False)
    assert ours.grad.is_sparse and ours.grad._nnz() == theirs.grad._nnz() == 0
    assert_same_grad(ours, theirs)


@pytest.mark.parametrize("mode,kw", [("sum", {}), ("mean", {}), ("sum", {"per_sample_weights": True}),
                                     ("mean", {"padding_idx": 2})],
                         ids=["sum", "mean", "per_sample_weights", "mean_padding_idx"])
def test_embedding_bag_sparse_grad(mode, kw, device):
    w = weights()
    flat, offsets = [1, 2, 1, 4, 7, 2, 9], [0, 3, 3, 5]
    psw = np.random.rand(len(flat)).astype(np.float32)
    params = []
    for lib, dev in ((torch, "cpu"), (webtorch, device)):
        d = {"device": dev}
        bag = lib.nn.EmbeddingBag(20, 4, mode=mode, sparse=True, padding_idx=kw.get("padding_idx")).to(dev)
        with lib.no_grad():
            bag.weight.copy_(lib.tensor(w, **d))
        extra = {"per_sample_weights": lib.tensor(psw, **d)} if "per_sample_weights" in kw else {}
        out = bag(lib.tensor(flat, **d), lib.tensor(offsets, **d), **extra)
        (out * lib.arange(4., **d)).sum().backward()
        params.append(bag.weight)
    assert_same_grad(params[1], params[0])


def test_errors_as_pytorch():
    check_same_error(lambda lib: lib.nn.functional.embedding(
        lib.tensor([1, 2]), lib.ones(5, 2, requires_grad=True), sparse=True, scale_grad_by_freq=True).sum().backward())
    check_same_error(lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([[1, 2]]), lib.ones(5, 2, requires_grad=True), mode="max", sparse=True))


def test_double_backward_is_refused_clearly():
    w = webtorch.ones(5, 2, requires_grad=True)
    loss = webtorch.nn.functional.embedding(webtorch.tensor([1, 2]), w, sparse=True).pow(2).sum()
    with pytest.raises(NotImplementedError, match="sparse=False"):
        webtorch.autograd.grad(loss, w, create_graph=True)


def test_module_moves_copies_and_hooks_keep_the_sparse_gradient(device):
    import copy
    emb = webtorch.nn.Embedding(10, 3, sparse=True)
    emb(webtorch.tensor([1, 2, 1])).sum().backward()
    grad = emb.weight.grad
    twin = copy.deepcopy(emb)
    assert twin.weight.grad.is_sparse and twin.weight.grad is not grad
    emb.to(device)
    assert emb.weight.grad is grad and grad.device.type == device and grad._values().device.type == device
    emb.weight.register_hook(lambda g: g * 2)
    emb(webtorch.tensor([3, 1], device=device)).sum().backward()
    np.testing.assert_allclose(emb.weight.grad.to_dense().cpu().numpy()[[1, 2, 3]], [[4.] * 3, [1.] * 3, [2.] * 3])
    with pytest.raises(RuntimeError, match="sparse COO"):
        emb.weight.grad.data = webtorch.zeros(10, 3)
