"""Errors raise the same exception types as PyTorch 2.13 (and name the problem)."""
import numpy as np
import pytest

from optest import check_error, rand

CASES = {
    # dims out of range -> IndexError
    "sum_dim": (lambda m, x: x.sum(3), "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    "mean_dim": (lambda m, x: x.mean(-3), "Dimension out of range"),
    "transpose_dim": (lambda m, x: x.transpose(0, 2), "Dimension out of range"),
    "unsqueeze_dim": (lambda m, x: x.unsqueeze(4), "Dimension out of range"),
    "size_dim": (lambda m, x: x.size(2), "Dimension out of range"),
    "stride_dim": (lambda m, x: x.stride(-3), "Dimension out of range"),
    "squeeze_dim": (lambda m, x: x.squeeze(5), "Dimension out of range"),
    # shapes -> RuntimeError
    "broadcast": (lambda m, x: x + m.ones(4).to(x.device), "The size of tensor a (3) must match the size of tensor b (4) at "
                                              "non-singleton dimension 1"),
    # several mismatching dims: PyTorch names the last one
    "broadcast_last_mismatch": (lambda m, x: m.ones(4, 3).to(x.device) + m.ones(3, 4).to(x.device),
                                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                                "dimension 1"),
    "view": (lambda m, x: x.view(4), "shape '[4]' is invalid for input of size 6"),
    "reshape_two_inferred": (lambda m, x: x.reshape(-1, -1), "only one dimension can be inferred"),
    "mm": (lambda m, x: m.mm(x, x), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    "expand": (lambda m, x: x.expand(4, 3), None),
    "item": (lambda m, x: x.item(), "a Tensor with 6 elements cannot be converted to Scalar"),
    "bool": (lambda m, x: bool(x), "Boolean value of Tensor with more than one value is ambiguous"),
    "inplace_broadcast": (lambda m, x: x.add_(m.ones(4, 2, 3).to(x.device)), None),
    "backward_nonscalar": (lambda m, x: x.requires_grad_().mul(2).backward(),
                           "grad can be implicitly created only for scalar outputs"),
    "backward_no_grad": (lambda m, x: x.sum().backward(), "element 0 of tensors does not require grad"),
    "int_requires_grad": (lambda m, x: x.long().requires_grad_(), "only Tensors of floating point"),
    "mean_int": (lambda m, x: x.long().mean(), "mean(): could not infer output dtype"),
    "where_cond": (lambda m, x: m.where(x, x, x), "where expected condition to be a boolean tensor"),
    "bool_sub": (lambda m, x: (x > 0) - (x > 0), "Subtraction, the `-` operator, with two bool tensors"),
    "randint_range": (lambda m, x: m.randint(3, 3, (2,)), "random_ expects 'from' to be less than 'to'"),
    "arange_sign": (lambda m, x: m.arange(0, 5, -1), None),
    "arange_zero_step": (lambda m, x: m.arange(0, 5, 0), None),
    "cast_inplace": (lambda m, x: x.long().add_(1.5), "result type Float can't be cast to the desired output type Long"),
    # bad arguments -> TypeError
    "add_str": (lambda m, x: x + "a", None),
    "zeros_str": (lambda m, x: m.zeros("a"), None),
    "len_0d": (lambda m, x: len(x.sum()), "len() of a 0-d tensor"),
    "iter_0d": (lambda m, x: iter(x.sum()), "iteration over a 0-d tensor"),
    "index_float": (lambda m, x: [1, 2][x.sum()], None),
    "format_spec": (lambda m, x: format(x, ".2f"), None),
    "set_default_dtype": (lambda m, x: m.set_default_dtype(m.int64), None),
    "zeros_no_size": (lambda m, x: m.zeros(), None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_types(name, device):
    fn, match = CASES[name]
    check_error(fn, rand(2, 3), device=device, match=match)


def test_backward_twice_error():
    check_error(lambda m, x: _twice(x.requires_grad_()), rand(3), match="Trying to backward through the graph a "
                                                                         "second time")


def _twice(x):
    y = (x * x).sum()
    y.backward()
    y.backward()


def test_float_to_int_tensor_overflow_values():
    check_error(lambda m, x: m.tensor([float("nan")], dtype=m.int64), np.zeros(1))
