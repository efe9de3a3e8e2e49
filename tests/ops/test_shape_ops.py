"""Joining, splitting and repeating ops against PyTorch: values, dtypes, gradients, node names, errors."""
import numpy as np
import pytest
import torch

import webtorch
from optest import check, check_error, rand, randint


def test_cat_and_aliases(device):
    check(lambda m, a, b, c: (m.cat([a, b], 1), m.concat((a, c), dim=-1), m.concatenate([a, a, b], 1),
                              m.cat([a], 0)), rand(2, 3), rand(2, 4), rand(2, 1), device=device)
    check(lambda m, a, b: m.cat([a, b]), rand(2, 3, 4), rand(5, 3, 4), device=device)


def test_cat_promotion_and_empty_rule(device):
    check(lambda m, a, b: m.cat([a, b]), np.ones((2, 3), np.int64), rand(1, 3), device=device)
    check(lambda m, a, b: m.cat([a, b]), np.ones((2, 3), np.int32), np.ones((1, 3), np.int64), device=device)
    check(lambda m, a, b: m.cat([a, b, a]), np.zeros((0,), np.float32), rand(2, 3), device=device)
    check(lambda m, a, b: m.cat([a, b], 1), rand(2, 0), rand(2, 3), device=device)


def test_cat_errors(device):
    check_error(lambda m, a, b: m.cat([a, b]), rand(3, 4), rand(3, 5), device=device,
                match="Sizes of tensors must match except in dimension 0. Expected size 4 but got size 5 for tensor "
                      "number 1 in the list.")
    check_error(lambda m, a, b: m.cat([a, b]), rand(3, 4), rand(3), device=device,
                match="Tensors must have same number of dimensions: got 2 and 1")
    check_error(lambda m: m.cat([]), device=device, match="torch.cat(): expected a non-empty list of Tensors")
    check_error(lambda m, a: m.cat([a, a], dim=2), rand(3, 4), device=device,
                match="Dimension out of range (expected to be in range of [-2, 1], but got 2)")


def test_stack_family(device):
    check(lambda m, a, b: (m.stack([a, b]), m.stack([a, b], 2), m.stack((a, b), -1), m.hstack([a, b]),
                           m.vstack([a, b]), m.dstack([a, b]), m.column_stack([a, b]), m.row_stack([a, b])),
          rand(3, 4), rand(3, 4), device=device)
    check(lambda m, a, b, s: (m.hstack([a, b]), m.vstack([a, b]), m.dstack([a, b]), m.column_stack([a, b, s])),
          rand(3), rand(3), rand(3, 2), device=device)
    check_error(lambda m, a, b: m.stack([a, b]), rand(3, 4), rand(3, 5), device=device,
                match="stack expects each tensor to be equal size, but got [3, 4] at entry 0 and [3, 5] at entry 1")
    check_error(lambda m: m.stack([]), device=device, match="stack expects a non-empty TensorList")


def test_atleast(device):
    check(lambda m, s, v, a: (m.atleast_1d(s), m.atleast_2d(s), m.atleast_3d(s), m.atleast_2d(v), m.atleast_3d(v),
                              m.atleast_3d(a), m.atleast_1d(s, v), m.atleast_2d([v, a])),
          rand(), rand(3), rand(3, 4), device=device)


def test_split_family_values_and_grads(device):
    check(lambda m, x: (x.split(2), x.split([1, 2], 0), m.split(x, 3, 1), x.chunk(2, 1), x.chunk(5),
                        x.unbind(1), m.unbind(x), x.tensor_split(2), x.tensor_split([1, 2], 1),
                        x.tensor_split(m.tensor([1, -1]), 1), x.tensor_split(m.tensor(3), 1), m.hsplit(x, 2),
                        m.vsplit(x, [1]), x.split_with_sizes([2, 2], 1)), rand(3, 4), device=device)


def test_split_node_names_and_views(device):
    x = webtorch.randn(4, 6, device=device, requires_grad=True)
    t = torch.randn(4, 6, requires_grad=True)
    for f in (lambda v: v.split(2), lambda v: v.split([1, 3]), lambda v: v.chunk(3, 1), lambda v: v.unbind(),
              lambda v: v.tensor_split(3), lambda v: v.tensor_split([1, 2], 1)):
        ours, ref = f(x), f(t)
        assert [o.grad_fn.name() for o in ours] == [r.grad_fn.name() for r in ref]
        assert all(o._base is x for o in ours)
    y = webtorch.zeros(4, 6, device=device)
    a, b = y.split([1, 3])
    b[0].fill_(5.0)
    assert y[1].tolist() == [5.0] * 6 and a._version_counter == y._version_counter == 1


