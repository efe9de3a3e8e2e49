"""__getitem__/__setitem__, select/narrow/diagonal, index/index_put against PyTorch."""
import numpy as np
import pytest
import torch

import webtorch
from optest import check, check_error, rand, randint


# ---- basic indexing: views ------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [
    0, -1, (1, 2), slice(1, None), slice(None, None, 2), (slice(1, None), slice(None, None, 2)),
    (Ellipsis, 1), (None, 0), (0, None), (None, Ellipsis, None), (slice(-10, 2),), (slice(5, None),),
    (slice(None), slice(1, 3), -2), (1, slice(None, None, 3), None, 0), Ellipsis, (slice(None), slice(None)),
])
def test_basic_keys(key, device):
    check(lambda m, x: x[key], rand(3, 4, 5), device=device)


def test_basic_index_is_a_view_with_torch_node_names(device):
    x = webtorch.randn(3, 4, 5, device=device, requires_grad=True)
    t = torch.randn(3, 4, 5, requires_grad=True)
    for key in [0, (slice(None), 1), slice(1, None), (slice(1, None), slice(None, None, 2)), None, (0, None),
                (None, 0), Ellipsis, (slice(None), slice(None))]:
        v = x[key]
        assert v._base is x and v.storage_offset() == t[key].storage_offset()
        # strides of size-1 dims are arbitrary (NumPy gives 0 where PyTorch gives the next dim's extent)
        assert [s for s, n in zip(v.stride(), v.shape) if n > 1] == \
            [s for s, n in zip(t[key].stride(), t[key].shape) if n > 1]
        assert v.grad_fn.name() == t[key].grad_fn.name(), key


def test_slice_view_writes_are_shared(device):
    x = webtorch.arange(12.0, device=device).reshape(3, 4)
    v = x[1:, ::2]
    w = x[2]
    v.fill_(-1.0)
    assert x.tolist() == [[0, 1, 2, 3], [-1, 5, -1, 7], [-1, 9, -1, 11]]
    assert w.tolist() == [-1, 9, -1, 11]
    assert x._version_counter == v._version_counter == w._version_counter == 1
    w[1] = 100.0
    assert v.tolist() == [[-1, -1], [-1, -1]] and x[2, 1].item() == 100
    assert x._version_counter == 2


def test_select_narrow_diagonal(device):
    check(lambda m, x: (x.select(1, -1), m.select(x, 0, 2), x.narrow(1, 1, 2), m.narrow(x, -1, -3, 2),
                        x.diagonal(), x.diagonal(1, 1, 2), m.diagonal(x, -1, 0, 2)), rand(3, 4, 5), device=device)
    x = webtorch.zeros(3, 3, device=device)
    x.diagonal().fill_(2.0)
    assert x.tolist() == [[2, 0, 0], [0, 2, 0], [0, 0, 2]]
    t = torch.randn(3, 4, requires_grad=True)
    assert webtorch.randn(3, 4, requires_grad=True).narrow(0, 1, 1).grad_fn.name() == t.narrow(0, 1, 1).grad_fn.name()


def test_view_errors(device):
    check_error(lambda m, x: x.select(0, 3), rand(3, 4), device=device,
                match="select(): index 3 out of range for tensor of size [3, 4] at dimension 0")
    check_error(lambda m, x: x.narrow(0, 2, 2), rand(3, 4), device=device,
                match="start (2) + length (2) exceeds dimension size (3).")
    check_error(lambda m, x: x[5], rand(3, 4), device=device, match="index 5 is out of bounds for dimension 0 with size 3")
    check_error(lambda m, x: x[:, 7], rand(3, 4), device=device,
                match="index 7 is out of bounds for dimension 1 with size 4")
    check_error(lambda m, x: x[0, 0, 0], rand(3, 4), device=device, match="too many indices for tensor of dimension 2")
    check_error(lambda m, x: x[::-1], rand(3, 4), device=device, match="step must be greater than zero")
    check_error(lambda m, x: x[1.5], rand(3, 4), device=device, match="only integers, slices")
    check_error(lambda m, x: x.diagonal(0, 1, 1), rand(3, 4), device=device,
                match="diagonal dimensions cannot be identical 1, 1")


# ---- advanced indexing ------------------------------------------------------------------------------------

