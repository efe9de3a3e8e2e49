"""Every view op's geometry against PyTorch on every device: shape, strides, storage offset, values, and whether
the result is a view of the source (same storage) -- _geometry.py decides them for all devices. Also: the
reshape-as-view rule on awkward strides, and that a Tensor's geometry never goes stale when its handle is
replaced (resize_, .data =, load_state_dict)."""
import itertools

import numpy as np
import pytest
import torch

import webtorch
from webtorch import _geometry as G


def _source(m, device, shape, make):
    """arange(numel) of shape (float32), then ``make`` (a view op giving a non-contiguous source, or None)."""
    n = int(np.prod(shape))
    kw = {"device": device} if m is webtorch else {}
    x = m.arange(n, dtype=m.float32, **kw).reshape(shape)
    return make(x) if make else x


def _storage(t):
    return t.untyped_storage().data_ptr()


# (name, source shape, source maker, op): the op runs on both libraries' sources
CASES = [
    ("view flat", (3, 4), None, lambda x: x.view(-1)),
    ("view split dim", (6, 4), None, lambda x: x.view(2, 3, 4)),
    ("view size-1 dims", (3, 4), None, lambda x: x.view(1, 3, 1, 4, 1)),
    ("view drop size-1", (1, 3, 1, 4), None, lambda x: x.view(12)),
    ("view zero-size", (0, 4), None, lambda x: x.view(2, 0, 2)),
    ("view zero-size to -1", (3, 0), None, lambda x: x.view(0, 5)),
    ("view of transpose keeps dims", (4, 6), lambda x: x.t(), lambda x: x.view(6, 2, 2)),
    ("view of stepped slice", (4, 8), lambda x: x[:, ::2], lambda x: x.view(2, 2, 4)),
    ("view of expanded", (1, 4), lambda x: x.expand(3, 4), lambda x: x.view(3, 2, 2)),
    ("view of expanded merge", (3, 1), lambda x: x.expand(3, 5), lambda x: x.view(3, 5, 1)),
    ("view of offset row", (5, 4), lambda x: x[2:], lambda x: x.view(-1)),
    ("view of size-1 with odd stride", (12,), lambda x: x.as_strided((4, 1), (1, 7)), lambda x: x.view(2, 2, 1)),
    ("reshape view", (2, 3, 4), None, lambda x: x.reshape(6, 4)),
    ("reshape must copy", (4, 6), lambda x: x.t(), lambda x: x.reshape(-1)),
    ("reshape stepped slice copies", (4, 8), lambda x: x[:, ::2], lambda x: x.reshape(16)),
    ("reshape expanded copies", (1, 4), lambda x: x.expand(3, 4), lambda x: x.reshape(12)),
    ("flatten middle", (2, 3, 4, 5), None, lambda x: x.flatten(1, 2)),
    ("unflatten", (2, 12), None, lambda x: x.unflatten(1, (3, 4))),
    ("t", (3, 5), None, lambda x: x.t()),
    ("t of 1-d", (5,), None, lambda x: x.t()),
    ("transpose", (2, 3, 4), None, lambda x: x.transpose(0, 2)),
    ("permute", (2, 3, 4, 5), None, lambda x: x.permute(2, 0, 3, 1)),
    ("movedim", (2, 3, 4), None, lambda x: x.movedim(0, -1)),
    ("mT", (2, 3, 4), None, lambda x: x.mT),
    ("expand new dims", (3, 1), None, lambda x: x.expand(2, 3, 4)),
    ("expand -1", (1, 4), lambda x: x[:, 1:], lambda x: x.expand(5, -1)),
    ("broadcast_to", (4,), None, lambda x: x.broadcast_to((2, 3, 4))),
    ("slice past the end", (6, 7), None, lambda x: x[6:, 1:]),
    ("squeeze all", (1, 3, 1, 4, 1), None, lambda x: x.squeeze()),
    ("squeeze dim", (1, 3, 1, 4), None, lambda x: x.squeeze(2)),
    ("squeeze dims", (1, 3, 1, 4), None, lambda x: x.squeeze((0, 1))),
    ("squeeze of transposed", (3, 1, 4), lambda x: x.permute(2, 1, 0), lambda x: x.squeeze(1)),
    ("unsqueeze front", (3, 4), None, lambda x: x.unsqueeze(0)),
    ("unsqueeze middle", (3, 4), None, lambda x: x.unsqueeze(1)),
    ("unsqueeze end", (3, 4), None, lambda x: x.unsqueeze(-1)),
    ("unsqueeze of transposed", (3, 4), lambda x: x.t(), lambda x: x.unsqueeze(1)),
    ("unsqueeze of 0-d", (), None, lambda x: x.unsqueeze(0)),
    ("slice steps", (6, 7), None, lambda x: x[1:5:2, ::3]),
    ("slice empty", (6, 7), None, lambda x: x[4:2, 1:]),
    ("slice new axis", (3, 4), None, lambda x: x[:, None, 1]),
    ("slice ellipsis", (2, 3, 4), None, lambda x: x[..., 1:3]),
    ("select negative", (3, 4), None, lambda x: x[-1]),
    ("select dim", (3, 4, 5), None, lambda x: x.select(2, 3)),
    ("narrow", (3, 8), None, lambda x: x.narrow(1, 2, 4)),
    ("narrow of transposed", (8, 3), lambda x: x.t(), lambda x: x.narrow(1, 2, 4)),
    ("diagonal", (4, 5), None, lambda x: x.diagonal()),
    ("diagonal offset", (4, 5), None, lambda x: x.diagonal(2)),
    ("diagonal negative", (4, 5), None, lambda x: x.diagonal(-2)),
    ("diagonal past the end", (4, 5), None, lambda x: x.diagonal(7)),
    ("diagonal dims", (2, 3, 4), None, lambda x: x.diagonal(0, 2, 0)),
    ("unfold", (10,), None, lambda x: x.unfold(0, 3, 2)),
    ("unfold 2-d", (4, 9), lambda x: x[:, 1:], lambda x: x.unfold(1, 4, 3)),
    ("unfold 0-d", (), None, lambda x: x.unfold(0, 1, 1)),
    ("as_strided", (12,), None, lambda x: x.as_strided((3, 3), (2, 1), 1)),
    ("as_strided overlapping", (12,), None, lambda x: x.as_strided((4, 3), (1, 1))),
    ("split", (7, 3), None, lambda x: x.split(3)[2]),
    ("chunk of transposed", (6, 4), lambda x: x.t(), lambda x: x.chunk(2, 1)[1]),
    ("unbind", (3, 4), None, lambda x: x.unbind(1)[2]),
    ("slice of a transposed select", (2, 3, 4), lambda x: x[1], lambda x: x.t()[1:, ::2]),
]


