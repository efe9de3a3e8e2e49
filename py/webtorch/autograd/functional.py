"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp (reverse mode, built on autograd.grad)."""
from .tensor_base import TensorBase
from .api import grad
from .grad_mode import state


def _is_tensor(x):
    return isinstance(x, TensorBase)


def _tuple(x, what, fn):
    if _is_tensor(x):
        return False, (x,)
    if isinstance(x, (tuple, list)) and all(_is_tensor(t) for t in x):
        return True, tuple(x)
    raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the value "
                    f"given is {type(x).__name__}.")


def _prepare(inputs, create_graph):
    """Fresh differentiable inputs: detached, or views that keep the outer graph when create_graph."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(True)
                 for t in inputs)


def _finish(xs, create_graph):
    return tuple(None if x is None else (x if create_graph else x.detach()) for x in xs)


def _grads(outputs, inputs, grad_outputs, create_graph):
    outs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not outs:
        return tuple(i.new_zeros(i.shape) for i in inputs)
    res = grad([o for o, _ in outs], inputs, grad_outputs=[g for _, g in outs], create_graph=True,
               retain_graph=True, allow_unused=True)
    return tuple(r if r is not None else i.new_zeros(i.shape) for r, i in zip(res, inputs))


def _run(func, inputs):
    prev = state.enabled
    state.enabled = True
    try:
        out = func(*inputs)
    finally:
        state.enabled = prev
    return out


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J) with the structure of inputs."""
    is_seq, inputs = _tuple(inputs, "inputs", "vjp")
    xs = _prepare(inputs, create_graph)
    out = _run(func, xs)
    out_seq, outs = _tuple(out, "outputs of the user-provided function", "vjp")
    if v is None:
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                               "Tensor with a single element.")
        vs = (outs[0].new_ones(outs[0].shape),)
    else:
        vs = _tuple(v, "v", "vjp")[1]
    with_grad = state.enabled
    state.enabled = True
    try:
        res = _grads(outs, xs, vs, create_graph)
    finally:
        state.enabled = with_grad
    outs, res = _finish(outs, create_graph), _finish(res, create_graph)
    return (outs if out_seq else outs[0]), (res if is_seq else res[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v) with the structure of the outputs (the double-vjp trick)."""
    is_seq, inputs = _tuple(inputs, "inputs", "jvp")
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        vs = (inputs[0].new_ones(inputs[0].shape),)
    else:
        vs = _tuple(v, "v", "jvp")[1]
    xs = _prepare(inputs, create_graph)
    prev = state.enabled
    state.enabled = True
    try:
        out = func(*xs)
        out_seq, outs = _tuple(out, "outputs of the user-provided function", "jvp")
        us = tuple(o.new_zeros(o.shape).requires_grad_(True) for o in outs)
        g = _grads(outs, xs, us, True)  # u -> J^T u is linear in u; its vjp with v is J v
        res = _grads(g, us, vs, create_graph)
    finally:
        state.enabled = prev
    outs, res = _finish(outs, create_graph), _finish(res, create_graph)
    return (outs if out_seq else outs[0]), (res if out_seq else res[0])


def _jacobian_rows(out, xs, create_graph):
    """For one output: per input, the Jacobian of shape out.shape + input.shape, assembled from one vjp
    per output element as sum_m e_m (x) row_m (differentiable, so create_graph works)."""
    n = out.numel()
    flat = out.reshape(-1)
    acc = [None] * len(xs)
    for m in range(n):
        e = _onehot(n, m, out)
        gs = _grads((flat,), xs, (e,), create_graph)
        for i, g in enumerate(gs):
            term = e.reshape(n, 1) * g.reshape(1, -1)
            acc[i] = term if acc[i] is None else acc[i] + term
    res = []
    for a, x in zip(acc, xs):
        shape = tuple(out.shape) + tuple(x.shape)
        res.append(x.new_zeros(shape) if a is None else a.reshape(shape))
    return res


def _onehot(n, m, like):
    vals = [0.0] * n
    vals[m] = 1.0
    return like.new_tensor(vals)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d outputs / d inputs: a Tensor (out.shape + in.shape) per (output, input) pair, nested as PyTorch."""
    if strategy != "reverse-mode":
        raise RuntimeError("webtorch computes jacobian in reverse mode only; use strategy='reverse-mode'")
    is_seq, inputs = _tuple(inputs, "inputs", "jacobian")
    xs = _prepare(inputs, create_graph)
    prev = state.enabled
    state.enabled = True
    try:
        out = func(*xs)
        out_seq, outs = _tuple(out, "outputs of the user-provided function", "jacobian")
        per_out = [_finish(_jacobian_rows(o, xs, create_graph), create_graph) for o in outs]
    finally:
        state.enabled = prev
    per_out = [tuple(r) if is_seq else r[0] for r in per_out]
    return tuple(per_out) if out_seq else per_out[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """Second derivatives of a scalar function: in.shape + in.shape per input pair."""
    is_seq, inputs = _tuple(inputs, "inputs", "hessian")

    def grad_fn(*xs):
        out = func(*xs)
        if not _is_tensor(out) or out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        g = _grads((out.reshape(()),), xs, (_onehot(1, 0, out).reshape(()),), True)
        return g

    res = jacobian(grad_fn, inputs, create_graph=create_graph)  # res[i][j]: d grad_i / d input_j
    return res if is_seq else res[0][0]


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H)."""
    is_seq, inputs = _tuple(inputs, "inputs", "vhp")
    vs = _tuple(v, "v", "vhp")[1]
    xs = _prepare(inputs, create_graph)
    prev = state.enabled
    state.enabled = True
    try:
        out = func(*xs)
        if not _is_tensor(out) or out.numel() != 1:
            raise RuntimeError("The function given in vhp should return a single Tensor with a single element.")
        g = _grads((out,), xs, (_onehot(1, 0, out).reshape(tuple(out.shape)),), True)
        res = _grads(g, xs, vs, create_graph)
    finally:
        state.enabled = prev
    out, res = _finish((out,), create_graph)[0], _finish(res, create_graph)
    return out, (res if is_seq else res[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v); H is symmetric for the twice-differentiable functions this is meant for."""
    return vhp(func, inputs, v, create_graph=create_graph, strict=strict)
