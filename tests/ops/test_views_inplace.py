"""Views and in-place writes: shared storage and version counters, zero_/fill_/copy_/resize_, autograd
through in-place ops on views (CopySlices), and PyTorch's errors for unsafe in-place use."""
import numpy as np
import pytest
import torch

import webtorch
from optest import check, check_error, rand


def test_views_share_storage_and_version(device):
    x = webtorch.zeros(4, 6, device=device)
    views = [x[1], x[:, 2], x.narrow(1, 1, 3), x.split(2)[1], x.chunk(3, 1)[2], x.unbind(0)[3], x.diagonal(),
             x.tensor_split(2, 1)[0], x.select(1, 5), x[..., 1:5:2]]
    for k, v in enumerate(views):
        assert v._base is x
        v.fill_(k + 1.0)
        assert x._version_counter == k + 1 and all(w._version_counter == k + 1 for w in views)
    ref = torch.zeros(4, 6)
    tviews = [ref[1], ref[:, 2], ref.narrow(1, 1, 3), ref.split(2)[1], ref.chunk(3, 1)[2], ref.unbind(0)[3],
              ref.diagonal(), ref.tensor_split(2, 1)[0], ref.select(1, 5), ref[..., 1:5:2]]
    for k, v in enumerate(tviews):
        v.fill_(k + 1.0)
    assert x.tolist() == ref.tolist()
    assert all(v.tolist() == t.tolist() for v, t in zip(views, tviews))


def test_zero_fill_copy_values(device):
    def f(m, x, s):
        a = x.clone()
        a.zero_()
        b = x.clone()
        b.fill_(3)
        c = x.clone()
        c.fill_(m.tensor(-2.5))
        d = x.clone()
        d.copy_(s)  # broadcast
        e = m.zeros(3, 4, dtype=m.int64)
        e.copy_(x * 10)  # float -> int truncates
        g = x.clone()
        g[1:, 1::2].copy_(s[:2])
        return a, b, c, d, e, g
    check(f, rand(3, 4), rand(4), device=device, grad=False)


def test_fill_copy_grads_and_names(device):
    def f(m, x, v, s):
        y = x * 2
        y[0].fill_(v)
        z = x * 3
        z[:, 1:3].copy_(s)
        w = x * 1
        w.copy_(s[0].sum() * x)
        u = x + 0
        u.zero_()
        return y, z, w, u
    check(f, rand(3, 4), rand(), rand(3, 2), device=device)
    t = torch.randn(3, requires_grad=True) * 1
    x = webtorch.randn(3, requires_grad=True, device=device) * 1
    for op in (lambda a: a.fill_(1.0), lambda a: a.zero_(), lambda a: a.copy_(a.detach() + 1)):
        assert op(x * 1).grad_fn.name() == op(t * 1).grad_fn.name()
    assert (x * 1).fill_(webtorch.tensor(2.0, requires_grad=True)).grad_fn.name() == \
        (t * 1).fill_(torch.tensor(2.0, requires_grad=True)).grad_fn.name()


def test_copy_dtype_cast_gradient(device):
    def f(m, x, s):
        y = m.zeros(3, 4, dtype=m.float16 if m is torch else m.float16)
        y.copy_(s)
        return (y.float() * x).sum(0)
    if device != "cpu":
        f = None
    if f is not None:
        check(f, rand(3, 4), rand(3, 4), device=device, atol=1e-3, rtol=1e-3)


def test_copy_cross_device(device):
    src = webtorch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    dst = webtorch.zeros(2, 2, device=device)
    dst.copy_(src)
    assert dst.device.type == device and dst.cpu().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    (dst * webtorch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)).sum().backward()
    assert src.grad.device.type == "cpu" and src.grad.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    back = webtorch.zeros(2, device="cpu")
    back.copy_(dst[1])
    assert back.tolist() == [3.0, 4.0]