@pytest.mark.parametrize("name,shape,make,op", CASES, ids=[c[0] for c in CASES])
def test_view_geometry_matches_torch(device, name, shape, make, op):
    tx = _source(torch, device, shape, make)
    wx = _source(webtorch, device, shape, make)
    assert (tuple(wx.shape), wx.stride(), wx.storage_offset()) == (tuple(tx.shape), tx.stride(), tx.storage_offset())
    tr, wr = op(tx), op(wx)
    assert tuple(wr.shape) == tuple(tr.shape)
    assert wr.dim() == tr.dim() and wr.numel() == tr.numel()
    assert wr.is_contiguous() == tr.is_contiguous()
    t_view = _storage(tr) == _storage(tx)
    assert (_storage(wr) == _storage(wx)) == t_view, "is a view in one library only"
    if t_view:  # a copy's strides are its own business; a view's must be PyTorch's
        assert wr.stride() == tr.stride()
        assert wr.storage_offset() == tr.storage_offset()
    np.testing.assert_array_equal(wr.cpu().numpy(), tr.numpy())


def _writable_view(case):
    """A view of its source whose elements sit at distinct addresses (PyTorch leaves the order of writes into
    an overlapping or expanded view undefined)."""
    _, shape, make, op = case
    x = _source(torch, "cpu", shape, make)
    r = op(x)
    return _storage(r) == _storage(x) and len(set(_addresses(r))) == r.numel()


def _addresses(t):
    return [t.storage_offset() + sum(i * s for i, s in zip(idx, t.stride()))
            for idx in itertools.product(*(range(n) for n in t.shape))]


WRITABLE = [c for c in CASES if _writable_view(c)]


@pytest.mark.parametrize("name,shape,make,op", WRITABLE, ids=[c[0] for c in WRITABLE])
def test_writes_through_views_reach_the_source(device, name, shape, make, op):
    """What a view writes lands where PyTorch's lands (the geometry addresses the same storage elements)."""
    tx = _source(torch, device, shape, make)
    wx = _source(webtorch, device, shape, make)
    tr, wr = op(tx), op(wx)
    tr.copy_(torch.arange(tr.numel(), dtype=torch.float32).reshape(tr.shape) + 100)
    wr.copy_(webtorch.arange(wr.numel(), dtype=webtorch.float32, device=device).reshape(tuple(wr.shape)) + 100)
    np.testing.assert_array_equal(wx.cpu().numpy(), tx.numpy())


@pytest.mark.parametrize("make,new", [
    (lambda x: x.t(), (-1,)),
    (lambda x: x[:, 1:5], (16,)),
    (lambda x: x.expand(3, 4, 8)[:, 0], (-1,)),
    (lambda x: x.permute(1, 0)[1:], (4, 7)),
])
def test_view_that_needs_a_copy_raises_as_torch(device, make, new):
    tx, wx = make(torch.zeros(4, 8)), make(webtorch.zeros(4, 8, device=device))
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        tx.view(new)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        wx.view(new)


