"""Gather/scatter family against PyTorch: values, gradients, in-place variants, node names, errors."""
import numpy as np
import pytest
import torch

import webtorch
from optest import check, check_error, rand, randint



@pytest.fixture(autouse=True)
def _made_on_device(request):
    """Index, mask and source tensors the lambdas make (m.tensor(...)) are created on the device under test:
    PyTorch refuses them from another device (tests/ops/test_bad_calls.py checks that refusal)."""
    if "device" not in request.fixturenames:
        yield
        return
    webtorch.set_default_device(request.getfixturevalue("device"))
    yield
    webtorch.set_default_device(None)


IDX = np.array([[0, 1, 2, 0], [2, 2, 1, 0]])  # for dim 0 of a (3, 4) tensor
IDX1 = np.array([[3, 0, 3], [1, 1, 2], [0, 0, 0]])  # for dim 1 of a (3, 4) tensor


def test_gather(device):
    check(lambda m, x, i, j: (x.gather(0, i), m.gather(x, 1, j), x.gather(-1, j[:2, :1]),
                              m.gather(x[0, 0], 0, m.tensor(0, device=x.device))), rand(3, 4), IDX, IDX1, device=device)


def test_gather_double_backward(device):
    x = webtorch.randn(3, 4, device=device, requires_grad=True)
    t = torch.tensor(x.detach().cpu().numpy(), requires_grad=True)
    for lib, v in ((webtorch, x), (torch, t)):
        y = (v.gather(1, lib.tensor(IDX1)) ** 3).sum()
        (g,) = lib.autograd.grad(y, v, create_graph=True)
        g.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-5)


def test_scatter_src_and_value(device):
    i = np.array([[0, 1, 2, 0]])  # no duplicates along dim 0 (scatter's winner among duplicates is unspecified)
    check(lambda m, x, i, s: (x.scatter(0, i, s), m.scatter(x, 1, m.tensor([[3, 1], [0, 2]]), s), x.scatter(0, i, 2.5),
                              x.scatter(0, i, s, reduce="add"), x.scatter(0, i, s, reduce="multiply")),
          rand(3, 4), i, rand(2, 4), device=device, grad=False)
    # (PyTorch's own backward fails for a src larger than index, so gradients are compared at equal shapes)
    check(lambda m, x, i, s: (x.scatter(0, i, s), x.scatter(1, i[:, :2], 1.5)), rand(3, 4), i, rand(1, 4),
          device=device)
    x = webtorch.zeros(3, 4, device=device, requires_grad=True)
    s = webtorch.ones(2, 4, device=device, requires_grad=True)
    x.scatter(0, webtorch.tensor([[0, 1, 2, 0]], device=device), s).sum().backward()
    assert s.grad.tolist() == [[1.0] * 4, [0.0] * 4]


def test_scatter_add_and_reduce(device):
    check(lambda m, x, i, s, s1: (x.scatter_add(0, i, s), m.scatter_add(x, 1, m.tensor(IDX1), s1)),
          rand(3, 4), IDX, rand(2, 4), rand(3, 3), device=device)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            check(lambda m, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
                  rand(3, 4, low=0.5, high=2.0), IDX, rand(2, 4, low=0.5, high=2.0), device=device)


def test_scatter_reduce_ties_zeros_and_ints(device):
    x = np.array([[1.0, 0.0, 2.0, 3.0], [2.0, 5.0, 0.0, 1.0], [4.0, 1.0, 1.0, 0.0]], np.float32)
    s = np.array([[2.0, 0.0, 3.0, 3.0], [4.0, 0.0, 1.0, 0.0]], np.float32)
    for reduce in ("prod", "amax", "amin"):
        check(lambda m, x, i, s: x.scatter_reduce(0, i, s, reduce), x, IDX, s, device=device)
    xi = randint(-9, 9, 3, 4)
    si = randint(-9, 9, 2, 4)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        check(lambda m, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=False), xi, IDX, si, device=device)
        check(lambda m, x, i, s: x.scatter_reduce(0, i, s, reduce), xi, IDX, si, device=device)


RANGE_ENDS = {"bool": (0, 1), "uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
              "int32": (-2**31, 2**31 - 1), "int64": (-2**40, 2**40), "float32": (-3e38, 3e38)}