def test_split_errors(device):
    check_error(lambda m, x: x.split([1, 1]), rand(3, 4), device=device,
                match="split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension 0), "
                      "but got split_sizes=[1, 1]")
    check_error(lambda m, x: x.split(0), rand(3, 4), device=device,
                match="split_size can only be 0 if dimension size is 0, but got dimension size of 3")
    check_error(lambda m, x: x.chunk(0), rand(3, 4), device=device,
                match="chunk expects `chunks` to be greater than 0, got: 0")


def test_repeat_tile_interleave(device):
    check(lambda m, x: (x.repeat(2, 3), x.repeat(2, 1, 2), m.tile(x, (2,)), x.tile((2, 1, 1)), x.repeat(1, 0)),
          rand(2, 3), device=device)
    check(lambda m, x: (x.repeat_interleave(2), x.repeat_interleave(3, dim=1), m.repeat_interleave(x, 2, 0),
                        x.repeat_interleave(m.tensor([1, 0]), dim=0), x.repeat_interleave(m.tensor([2, 1, 3]), dim=1),
                        m.repeat_interleave(m.tensor([1, 2, 0, 3]))), rand(2, 3), device=device)
    t = torch.randn(2, 3, requires_grad=True)
    x = webtorch.randn(2, 3, requires_grad=True, device=device)
    assert x.repeat(2, 1).grad_fn.name() == t.repeat(2, 1).grad_fn.name()
    assert x.repeat_interleave(2).grad_fn.name() == t.repeat_interleave(2).grad_fn.name()
    check_error(lambda m, x: x.repeat(2), rand(2, 3), device=device,
                match="Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    check_error(lambda m, x: x.repeat_interleave(m.tensor([1, 2])), rand(3, 4), device=device,
                match="repeats must have the same size as input along dim, but got repeats.size(0) = 2 and "
                      "input.size(0) = 12")


def test_flip_roll_rot90(device):
    check(lambda m, x: (x.flip(0), m.flip(x, (0, 2)), x.flip(-1), m.fliplr(x), m.flipud(x), x.flip([])),
          rand(2, 3, 4), device=device)
    check(lambda m, x: (x.roll(1), x.roll(-2, 1), m.roll(x, (1, 2), (0, 2)), x.roll(5, 0), x.roll(0, 1)),
          rand(2, 3, 4), device=device)
    check(lambda m, x: (x.rot90(), x.rot90(2), x.rot90(3, (1, 2)), m.rot90(x, -1, (0, 2)), x.rot90(4)),
          rand(2, 3, 4), device=device)
    check(lambda m, x: x.flip(0), randint(0, 9, 4, 2), device=device)
    check_error(lambda m, x: x.flip(0, 0), rand(3, 4), device=device, match="dim 0 appears multiple times in the list of dims")
    check_error(lambda m, x: m.fliplr(x), rand(3), device=device, match="Input must be >= 2-d.")
    check_error(lambda m, x: x.roll(1, (0, 1)), rand(3, 4), device=device,
                match="shifts and dimensions must align. shifts: 1, dims:2")
    check_error(lambda m, x: x.rot90(1, (0, 0)), rand(3, 4), device=device,
                match="expected rotation dims to be different, but got dim0 = 0 and dim1 = 0")
    check_error(lambda m, x: x.rot90(1, (0, 1, 2)), rand(3, 4), device=device,
                match="expected total rotation dims == 2, but got dims = 3")


def test_meshgrid_and_broadcast_tensors(device):
    check(lambda m, a, b, c: (m.meshgrid(a, b, indexing="ij"), m.meshgrid(a, b, indexing="xy"),
                              m.meshgrid([a, b, c], indexing="xy"), m.meshgrid(a, c, indexing="ij")),
          rand(2), rand(3), rand(4), device=device)
    check(lambda m, a, b, c: m.broadcast_tensors(a, b, c), rand(3, 1), rand(4), rand(1, 1, 1), device=device)


def test_double_backward_through_cat_and_repeat(device):
    x = webtorch.randn(3, device=device, requires_grad=True)
    t = torch.tensor(x.detach().cpu().numpy(), requires_grad=True)
    for lib, v in ((webtorch, x), (torch, t)):
        y = (lib.cat([v, v * v]).repeat(2) ** 2).sum()
        (g,) = lib.autograd.grad(y, v, create_graph=True)
        (g * g).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-4)


@pytest.mark.parametrize("shape", [(0, 3), (2, 0)])
def test_empty_tensors(shape, device):
    check(lambda m, x: (m.cat([x, x]), m.stack([x, x]), x.flip(0), x.repeat(2, 2), x.roll(1, 0)), rand(*shape),
          device=device)