def test_integer_tensor_and_list_indices(device):
    i = randint(-3, 3, 2, 3)
    j = randint(0, 4, 3)
    check(lambda m, x, i, j: (x[i], x[i, j], x[:, j], x[..., [0, 4, 4]], x[[0, 2]], x[i, :, [1, 2, 3]],
                              x[1:, j], x[None, i]), rand(3, 4, 5), i, j, device=device)


def test_advanced_dim_placement(device):
    # adjacent advanced indices stay in place; separated ones (a slice or None between) go first;
    # ints are selects applied first (PyTorch, unlike NumPy)
    keys = [
        (slice(None), [0, 1], [1, 2]), ([0, 1], slice(None), [0, 1]), (0, slice(None), [0, 1]),
        ([0], slice(None), 0), (slice(None), None, [0, 1], slice(1, 3)), ([0, 1], None, [0, 1]),
        (slice(1, 2), [0, 1], None, [0, 1]), ([[0], [1]], slice(None), [0, 1, 2]),
    ]
    for key in keys:
        check(lambda m, x: x[key], rand(3, 4, 5), device=device)


def test_bool_masks_and_0d_index(device):
    mask = rand(3, 4) > 0
    check(lambda m, x, k: (x[k], x[k > 0.5], x[:, k[0]], x[x > 0]), rand(3, 4, 5), mask, device=device)
    check(lambda m, x: (x[m.tensor(1)], x[:, m.tensor(2)], x[np.int64(2)], x[np.array([0, 2])], x[m.tensor(True)], x[m.tensor(False)], x[True],
                        x[False], x[[]], x[m.tensor([0, 1], dtype=m.int32)]), rand(3, 4), device=device)
    x = webtorch.randn(3, 4, device=device)
    assert x[webtorch.tensor(1)]._base is x


def test_index_node_names(device):
    t = torch.randn(3, 4, requires_grad=True)
    x = webtorch.randn(3, 4, device=device, requires_grad=True)
    assert x[[0, 1]].grad_fn.name() == t[[0, 1]].grad_fn.name() == "IndexBackward0"
    assert x[x > 0].grad_fn.name() == "IndexBackward0"
    assert x[1:, [0]].grad_fn.name() == "IndexBackward0"
    assert x[1:, [0]].grad_fn.next_functions[0][0].name() == "SliceBackward0"


def test_advanced_index_errors(device):
    check_error(lambda m, x: x[[5]], rand(3, 4), device=device, match="index 5 is out of bounds for dimension 0 with size 3")
    check_error(lambda m, x: x[m.tensor([0, -9])], rand(3, 4), device=device,
                match="index -9 is out of bounds for dimension 0 with size 3")
    check_error(lambda m, x: x[:, [7]], rand(3, 4, 5), device=device,
                match="index 7 is out of bounds for dimension 0 with size 4")
    check_error(lambda m, x: x[:, [0], [9]], rand(3, 4, 5), device=device,
                match="index 9 is out of bounds for dimension 1 with size 5")
    check_error(lambda m, x: x[m.tensor([1.0])], rand(3, 4), device=device,
                match="tensors used as indices must be long, int, byte or bool tensors")
    check_error(lambda m, x: x[m.tensor([True, False])], rand(3, 4), device=device,
                match="The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0")
    check_error(lambda m, x: x[m.ones(3, 5, dtype=m.bool)], rand(3, 4), device=device,
                match="The shape of the mask [3, 5] at index 1 does not match the shape of the indexed tensor [3, 4] at "
                      "index 1")
    check_error(lambda m, x: x[[0, 1], [0, 1, 2]], rand(3, 4), device=device,
                match="shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]")


def test_index_grad_accumulates_duplicates(device):
    i = np.array([0, 0, 2, 0, 1])
    check(lambda m, x, i: x[i] * 2, rand(3, 4), i, device=device)
    check(lambda m, x: x[[[0, 0], [1, 0]], 1:], rand(3, 4), device=device)


def test_index_double_backward(device):
    x = webtorch.randn(4, device=device, requires_grad=True)
    t = torch.tensor(x.detach().cpu().numpy(), requires_grad=True)
    for lib, v in ((webtorch, x), (torch, t)):
        y = (v[[0, 0, 3]] ** 3).sum()
        (g,) = lib.autograd.grad(y, v, create_graph=True)
        g.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-5)


# ---- __setitem__ and index_put ------------------------------------------------------------------------------

def _assign(key, value):
    def f(m, x, *vals):
        y = x * 1
        v = vals[0] if vals else value
        y[key] = v
        return y
    return f