@pytest.mark.parametrize("dtype", list(RANGE_ENDS))
def test_scatter_reduce_without_self_starts_from_the_identity(dtype, device):
    """include_self=False: a written element starts from the reduction's identity among its dtype's values (amax
    from the lowest, amin from the highest, sum 0, prod 1), so sources at the ends of the range come through."""
    lo, hi = RANGE_ENDS[dtype]
    x = randint(0, 2, 3, 4).astype(dtype)
    ends = np.array([[lo, hi, lo, hi], [hi, lo, lo, hi]]).astype(dtype)  # IDX sends both rows to [0, 3]
    for reduce in ("amax", "amin"):
        check(lambda m, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=False), x, IDX, ends, device=device,
              grad=False)
    small = randint(0, 3, 2, 4).astype(dtype)
    for reduce in ("sum", "prod") if dtype == "bool" else ("sum", "prod", "mean"):
        check(lambda m, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=False), x, IDX, small, device=device,
              grad=False)


def test_scatter_inplace_variants(device):
    def f(m, x, i, s):
        y = x * 1
        y.scatter_(0, i, s)
        z = x * 1
        z.scatter_add_(0, i, s)
        w = x * 1
        w.scatter_reduce_(0, i, s, "amax")
        return y, z, w
    check(f, rand(3, 4), np.array([[0, 1, 2, 0]]), rand(1, 4), device=device)


def test_gather_scatter_errors(device):
    check_error(lambda m, x: x.gather(1, m.tensor([[5]])), rand(3, 4), device=device,
                match="index 5 is out of bounds for dimension 1 with size 4")
    check_error(lambda m, x: x.gather(1, m.tensor([[-1]])), rand(3, 4), device=device,
                match="index -1 is out of bounds for dimension 1 with size 4")
    check_error(lambda m, x: x.gather(1, m.tensor([1])), rand(3, 4), device=device,
                match="Index tensor must have the same number of dimensions as input tensor")
    check_error(lambda m, x: x.gather(0, m.tensor([[0, 1, 2, 0, 1]])), rand(3, 4), device=device,
                match="Size does not match at dimension 1 expected index [1, 5] to be no larger than self [3, 4] apart "
                      "from dimension 0")
    check_error(lambda m, x: x.scatter(1, m.tensor([[0, 1], [2, 3]]), m.ones(1, 1)), rand(3, 4), device=device,
                match="Expected index [2, 2] to be no larger than self [3, 4] apart from dimension 1 and to be no "
                      "larger size than src [1, 1]")
    check_error(lambda m, x: x.scatter(1, m.tensor([[0]]), m.ones(1, 1, dtype=m.int32)), rand(3, 4), device=device,
                match="scatter(): Expected self.dtype to be equal to src.dtype")
    check_error(lambda m, x: x.scatter(1, m.tensor([[5]]), 1.0), rand(3, 4), device=device,
                match="index 5 is out of bounds for dimension 1 with size 4")
    check_error(lambda m, x: x.scatter(1, m.tensor([[0]]), 1.0, reduce="foo"), rand(3, 4), device=device,
                match="reduce argument must be either add or multiply.")
    check_error(lambda m, x: x.scatter_reduce(1, m.tensor([[0]]), x, "foo"), rand(3, 4), device=device,
                match="reduce argument must be either sum, prod, mean, amax or amin, got foo")


def test_index_select_add_copy_fill(device):
    i = np.array([2, 0, 2])
    check(lambda m, x, i, s: (x.index_select(0, i), m.index_select(x, 1, i), x.index_select(1, m.tensor(1)),
                              x.index_add(0, i, s), m.index_add(x, 0, i, s, alpha=2.5),
                              x.index_fill(1, i, -1.0), x.index_fill(0, i[:1], m.tensor(3.0))),
          rand(3, 4), i, rand(3, 4), device=device)
    j = np.array([2, 0])
    check(lambda m, x, j, s, s1: (x.index_copy(0, j, s), m.index_copy(x, 1, j, s1)),
          rand(3, 4), j, rand(2, 4), rand(3, 2), device=device)
    t = torch.randn(3, requires_grad=True)
    x = webtorch.randn(3, requires_grad=True, device=device)
    for name in ("index_select", "index_fill"):
        args = (0, [1], 1.0) if name == "index_fill" else (0, [1])
        ours = getattr(x, name)(*(webtorch.tensor(a) if isinstance(a, list) else a for a in args))
        ref = getattr(t, name)(*(torch.tensor(a) if isinstance(a, list) else a for a in args))
        assert ours.grad_fn.name() == ref.grad_fn.name()