def test_inplace_errors(device):
    check_error(lambda m, x: x.requires_grad_().fill_(1.0), rand(3), device=device,
                match="a leaf Variable that requires grad is being used in an in-place operation.")
    check_error(lambda m, x: x.requires_grad_()[0].zero_(), rand(3), device=device,
                match="a view of a leaf Variable that requires grad is being used in an in-place operation.")
    check_error(lambda m, x: x.fill_(m.ones(2)), rand(3), device=device,
                match="fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.")
    check_error(lambda m, x: x.copy_(m.ones(4)), rand(3), device=device,
                match="The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0")
    check_error(lambda m, x: x.copy_(m.ones(2, 3)), rand(3), device=device,
                match="output with shape [3] doesn't match the broadcast shape [2, 3]")
    check_error(lambda m, x: x.unsqueeze(0).expand(2, 3).copy_(m.ones(2, 3)), rand(3), device=device,
                match="more than one element of the written-to tensor refers to a single memory location. Please "
                      "clone() the tensor before performing the operation.")


def test_modified_saved_tensor_raises(device):
    def f(m, x):
        y = x.requires_grad_() * 1
        z = y * y  # saves y
        y.fill_(2.0)
        z.sum().backward()
    check_error(f, rand(3), device=device,
                match="one of the variables needed for gradient computation has been modified by an inplace operation")

    def g(m, x):
        y = x.requires_grad_().exp()  # saves its result
        y[0] = 0.0
        y.sum().backward()
    check_error(g, rand(3), device=device,
                match="one of the variables needed for gradient computation has been modified by an inplace operation")

    def h(m, x):
        y = x.requires_grad_().sigmoid()
        view = y[1:]
        view.zero_()  # a write through a view bumps the base's version too
        y.sum().backward()
    check_error(h, rand(3), device=device,
                match="one of the variables needed for gradient computation has been modified by an inplace operation")


@pytest.mark.parametrize("write", ["setitem", "fill", "copy", "index_put", "masked_fill", "scatter", "index_add"])
def test_inplace_on_view_propagates_to_base(write, device):
    def f(m, x, v):
        base = x * 2
        view = base[1:, ::2]  # (2, 2)
        if write == "setitem":
            view[0] = v[0]
        elif write == "fill":
            view[1].fill_(v[0, 0])
        elif write == "copy":
            view.copy_(v)
        elif write == "index_put":
            view.index_put_((m.tensor([1, 1]),), v[0], accumulate=True)
        elif write == "masked_fill":
            view.masked_fill_(view > 0, v[1, 1])
        elif write == "scatter":
            view.scatter_add_(1, m.tensor([[1, 1], [0, 0]], device=x.device), v)
        else:
            view.index_add_(0, m.tensor([1, 0], device=x.device), v, alpha=2.0)
        return base * base, view
    check(f, rand(3, 4), rand(2, 2), device=device)


def test_base_grad_fn_after_view_write(device):
    t = torch.randn(3, 4, requires_grad=True) * 1
    x = webtorch.randn(3, 4, requires_grad=True, device=device) * 1
    t[1:, 0].copy_(torch.ones(2))
    x[1:, 0].copy_(webtorch.ones(2, device=device))
    assert x.grad_fn.name() == t.grad_fn.name() == "torch::autograd::CopySlices"


def test_chained_views_and_double_backward(device):
    def f(m, x):
        y = x.clone()
        y[1][::2] = x[0, :2] ** 2
        return y
    check(f, rand(3, 4), device=device)
    x = webtorch.randn(3, device=device, requires_grad=True)
    t = torch.tensor(x.detach().cpu().numpy(), requires_grad=True)
    for lib, v in ((webtorch, x), (torch, t)):
        y = v * 1
        y[1:] = v[:2] ** 3
        (g,) = lib.autograd.grad(y.sum(), v, create_graph=True)
        g.pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-5)


def test_resize(device):
    x = webtorch.arange(6.0, device=device)
    assert x.resize_(2, 3).shape == (2, 3) and x.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert x.resize_(2, 2).tolist() == [[0, 1], [2, 3]]
    x.resize_(3, 3)
    assert x.shape == (3, 3) and x.reshape(-1)[:6].tolist() == [0, 1, 2, 3, 4, 5]
    check_error(lambda m, x: x.requires_grad_().resize_(5, 5), rand(3), device=device,
                match="cannot resize variables that require grad")


def test_out_of_place_fill(device):
    check(lambda m, x: (m.fill(x, 2.0), m.fill(x, m.tensor(1.5))), rand(2, 3), device=device)
