"""Sparse COO tensors against PyTorch 2.13 on every device: construction, coalesce, to_dense / to_sparse, the
arithmetic gradients and optimizers use, torch.sparse.sum/mm, and clear refusals of everything else."""
import numpy as np
import pytest
import torch

import webtorch
from optest import check_same_error

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

# (indices, values, size): repeats and an unsorted order; a dense dim; two sparse dims; no entries
CASES = {
    "repeats": ([[4, 1, 1, 9, 4]], [[1., 2.], [3., 4.], [5., 6.], [7., 8.], [9., 10.]], (10, 2)),
    "scalar_values": ([[3, 0, 3]], [1.5, -2., 4.], (5,)),
    "two_sparse_dims": ([[1, 0, 1, 2], [2, 1, 2, 0]], [[1.], [2.], [3.], [4.]], (3, 4, 1)),
    "empty": ([[]], np.zeros((0, 3), np.float32), (4, 3)),
}


def make(lib, case, device="cpu"):
    ind, val, size = CASES[case]
    kw = {"device": device} if lib is webtorch else {}
    return lib.sparse_coo_tensor(lib.tensor(ind, dtype=lib.int64, **kw), lib.tensor(np.asarray(val, np.float32), **kw),
                                 size)


def assert_same_sparse(ours, theirs, entries=True):
    """Layout, shape, dtype, coalesced flag, dense value, coalesced entries; with ``entries`` also the stored
    (uncoalesced) entries. An uncoalesced sum stores the entries of both operands, which PyTorch 2.13 sometimes
    merges in part (its own heuristics): the value, and the coalesced tensor, are what must agree."""
    assert ours.is_sparse and ours.layout is webtorch.sparse_coo
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    assert ours.is_coalesced() == theirs.is_coalesced()
    assert (ours.sparse_dim(), ours.dense_dim()) == (theirs.sparse_dim(), theirs.dense_dim())
    np.testing.assert_allclose(ours.to_dense().cpu().numpy(), theirs.to_dense().numpy(), rtol=1e-6, atol=1e-6)
    assert ours.coalesce()._indices().cpu().tolist() == theirs.coalesce()._indices().tolist()
    if entries:
        assert ours._nnz() == theirs._nnz()
        assert ours._indices().cpu().tolist() == theirs._indices().tolist()
        np.testing.assert_allclose(ours._values().cpu().numpy(), theirs._values().numpy(), rtol=1e-6)


@pytest.mark.parametrize("case", CASES)
def test_construction_and_coalesce(case, device):
    ours, theirs = make(webtorch, case, device), make(torch, case)
    assert ours.device.type == device
    assert_same_sparse(ours, theirs)
    assert_same_sparse(ours.coalesce(), theirs.coalesce())
    assert ours.coalesce().indices().cpu().tolist() == theirs.coalesce().indices().tolist()
    coalesced = ours.coalesce()
    assert coalesced.coalesce() is coalesced
    assert ours.to_dense().device.type == device


def test_size_inferred_and_integer_values():
    for lib in (torch, webtorch):
        s = lib.sparse_coo_tensor([[0, 2]], [1, 2])
        assert tuple(s.shape) == (3,) and str(s.dtype).endswith("int64")
    shapes = [tuple(lib.sparse_coo_tensor([[0, 2], [1, 0]], lib.ones(2, 3)).shape) for lib in (torch, webtorch)]
    assert shapes[0] == shapes[1] == (3, 2, 3)


def test_uncoalesced_indices_and_values_are_refused():
    check_same_error(lambda lib: make(lib, "repeats").indices())
    check_same_error(lambda lib: make(lib, "repeats").values())


@pytest.mark.parametrize("bad", [
    lambda lib: lib.sparse_coo_tensor([[0, 1]], [1., 2., 3.], (3,)),
    lambda lib: lib.sparse_coo_tensor([[0, 1]], [1., 2.], (3, 4)),
    lambda lib: lib.sparse_coo_tensor([[0, 1]], lib.ones(2, 2), (3, 3)),
], ids=["nnz_mismatch", "too_many_dims", "dense_shape"])
def test_construction_errors_as_pytorch(bad):
    check_same_error(bad)