def test_index_inplace_variants(device):
    def f(m, x, s):
        i = m.tensor([2, 0])
        a = x * 1
        a.index_add_(0, i, s, alpha=-1)
        b = x * 1
        b.index_copy_(0, i, s)
        c = x * 1
        c.index_fill_(1, i, 7.0)
        return a, b, c
    check(f, rand(3, 4), rand(2, 4), device=device)


def test_index_family_errors(device):
    check_error(lambda m, x: x.index_select(0, m.tensor([3])), rand(3, 4), device=device, match="index out of range in self")
    check_error(lambda m, x: x.index_select(0, m.tensor([[0]])), rand(3, 4), device=device,
                match="index_select(): Index is supposed to be a vector")
    check_error(lambda m, x: x.index_select(0, m.tensor([1.0])), rand(3, 4), device=device,
                match="index_select(): Expected dtype int32 or int64 for index")
    check_error(lambda m, x: x.index_add(0, m.tensor([0]), m.ones(2, 4)), rand(3, 4), device=device,
                match="index_add_(): Number of indices (1) should be equal to source.size(dim): (2), for dim: 0")
    check_error(lambda m, x: x.index_add(0, m.tensor([0]), m.ones(1, 5)), rand(3, 4), device=device,
                match="source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                      "self.shape = [3, 4] source.shape = [1, 5]")
    check_error(lambda m, x: x.index_add(0, m.tensor([4]), m.ones(1, 4)), rand(3, 4), device=device,
                match="index 4 is out of bounds for dimension 0 with size 3")
    check_error(lambda m, x: x.index_copy(0, m.tensor([4]), m.ones(1, 4)), rand(3, 4), device=device,
                match="index_copy_(): index 4 is out of bounds for dimension 0 with size 3")
    check_error(lambda m, x: x.index_fill(0, m.tensor([1]), m.tensor([1.0])), rand(3, 4), device=device,
                match="index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).")


def test_masked_ops(device):
    mask = rand(3, 4) > 0
    check(lambda m, x, k, s: (x.masked_fill(k, 2.0), m.masked_fill(x, k[0], m.tensor(-1.0)),
                              x.masked_select(k), m.masked_select(x, k[:1]), x.masked_scatter(k, s),
                              m.masked_scatter(x, k[1], s)), rand(3, 4), mask, rand(3, 5), device=device)
    check(lambda m, x, v: x.masked_fill(x > 0, v), rand(3, 4), rand(), device=device)
    check(lambda m, x: (x.masked_fill(m.ones(2, 3, 4, dtype=m.bool), 1.0), x.masked_select(x.new_ones(2, 1, 4) > 0)),
          rand(3, 4), device=device)
    t = torch.randn(3, requires_grad=True)
    x = webtorch.randn(3, requires_grad=True, device=device)
    assert x.masked_fill(x > 0, 1.0).grad_fn.name() == t.masked_fill(t > 0, 1.0).grad_fn.name()
    assert x.masked_select(x > 0).grad_fn.name() == t.masked_select(t > 0).grad_fn.name()


def test_masked_inplace(device):
    def f(m, x, s):
        a = x * 1
        a.masked_fill_(x > 0, 0.5)
        b = x * 1
        b.masked_scatter_(x < 0, s)
        return a, b
    check(f, rand(3, 4), rand(12), device=device)


def test_masked_errors(device):
    check_error(lambda m, x: x.masked_fill(m.ones(3, 4), 1.0), rand(3, 4), device=device,
                match="masked_fill_ only supports boolean masks, but got mask with dtype float")
    check_error(lambda m, x: x.masked_fill(m.ones(3, 4, dtype=m.long), 1.0), rand(3, 4), device=device,
                match="masked_fill_ only supports boolean masks, but got mask with dtype long int")
    check_error(lambda m, x: x.masked_fill(x > 0, m.ones(2)), rand(3, 4), device=device,
                match="masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).")
    check_error(lambda m, x: x.masked_fill_(m.ones(2, 3, 4, dtype=m.bool), 1.0), rand(3, 4), device=device,
                match="output with shape [3, 4] doesn't match the broadcast shape [2, 3, 4]")
    check_error(lambda m, x: x.masked_scatter(x > -10, m.ones(2)), rand(3, 4), device=device,
                match="Number of elements of source < number of ones in mask")
    check_error(lambda m, x: x.masked_scatter(x > 0, x.long()), rand(3, 4), device=device,
                match="masked_scatter: expected self and source to have same dtypes but gotFloat and Long")


def test_nonzero_argwhere_where(device):
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], np.float32)
    check(lambda m, x: (x.nonzero(), m.nonzero(x, as_tuple=True), m.argwhere(x), m.where(x != 0),
                        m.nonzero(x[0, 1]), m.nonzero(x[0, 0], as_tuple=True), m.nonzero(x[0, 1], as_tuple=True),
                        (x > 5).nonzero()), x, device=device, grad=False)


