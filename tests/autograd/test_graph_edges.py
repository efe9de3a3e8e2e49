"""grad_fn.next_functions against PyTorch 2.13: one edge per operand, (None, 0) where an operand is a Python
number or a tensor that needs no gradient, and the node names and edge order of PyTorch's overloads."""
import numpy as np
import pytest
import torch

import webtorch
from optest import rand


def edges(fn, depth=4):
    """(node class name, ((child, output_nr), ...)) down next_functions; AccumulateGrad by its name."""
    if fn is None:
        return None
    name = "AccumulateGrad" if fn.name() == "torch::autograd::AccumulateGrad" else type(fn).__name__
    if depth == 0:
        return name
    return name, tuple((edges(f, depth - 1), nr) for f, nr in fn.next_functions)


CASES = {
    # a Python-number operand keeps its slot: (x * 2) has edges (x, None)
    "x*2": lambda m, x, y: x * 2, "2*x": lambda m, x, y: 2 * x, "x/2": lambda m, x, y: x / 2,
    "x+1": lambda m, x, y: x + 1, "1+x": lambda m, x, y: 1 + x, "x-2": lambda m, x, y: x - 2,
    "add_alpha": lambda m, x, y: x.add(1, alpha=2), "sub_alpha": lambda m, x, y: x.sub(y, alpha=3),
    "torch.mul": lambda m, x, y: m.mul(x, 2.5), "torch.add": lambda m, x, y: m.add(x, 1),
    "true_divide": lambda m, x, y: m.true_divide(x, 2),
    # PyTorch's reflected ops: 2 - x is rsub(x, 2) (one edge); 2 / x is reciprocal(x) * 2
    "2-x": lambda m, x, y: 2 - x, "rsub_scalar": lambda m, x, y: m.rsub(x, 2, alpha=2),
    "rsub_tensor": lambda m, x, y: m.rsub(x, y), "2/x": lambda m, x, y: 2 / x,
    "x**2": lambda m, x, y: x ** 2, "2**x": lambda m, x, y: 2 ** x, "x**y": lambda m, x, y: x ** y,
    "y**x": lambda m, x, y: y ** x,
    # tensor operands that need no gradient keep their slot too, in argument order
    "x+y": lambda m, x, y: x + y, "y+x": lambda m, x, y: y + x, "x*y": lambda m, x, y: x * y,
    "y/x": lambda m, x, y: y / x, "x-y": lambda m, x, y: x - y, "x*t0": lambda m, x, y: x * m.tensor(2.0),
    "x*x": lambda m, x, y: x * x,
    # rounding division: DivBackward2 (zero gradient); floor_divide and remainder(number, tensor) have no
    # derivative (PyTorch's NotImplemented node, with edges for the inputs that require grad)
    "div_trunc": lambda m, x, y: x.div(2, rounding_mode="trunc"),
    "div_floor": lambda m, x, y: x.div(y, rounding_mode="floor"),
    "x//2": lambda m, x, y: x // 2, "x//y": lambda m, x, y: x // y, "2%x": lambda m, x, y: 2 % x,
    "x%2": lambda m, x, y: x % 2, "x%y": lambda m, x, y: x % y,
    "fmod_scalar": lambda m, x, y: m.fmod(x, 2), "xlogy_ts": lambda m, x, y: m.xlogy(x, 2),
    "xlogy_st": lambda m, x, y: m.xlogy(2, x), "copysign_ts": lambda m, x, y: m.copysign(x, -1),
    "atan2": lambda m, x, y: m.atan2(x, y), "hypot": lambda m, x, y: m.hypot(y, x),
    "where_scalar": lambda m, x, y: m.where(y > 0, x, 0.0), "where_scalar_first": lambda m, x, y: m.where(y > 0, 1.0, x),
    "where": lambda m, x, y: m.where(y > 0, y, x),
    "clamp_scalars": lambda m, x, y: x.clamp(-0.5, 0.5), "clamp_tensor": lambda m, x, y: x.clamp(min=y),
    "maximum": lambda m, x, y: m.maximum(y, x), "lerp": lambda m, x, y: m.lerp(x, y, 0.3),
    "addcmul": lambda m, x, y: m.addcmul(y, x, y, value=2),
    # in-place forms keep the out-of-place node's edges
    "mul_": lambda m, x, y: x.clone().mul_(2), "add_": lambda m, x, y: x.clone().add_(y),
    "div_": lambda m, x, y: x.clone().div_(2), "floor_divide_": lambda m, x, y: x.clone().floor_divide_(2),
    # reductions, unary ops, matrix products, views
    "sum": lambda m, x, y: x.sum(), "sum_dim": lambda m, x, y: x.sum(0), "mean": lambda m, x, y: x.mean(),
    "mean_dim": lambda m, x, y: x.mean(-1, keepdim=True), "relu": lambda m, x, y: x.relu(),
    "chain": lambda m, x, y: ((x * 2 + 1).relu() / 3).mean(),
    "matmul": lambda m, x, y: x @ y.t(), "matmul_rev": lambda m, x, y: y @ x.t(),
    "mm": lambda m, x, y: m.mm(x, y.t()),
    "addmm": lambda m, x, y: m.addmm(y[:, 0], x, y.t()), "addmm_bias": lambda m, x, y: m.addmm(x[:, 0], y, x.t()),
    "linear": lambda m, x, y: m.nn.functional.linear(y, x), "linear_bias": lambda m, x, y: m.nn.functional.linear(
        y, x, x[:, 0]),
    "view": lambda m, x, y: x.view(-1), "reshape_t": lambda m, x, y: x.reshape(3, 2).t(),
    "slice": lambda m, x, y: x[1:], "select": lambda m, x, y: x[:, 0], "unsqueeze_expand": lambda m, x, y: x.unsqueeze(0).expand(2, 2, 3),
    "permute_squeeze": lambda m, x, y: x.unsqueeze(1).permute(2, 0, 1).squeeze(2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_next_functions_match_torch(name, device):
    xv, yv = rand(2, 3) + 2.0, rand(2, 3) + 2.0
    x_t, y_t = torch.tensor(xv, requires_grad=True), torch.tensor(yv)
    x_w, y_w = webtorch.tensor(xv, device=device, requires_grad=True), webtorch.tensor(yv, device=device)
    ref = CASES[name](torch, x_t, y_t)
    ours = CASES[name](webtorch, x_w, y_w)
    assert edges(ours.grad_fn) == edges(ref.grad_fn)
    assert ours.grad_fn.name() == ref.grad_fn.name()


@pytest.mark.parametrize("name", ["x*2", "x/2", "x+1", "x-2", "2-x", "2/x", "y/x", "x*y", "where_scalar",
                                  "clamp_tensor", "div_trunc", "chain"])
def test_scalar_slot_gradients_match_torch(name, device):
    xv, yv = rand(2, 3) + 2.0, rand(2, 3) + 2.0
    grads = []
    for lib in (torch, webtorch):
        kw = {} if lib is torch else {"device": device}
        x, y = lib.tensor(xv, requires_grad=True, **kw), lib.tensor(yv, **kw)
        CASES[name](lib, x, y).sum().backward()
        grads.append(x.grad.detach().cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6, atol=1e-6)


def test_not_differentiable_ops_raise_torch_error(device):
    x = webtorch.tensor(rand(3) + 2.0, device=device, requires_grad=True)
    for op, out in (("floor_divide", x // 2), ("remainder", 2 % x), ("heaviside", x.heaviside(x))):
        with pytest.raises(RuntimeError, match=f"derivative for aten::{op} is not implemented"):
            out.sum().backward()
    assert (x.detach() // 2).grad_fn is None


def test_scalar_mul_second_backward_raises():
    x = webtorch.ones(3, requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