@pytest.mark.parametrize("indices", [[[0, 5]], [[0, -1]]], ids=["past_size", "negative"])
def test_out_of_range_indices_raise_pytorch_invariant_error(indices):
    """PyTorch checks these only with check_invariants=True (else undefined behaviour); webtorch always does."""
    check_same_error(lambda lib: lib.sparse_coo_tensor(indices, [1., 2.], (3,), check_invariants=True)
                     if lib is torch else lib.sparse_coo_tensor(indices, [1., 2.], (3,)))


@pytest.mark.parametrize("sparse_dim", [None, 1])
def test_to_sparse(sparse_dim, device):
    a = np.array([[0., 1., 0.], [0., 0., 0.], [2., 0., 3.]], np.float32)
    args = () if sparse_dim is None else (sparse_dim,)
    assert_same_sparse(webtorch.tensor(a, device=device).to_sparse(*args), torch.tensor(a).to_sparse(*args))


@pytest.mark.parametrize("case", ["repeats", "two_sparse_dims"])
def test_sparse_mask_and_to_sparse_coo(case, device):
    shape = CASES[case][2]
    d = np.random.rand(*shape).astype(np.float32)
    ours = webtorch.tensor(d, device=device).sparse_mask(make(webtorch, case, device))
    assert_same_sparse(ours, torch.tensor(d).sparse_mask(make(torch, case)))
    assert_same_sparse(webtorch.tensor(d, device=device).to_sparse_coo(), torch.tensor(d).to_sparse_coo())
    check_same_error(lambda lib: lib.ones(3, 2).sparse_mask(make(lib, case)))


def test_to_sparse_of_a_scalar_and_bad_sparse_dims():
    assert repr(webtorch.tensor(3.).to_sparse()) == repr(torch.tensor(3.).to_sparse())
    check_same_error(lambda lib: lib.ones(2, 2).to_sparse(3))
    check_same_error(lambda lib: lib.ones(2, 2).to_sparse(0))


def test_sparse_plus_sparse(device):
    a, b = make(webtorch, "repeats", device), make(webtorch, "repeats", device) * 2
    ta, tb = make(torch, "repeats"), make(torch, "repeats") * 2
    assert_same_sparse(a + b, ta + tb, entries=False)
    assert_same_sparse(a.coalesce() + b.coalesce(), ta.coalesce() + tb.coalesce())  # merged, coalesced
    assert_same_sparse(a.sub(b, alpha=0.5), ta.sub(tb, alpha=0.5), entries=False)
    c = a.clone()
    c.add_(b, alpha=3)
    tc = ta.clone()
    tc.add_(tb, alpha=3)
    assert_same_sparse(c, tc, entries=False)
    assert a._nnz() == 5  # the clone was written, not a


def test_dense_and_sparse(device):
    d = np.arange(20, dtype=np.float32).reshape(10, 2)
    s, ts = make(webtorch, "repeats", device), make(torch, "repeats")
    x, tx = webtorch.tensor(d, device=device), torch.tensor(d)
    for ours, theirs in [(x + s, tx + ts), (webtorch.add(x, s, alpha=-2), torch.add(tx, ts, alpha=-2)),
                         (x - s, tx - ts)]:
        assert not ours.is_sparse
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-6)
    x.add_(s, alpha=0.5)
    tx.add_(ts, alpha=0.5)
    x += s
    tx += ts
    np.testing.assert_allclose(x.cpu().numpy(), tx.numpy(), rtol=1e-6)
    check_same_error(lambda lib: make(lib, "repeats") + lib.ones(10, 2))
    check_same_error(lambda lib: lib.ones(10, 3) + make(lib, "repeats"))
    check_same_error(lambda lib: lib.ones(10, 3).add_(make(lib, "repeats")))
    check_same_error(lambda lib: lib.ones(10, 2, dtype=lib.int64).add_(make(lib, "repeats")))
    x, tx = webtorch.ones(10, 2, device=device), torch.ones(10, 2)
    x.add_(s.to(webtorch.float64) if device == "cpu" else s, alpha=2)
    tx.add_(ts.double(), alpha=2)  # a float64 sparse tensor into a float32 one: cast, as PyTorch
    np.testing.assert_allclose(x.cpu().numpy(), tx.numpy(), rtol=1e-6)