def test_take_take_along_dim_put(device):
    i = np.array([[0, 11], [-12, 5]])
    check(lambda m, x, i: (x.take(i), m.take(x.t(), i)), rand(3, 4), i, device=device)
    check(lambda m, x, i: (m.take_along_dim(x, i), m.take_along_dim(x, m.tensor([[1], [2], [0]]), 1),
                           m.take_along_dim(x, m.tensor([[1, 2, 0, 0]]), 0)), rand(3, 4), np.array([3, 0, 11]),
          device=device)
    check(lambda m, x, s: (x.put(m.tensor([1, 5, 1]), s), x.put(m.tensor([1, 5, 1]), s, accumulate=True)),
          rand(3, 4), rand(3), device=device)

    def f(m, x, s):
        y = x * 1
        y.put_(m.tensor([[0, -1]]), s, accumulate=True)
        z = (x * 1).t()
        z.put_(m.tensor([1, 4]), s)  # non-contiguous self: flat order is z's logical order
        return y, z
    check(f, rand(3, 4), rand(2), device=device)
    t = torch.randn(3, requires_grad=True)
    x = webtorch.randn(3, requires_grad=True, device=device)
    assert x.take(webtorch.tensor([0])).grad_fn.name() == t.take(torch.tensor([0])).grad_fn.name()
    assert webtorch.take_along_dim(x, webtorch.tensor([0]), 0).grad_fn.name() == "GatherBackward0"


def test_take_put_errors(device):
    check_error(lambda m, x: x.take(m.tensor([12])), rand(3, 4), device=device,
                match="out of range: tried to access index 12 on a tensor of 12 elements.")
    check_error(lambda m, x: x.take(m.tensor([-13])), rand(3, 4), device=device,
                match="out of range: tried to access index -13 on a tensor of 12 elements.")
    check_error(lambda m, x: x.take(m.tensor([1], dtype=m.int32)), rand(3, 4), device=device,
                match="take(): Expected a long tensor for index, but got Int")
    check_error(lambda m, x: x.put_(m.tensor([1]), m.ones(2)), rand(3, 4), device=device,
                match="put_(): Expected source and index to have the same number of elements, but got "
                      "source.numel() = 2, index.numel() = 1")
    check_error(lambda m, x: x.put_(m.tensor([12]), m.ones(1)), rand(3, 4), device=device,
                match="out of range: tried to access index 12 on a tensor of 12 elements.")
    check_error(lambda m, x: m.take_along_dim(x, m.tensor([1]), 1), rand(3, 4), device=device,
                match="torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 "
                      "dimensions for input, and 1 dimensions for indices")


def _dtype_ops(m, x, i):
    return (x.gather(0, i), x.index_select(1, i[0, :2]), x[i], x.flip(1), m.cat([x, x]), x.masked_select(x != 0),
            x.take(i), x.scatter(0, i[:1], x[:1]), x.index_add(0, i[0, :2], x[:2]))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_])
def test_dtypes(dtype, device):
    if dtype is np.bool_:
        check(lambda m, x, i: _dtype_ops(m, x, i)[:-1], rand(3, 4) > 0, IDX, device=device)
    else:
        check(_dtype_ops, (rand(3, 4) * 5).astype(dtype), IDX, device=device)


def test_float64_cpu():
    check(_dtype_ops, rand(3, 4).astype(np.float64), IDX)