def test_view_strides_rule_matches_torch_exhaustively():
    """_geometry.view_strides (the reshape-as-view rule) against torch.view over small sizes and strides,
    size-1 dims with odd strides and zero strides included."""
    storage = torch.zeros(64)
    shapes = [(2, 3), (1, 6), (6, 1), (2, 1, 3), (3, 2), (2, 2), (4, 1), (1, 1, 4)]
    stride_sets = [(1, 2, 3, 6), (0, 1, 4, 7)]
    checked = 0
    for shape in shapes:
        n = int(np.prod(shape))
        for strides in itertools.product(*[stride_sets[0] if i % 2 else stride_sets[1] for i in range(len(shape))]):
            src = storage.as_strided(shape, strides)
            for new in [(n,), (1, n), (n, 1), (2, n // 2) if n % 2 == 0 else (n,), (1, 1, n), shape[::-1]]:
                if int(np.prod(new)) != n:
                    continue
                mine = G.view_strides(shape, strides, new)
                try:
                    theirs = src.view(new).stride()
                except RuntimeError:
                    theirs = None
                assert mine == theirs, (shape, strides, new)
                checked += 1
    assert checked > 200


def test_size_and_stride_wrap_a_dim_as_every_op_does(device):
    """size(dim)/stride(dim) wrap dim with the ops' norm_dim (_geometry.py): NumPy ints answer, a negative dim
    counts from the end, a float or an out-of-range dim raises PyTorch's exception type naming the problem."""
    ours, theirs = webtorch.zeros(2, 3, 4, device=device), torch.zeros(2, 3, 4)
    for d in (0, -1, np.int64(1), np.int32(-2)):
        assert (ours.size(d), ours.stride(d)) == (theirs.size(d), theirs.stride(d))
    for method in ("size", "stride"):
        with pytest.raises(TypeError, match="must be int, not float"):
            getattr(ours, method)(1.0)
        with pytest.raises(IndexError, match=r"expected to be in range of \[-3, 2\], but got 3"):
            getattr(ours, method)(3)


def test_contiguous_strides_and_is_contiguous_match_torch():
    for shape in [(), (0,), (2, 0, 3), (1, 1), (2, 1, 3), (4, 5, 6)]:
        assert G.contiguous_strides(shape) == torch.empty(shape).stride()
        assert G.numel(shape) == torch.empty(shape).numel()
    for shape, strides in [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 1, 3), (3, 99, 1)), ((0, 3), (7, 5)),
                           ((3, 0), (1, 1)), ((1,), (5,)), ((2, 2), (2, 0))]:
        t = torch.empty(0).as_strided(shape, strides) if 0 in shape else torch.zeros(32).as_strided(shape, strides)
        assert G.is_contiguous(shape, strides) == t.is_contiguous(), (shape, strides)


def test_geometry_follows_the_handle(device):
    """Whatever replaces a Tensor's handle replaces its geometry: a stale shape would be a silent wrong number."""
    x = webtorch.zeros(2, 3, device=device)
    assert x.shape == (2, 3)
    x.resize_(4, 5)
    assert (tuple(x.shape), x.stride(), x.storage_offset()) == ((4, 5), (5, 1), 0)
    assert len(x.tolist()) == 4
    v = webtorch.zeros(6, 4, device=device)[2:]
    v.resize_(2, 2)
    assert (tuple(v.shape), v.stride(), v.storage_offset()) == ((2, 2), (2, 1), 8)

    p = webtorch.zeros(3, device=device)
    p.data = webtorch.ones(2, 2, device=device).t()
    assert (tuple(p.shape), p.stride(), p.dim()) == ((2, 2), (1, 2), 2)
    assert p.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    d = p.detach()
    assert (tuple(d.shape), d.stride()) == ((2, 2), (1, 2))

    lin = webtorch.nn.Linear(3, 2).to(device)
    lin.weight.data = webtorch.arange(6.0, device=device).reshape(3, 2).t()
    lin.load_state_dict({"weight": webtorch.ones(2, 3), "bias": webtorch.zeros(2)})
    assert (tuple(lin.weight.shape), lin.weight.stride()) == ((2, 3), (1, 2))
    assert lin.weight.tolist() == [[1.0] * 3] * 2


def test_inplace_write_through_view_keeps_geometry(device):
    """In-place ops on a view (CopySlices) rewrite autograd history, never the view's or the base's geometry."""
    base = webtorch.arange(12.0, device=device).reshape(3, 4).requires_grad_()
    b = base * 1
    v = b.t()[1:]
    v.mul_(2)
    assert (tuple(v.shape), v.stride(), v.storage_offset()) == ((3, 3), (1, 4), 1)
    assert (tuple(b.shape), b.stride()) == ((3, 4), (4, 1))
    b.sum().backward()
    tb = torch.arange(12.0).reshape(3, 4).requires_grad_()
    tt = tb * 1
    tt.t()[1:].mul_(2)
    tt.sum().backward()
    assert base.grad.tolist() == tb.grad.tolist()