@pytest.mark.parametrize("key", [0, (slice(None), 1), slice(1, None), (slice(1, None), slice(None, None, 2)), Ellipsis,
                                 (None, 1), ([0, 2],), (slice(None), [3, 1]), ([0, 1], [1, 2])])
def test_setitem_scalar(key, device):
    check(_assign(key, 2.5), rand(3, 4), device=device)


@pytest.mark.parametrize("key, vshape", [(0, (4,)), (0, (1, 4)), (slice(1, None), (1,)), ((slice(None), 1), (3,)),
                                         (([0, 2],), (2, 4)), ((slice(None), [3, 1]), (2,)), ((1, [0, 0]), (2,)),
                                         (([0, 1], [1, 2]), (1,)), ((slice(1, None), [0, 1]), (2, 2))])
def test_setitem_tensor_grads(key, vshape, device):
    check(lambda m, x, v: _assign(key, None)(m, x, v), rand(3, 4), rand(*vshape), device=device)


def test_setitem_bool_mask(device):
    check(lambda m, x, v: _assign(x > 0, None)(m, x, v), rand(3, 4), rand(1), device=device)
    x = webtorch.zeros(3, 4, device=device)
    x[x == 0] = webtorch.arange(12.0, device=device)
    assert x.tolist() == torch.arange(12.0).reshape(3, 4).tolist()


def test_setitem_dtype_cast_and_node_names(device):
    check(lambda m, x: _assign(0, 2.7)(m, x), np.zeros((3, 4), np.int64), device=device)
    check(lambda m, x, v: _assign(1, None)(m, x, v), np.zeros((3, 4), np.int64), rand(4), device=device, grad=False)
    for key, name in [(0, "torch::autograd::CopySlices"), ([0], "IndexPutBackward0"),
                      ((slice(None), [0]), "IndexPutBackward0"), ((slice(1, None), [0]), "torch::autograd::CopySlices")]:
        t = torch.randn(3, 4, requires_grad=True) * 1
        t[key] = 1.0
        x = webtorch.randn(3, 4, device=device, requires_grad=True) * 1
        x[key] = 1.0
        assert x.grad_fn.name() == t.grad_fn.name() == name


def test_setitem_errors(device):
    def assign(key, v):
        def f(m, x):
            x[key] = m.ones(*v)
        return f
    check_error(assign(0, (3,)), rand(3, 4), device=device,
                match="The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 0")
    check_error(assign((slice(None), [0, 1]), (3,)), rand(3, 4), device=device,
                match="shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [3, 2]")
    check_error(lambda m, x: x.__setitem__(x == x, m.arange(11.0)), rand(3, 4), device=device,
                match="shape mismatch: value tensor of shape [11] cannot be broadcast to indexing result of shape [12]")
    check_error(lambda m, x: x.__setitem__([3], 1.0), rand(3, 4), device=device,
                match="index 3 is out of bounds for dimension 0 with size 3")


def test_setitem_on_leaf_requiring_grad_raises(device):
    check_error(lambda m, x: x.requires_grad_().__setitem__(0, 1.0), rand(3), device=device,
                match="a view of a leaf Variable that requires grad is being used in an in-place operation.")
    check_error(lambda m, x: x.requires_grad_().__setitem__([0], 1.0), rand(3), device=device,
                match="a leaf Variable that requires grad is being used in an in-place operation.")


def test_index_put(device):
    i = np.array([0, 0, 1])
    check(lambda m, x, i, v: (x.index_put((i,), v), x.index_put((i,), v, accumulate=True),
                              m.index_put(x, (i, m.tensor([1, 2, 3])), v[0, :3])), rand(3, 4), i, rand(3, 4), device=device)
    check(lambda m, x, i, v: x.detach().clone().index_put_((i,), v, accumulate=True), rand(3), i, rand(3),
          device=device, grad=False)
    check_error(lambda m, x: x.index_put_((m.tensor([0]),), m.tensor([1.0], dtype=m.float64)), rand(3), device=device,
                match="Index put requires the source and destination dtypes match, got Float for the destination and "
                      "Double for the source.")
    check_error(lambda m, x: x.index_put_((m.tensor([0, 5]),), m.tensor(1.0)), rand(3), device=device,
                match="index 5 is out of bounds for dimension 0 with size 3")


def test_setitem_through_view_of_grad_tensor_flows_to_base(device):
    def f(m, x, v):
        y = x * 2
        row = y[1]
        row[[0, 2]] = v * 3
        return y, row
    check(f, rand(3, 4), rand(2), device=device)