def test_scaling_neg_zero_and_sum(device):
    s, ts = make(webtorch, "repeats", device), make(torch, "repeats")
    for ours, theirs in [(s * 2, ts * 2), (3 * s, 3 * ts), (s / 4, ts / 4), (-s, -ts),
                         (s.coalesce() * 2, ts.coalesce() * 2), (s * webtorch.tensor(2., device=device), ts * 2)]:
        assert_same_sparse(ours, theirs)
    np.testing.assert_allclose(s.sum().item(), ts.sum().item(), rtol=1e-6)
    np.testing.assert_allclose(webtorch.sparse.sum(s).item(), torch.sparse.sum(ts).item(), rtol=1e-6)
    z, tz = s.clone(), ts.clone()
    z.zero_()
    tz.zero_()
    assert_same_sparse(z, tz)
    assert s._nnz() == 5
    with pytest.raises(NotImplementedError, match="sparse_coo"):
        s * s


def test_sparse_mm_and_its_dense_gradient(device):
    ind, val = [[0, 2, 0, 1], [1, 0, 1, 2]], np.array([1., 2., 3., -1.], np.float32)
    m = np.random.rand(3, 4).astype(np.float32)
    outs = []
    for lib, kw in ((torch, {}), (webtorch, {"device": device})):
        s = lib.sparse_coo_tensor(lib.tensor(ind, **kw), lib.tensor(val, **kw), (3, 3))
        dense = lib.tensor(m, **kw).requires_grad_()
        out = lib.sparse.mm(s, dense)
        (out * lib.arange(12., **kw).reshape(3, 4)).sum().backward()
        outs.append((out.detach().cpu().numpy(), dense.grad.cpu().numpy()))
    for ours, theirs in zip(outs[1], outs[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_moves_clone_and_repr(device):
    s, ts = make(webtorch, "repeats"), make(torch, "repeats")
    assert repr(s) == repr(ts)
    assert repr(s.coalesce()) == repr(ts.coalesce())
    assert repr(make(webtorch, "empty")) == repr(make(torch, "empty"))
    moved = s.to(device)
    assert moved.device.type == device and moved._indices().device.type == device
    assert_same_sparse(moved.double().cpu() if device == "cpu" else moved.cpu(), ts.double() if device == "cpu" else ts)
    c = s.clone()
    c._values().mul_(0)
    assert s._values().abs().sum().item() > 0
    assert s.type() == ts.type() == "torch.sparse.FloatTensor"


@pytest.mark.parametrize("op", [lambda s: s.exp(), lambda s: s.view(-1), lambda s: webtorch.exp(s),
                                lambda s: s.numpy(), lambda s: s.max(), lambda s: s.T, lambda s: s[0]],
                         ids=["exp", "view", "torch.exp", "numpy", "max", "T", "getitem"])
def test_unsupported_ops_raise_naming_the_layout(op, device):
    """Never a dense computation on a sparse tensor's missing storage: a NotImplementedError (PyTorch's type for a
    sparse op it lacks) naming the layout and to_dense()."""
    with pytest.raises(NotImplementedError, match=r"layout=torch\.sparse_coo.*to_dense\(\)"):
        op(make(webtorch, "repeats", device))


@pytest.mark.parametrize("make", [lambda: webtorch.zeros(3, layout=webtorch.sparse_coo),
                                  lambda: webtorch.full((2,), 1.0, layout=webtorch.sparse_coo),
                                  lambda: webtorch.zeros_like(make(webtorch, "repeats")),
                                  lambda: webtorch.rand_like(make(webtorch, "repeats"))],
                         ids=["zeros", "full", "zeros_like_sparse", "rand_like_sparse"])
def test_factories_refuse_the_sparse_layout_rather_than_ignore_it(make):
    with pytest.raises(NotImplementedError, match="sparse_coo_tensor"):
        make()


def test_sparse_tensors_that_require_grad_are_refused():
    with pytest.raises(NotImplementedError, match="require grad"):
        webtorch.sparse_coo_tensor([[0]], [1.], (2,), requires_grad=True)
    with pytest.raises(NotImplementedError, match="require grad"):
        make(webtorch, "repeats").requires_grad_()
    assert not make(webtorch, "repeats").requires_grad_(False).requires_grad


def test_layouts():
    assert webtorch.ones(2).layout is webtorch.strided and repr(webtorch.strided) == "torch.strided"
    assert webtorch.zeros(2, layout=webtorch.strided).layout is webtorch.zeros_like(webtorch.ones(1)).layout
    assert repr(webtorch.sparse_coo) == "torch.sparse_coo" and not webtorch.ones(2).is_sparse
