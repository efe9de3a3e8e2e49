"""Autograd against PyTorch 2.13: graph structure, backward/grad options, accumulation, grad modes, hooks,
custom Functions, saved-tensor errors, double backward and gradcheck."""
import numpy as np
import pytest
import torch

import webtorch
from optest import rand

LIBS = (torch, webtorch)


def leaf(lib, a, requires_grad=True, device="cpu"):
    if lib is torch:
        return torch.tensor(a, requires_grad=requires_grad)
    return webtorch.tensor(a, requires_grad=requires_grad, device=device)


def close(w, t, atol=1e-6, rtol=1e-5):
    assert (w is None) == (t is None), f"{w} vs {t}"
    if t is None:
        return
    assert tuple(w.shape) == tuple(t.shape) and str(w.dtype) == str(t.dtype)
    np.testing.assert_allclose(w.detach().cpu().numpy().astype(np.float64),
                               t.detach().numpy().astype(np.float64), atol=atol, rtol=rtol)


def version(t):
    """t._version: an int in PyTorch; webtorch keeps the shared counter cell there (int in _version_counter)."""
    return t._version if isinstance(t._version, int) else t._version_counter


def graph_sig(fn, depth=6):
    """(node class name, children) down the next_functions graph."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__, tuple((graph_sig(f, depth - 1), nr) for f, nr in fn.next_functions))


# ---- graph structure -------------------------------------------------------------------------------

GRAPHS = {
    "addmm": lambda m, x, w, b: m.addmm(b, x, w.t()),
    "mul_sum": lambda m, x, w, b: (x * w.sum(0)).sum(),
    "chain": lambda m, x, w, b: ((x @ w.t() + b).tanh().exp() / b).mean(),
    "views": lambda m, x, w, b: w.view(-1).reshape(4, 3).t().unsqueeze(0).sum(1),
    "mixed": lambda m, x, w, b: (b - w.sum(1) * b).pow(b),
    "unary": lambda m, x, w, b: x.sigmoid().relu().log1p().neg(),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_graph_node_names(name, device):
    x, w, b = rand(2, 4, dtype=np.float32), rand(3, 4, dtype=np.float32), rand(3, dtype=np.float32)
    outs = []
    for lib in LIBS:
        args = [leaf(lib, a, rg, device) if lib is webtorch else leaf(lib, a, rg)
                for a, rg in ((x, True), (w, True), (b, True))]
        outs.append(GRAPHS[name](lib, *args))
    t, wt = outs
    assert graph_sig(wt.grad_fn) == graph_sig(t.grad_fn)
    assert wt.grad_fn.name() == t.grad_fn.name()


def test_accumulate_grad_variable_and_leaf_edges():
    x = webtorch.ones(3, requires_grad=True)
    c = webtorch.ones(3)
    y = x * c
    (acc, nr), (none, nr2) = y.grad_fn.next_functions
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x and nr == 0
    assert none is None and nr2 == 0
    assert acc.name() == torch.ones(1, requires_grad=True).mul(1).grad_fn.next_functions[0][0].name()
    assert (x * 2).grad_fn.next_functions[0][0] is acc  # one AccumulateGrad per leaf
    assert x.grad_fn is None and x.is_leaf and not y.is_leaf
    assert webtorch.ones(2).mul(3).grad_fn is None


# ---- backward options --------------------------------------------------------------------------------

def test_backward_with_gradient_and_shape_mismatch():
    a = rand(3, 2, dtype=np.float32)
    g = rand(3, 2, dtype=np.float32)
    res = []
    for lib in LIBS:
        x = leaf(lib, a)
        (x * x).backward(lib.tensor(g))
        res.append(x.grad)
    close(*res)
    x = webtorch.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"torch.Size\(\[2\]\) and output\[0\] has a shape of "
                                           r"torch.Size\(\[3, 2\]\)"):
        (x * 2).backward(webtorch.ones(2))
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        webtorch.ones(2).sum().backward()


def test_backward_twice_errors_and_retain_graph():
    for lib in LIBS:
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        assert x.grad.tolist() == [4.0, 8.0, 12.0]
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            y.backward()


def test_accumulation_in_place_and_no_aliasing():
    for lib in LIBS:
        x = leaf(lib, [1.0, 2.0])
        x.sum().backward()
        g = x.grad
        x.sum().backward()
        assert x.grad is g and g.tolist() == [2.0, 2.0]  # accumulated in place
        a, b = leaf(lib, [1.0, 1.0]), leaf(lib, [1.0, 1.0])
        (a + b).sum().backward()
        assert a.grad is not b.grad
        a.sum().backward()
        assert b.grad.tolist() == [1.0, 1.0]
        u = leaf(lib, [1.0, 2.0])
        gout = lib.tensor([5.0, 6.0])
        u.clone().backward(gout)
        u.clone().backward(gout)
        assert gout.tolist() == [5.0, 6.0]  # the caller's gradient is never written to


def test_create_graph_builds_grad_graph():
    res = []
    for lib in LIBS:
        x = leaf(lib, [0.5, 1.5, -2.0])
        y = (x ** 3).sum()
        y.backward(create_graph=True)
        assert x.grad.requires_grad
        g1 = x.grad.clone()
        x.grad.sum().backward()  # d/dx sum(3x^2) = 6x, added to x.grad out of place
        res.append((g1, x.grad))
    close(res[0][0], res[1][0])
    close(res[0][1], res[1][1])


def test_backward_inputs_accumulates_only_there():
    for lib in LIBS:
        x, w = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        h = x * w
        h.retain_grad()
        out = (h * h).sum()
        out.backward(inputs=[w], retain_graph=True)
        assert x.grad is None and w.grad.tolist() == [2 * 3 * 1 * 1, 2 * 8 * 2]
        assert h.grad.tolist() == [6.0, 16.0]  # retain_grad fired on the way to w
        out.backward(inputs=[h])
        assert h.grad.tolist() == [12.0, 32.0]
        h2 = x * w
        (h2 * h2).sum().backward(inputs=[h2])
        assert h2.grad.tolist() == [6.0, 16.0] and h2.retains_grad and x.grad is None


# ---- autograd.grad -----------------------------------------------------------------------------------

def test_grad_allow_unused_materialize_create_graph():
    for lib in LIBS:
        x, z = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0])
        y = (x * x).sum()
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            lib.autograd.grad(y, (x, z), retain_graph=True)
        gx, gz = lib.autograd.grad(y, (x, z), allow_unused=True, retain_graph=True)
        assert gz is None and gx.tolist() == [2.0, 4.0]
        gx, gz = lib.autograd.grad(y, (x, z), materialize_grads=True, retain_graph=True)
        assert gz.tolist() == [0.0]
        (gx,) = lib.autograd.grad(y, x, create_graph=True)
        assert gx.requires_grad and x.grad is None
        (ggx,) = lib.autograd.grad(gx.sum(), x)
        assert ggx.tolist() == [2.0, 2.0]


def test_grad_with_grad_outputs_and_multiple_roots():
    a = rand(4, dtype=np.float32)
    res = []
    for lib in LIBS:
        x = leaf(lib, a)
        y1, y2 = x.exp(), x.sin()
        res.append(lib.autograd.grad([y1, y2], [x], grad_outputs=[lib.ones(4), lib.full((4,), 2.0)]))
    close(res[0][0], res[1][0])


def test_grad_does_not_run_unneeded_branches():
    calls = []
    x = webtorch.ones(2, requires_grad=True)
    w = webtorch.ones(2, requires_grad=True)
    a = x * 2
    b = w * 3
    b.register_hook(lambda g: calls.append("b"))
    webtorch.autograd.grad((a + b).sum(), x)
    assert calls == [] and w.grad is None


# ---- grad modes --------------------------------------------------------------------------------------

def test_grad_modes_context_and_decorators():
    for lib in LIBS:
        x = leaf(lib, [1.0])
        with lib.no_grad():
            assert not (x * 2).requires_grad and not lib.is_grad_enabled()
            with lib.enable_grad():
                assert (x * 2).requires_grad
            assert not lib.is_grad_enabled()
        assert lib.is_grad_enabled()

        @lib.no_grad()
        def f1(t):
            return t * 2

        @lib.no_grad
        def f2(t):
            return t * 2

        @lib.enable_grad()
        def f3(t):
            return t * 2

        @lib.inference_mode()
        def f4(t):
            return t * 2

        assert not f1(x).requires_grad and not f2(x).requires_grad and lib.is_grad_enabled()
        with lib.no_grad():
            assert f3(x).requires_grad
        assert not f4(x).requires_grad
        lib.set_grad_enabled(False)
        assert not lib.is_grad_enabled()
        lib.set_grad_enabled(True)
        with lib.set_grad_enabled(False):
            assert not (x * 2).requires_grad
        assert lib.is_grad_enabled()

        @lib.set_grad_enabled(False)
        def f5(t):
            return t * 2
        assert lib.is_grad_enabled() and not f5(x).requires_grad and lib.is_grad_enabled()
        with lib.inference_mode():
            assert lib.is_inference_mode_enabled() and not lib.is_grad_enabled()
            with lib.inference_mode(False):
                assert not lib.is_inference_mode_enabled()
        assert not lib.is_inference_mode_enabled()


def test_grad_mode_restored_after_exception():
    for lib in LIBS:
        with pytest.raises(ValueError):
            with lib.no_grad():
                raise ValueError("x")
        assert lib.is_grad_enabled()


def test_inference_tensors():
    for lib in LIBS:
        with lib.inference_mode():
            t = lib.ones(2)
            u = t * 2
        assert t.is_inference() and u.is_inference()
        assert not lib.ones(2).is_inference()
        with lib.no_grad():
            assert not lib.ones(2).is_inference()
        x = leaf(lib, [1.0, 2.0])
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            x * u


# ---- tensor flags --------------------------------------------------------------------------------------

def test_requires_grad_detach_retain_grad():
    for lib in LIBS:
        x = leaf(lib, [1.0, 2.0])
        y = x * 2
        with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
            y.requires_grad_(False)
        with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
            lib.ones(2, dtype=lib.int64).requires_grad_()
        d = y.detach()
        assert not d.requires_grad and d.grad_fn is None
        d.add_(1)
        assert y.tolist() == [3.0, 5.0] and version(y) == version(d) == 1
        y.retain_grad()
        assert y.retains_grad
        (y * y).sum().backward()
        assert y.grad.tolist() == [6.0, 10.0]
        z = x * 3
        z.detach_()
        assert not z.requires_grad and z.grad_fn is None


def test_tensor_hooks_modify_and_remove():
    for lib in LIBS:
        x = leaf(lib, [1.0, 2.0])
        h = x.register_hook(lambda g: g * 10)
        (x * 3).sum().backward()
        assert x.grad.tolist() == [30.0, 30.0]
        h.remove()
        x.grad = None
        (x * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
        x.grad = None
        y = x * 2
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()))
        y.register_hook(lambda g: g + 1)
        (y * y).sum().backward()
        assert seen == [[4.0, 8.0]] and x.grad.tolist() == [10.0, 18.0]
        with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
            lib.ones(1).register_hook(lambda g: g)


def test_node_hooks():
    for lib in LIBS:
        x = leaf(lib, [1.0, 2.0])
        y = x * 3
        seen = []
        pre = y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        post = y.grad_fn.register_hook(lambda gi, go: seen.append((gi[0].tolist(), go[0].tolist())))
        y.sum().backward()
        assert x.grad.tolist() == [6.0, 6.0] and seen == [([6.0, 6.0], [2.0, 2.0])]
        pre.remove()
        post.remove()
        x.grad = None
        (x * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0] and len(seen) == 1


# ---- custom Function -----------------------------------------------------------------------------------

def _functions(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x ** 3 * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2 * ctx.k, None

    class Scale(lib.autograd.Function):  # setup_context style
        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    class SplitNonDiff(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).to(lib.int64)
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, gidx):
            return g * 2

    class TwoOut(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.seen = (g1 is None, g2 is None)
            r = 0
            if g1 is not None:
                r = r + g1 * 2
            if g2 is not None:
                r = r + g2 * 3
            return r

    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    class Needs(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, n):
            ctx.flags = ctx.needs_input_grad
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    class Once(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x

    class WrongCount(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return (g,)

    return dict(Cube=Cube, Scale=Scale, SplitNonDiff=SplitNonDiff, TwoOut=TwoOut, Ident=Ident, Needs=Needs,
                Once=Once, WrongCount=WrongCount)


def test_custom_function_basic_and_setup_context():
    res = []
    for lib in LIBS:
        F = _functions(lib)
        x, y = leaf(lib, [1.0, -2.0]), leaf(lib, [3.0, 4.0])
        out = F["Cube"].apply(x, 2.0) + F["Scale"].apply(x, y)
        assert type(out.grad_fn.next_functions[0][0]).__name__ == "CubeBackward"
        out.sum().backward()
        res.append((x.grad, y.grad))
    close(res[0][0], res[1][0])
    close(res[0][1], res[1][1])


def test_custom_function_non_differentiable_materialize_ident_needs():
    for lib in LIBS:
        F = _functions(lib)
        x = leaf(lib, [1.0, -2.0])
        a, idx = F["SplitNonDiff"].apply(x)
        assert a.requires_grad and not idx.requires_grad
        a.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]

        x.grad = None
        o1, o2 = F["TwoOut"].apply(x)
        o1.sum().backward()
        assert o1.grad_fn.seen == (False, True) and x.grad.tolist() == [2.0, 2.0]

        x.grad = None
        i = F["Ident"].apply(x)
        assert i is not x and type(i.grad_fn).__name__ == "IdentBackward"
        i.sum().backward()
        assert x.grad.tolist() == [5.0, 5.0]

        c = lib.ones(2)
        s = F["Needs"].apply(c, x, 3)
        assert s.grad_fn.flags == (False, True, False)
        assert F["Needs"].apply(c, c, 3).requires_grad is False


def test_custom_function_once_differentiable_and_wrong_count():
    for lib in LIBS:
        F = _functions(lib)
        x = leaf(lib, [1.0, 3.0])
        y = F["Once"].apply(x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True, retain_graph=True)
        assert g.tolist() == [2.0, 6.0] and not g.requires_grad  # the incoming grad needs no grad
        go = lib.ones((), requires_grad=True)
        (g,) = lib.autograd.grad(y, x, grad_outputs=go, create_graph=True)
        assert g.tolist() == [2.0, 6.0] and type(g.grad_fn).__name__ == "Error"
        with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                               "@once_differentiable"):
            g.sum().backward()
        with pytest.raises(RuntimeError, match=r"function WrongCountBackward returned an incorrect number of "
                                               r"gradients \(expected 2, got 1\)"):
            F["WrongCount"].apply(x, leaf(lib, [1.0, 1.0])).sum().backward()


# ---- saved tensors and versions ------------------------------------------------------------------------

def test_modified_by_inplace_error():
    for lib in LIBS:
        x = leaf(lib, [1.0, 2.0, 3.0])
        e = x.exp()
        e.add_(1)
        with pytest.raises(RuntimeError, match=r"one of the variables needed for gradient computation has been "
                                               r"modified by an inplace operation: \[torch.FloatTensor \[3\]\], "
                                               r"which is output 0 of .*, is at version 1; expected version 0 "
                                               r"instead. Hint: enable anomaly detection"):
            e.sum().backward()
        c = lib.ones(3)
        y = x * c
        c.mul_(2)
        with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torch.FloatTensor \[3\]\] "
                                               r"is at version 1; expected version 0 instead"):
            y.sum().backward()
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place "
                                               "operation."):
            x.add_(1)
        assert version(x) == 0 and version(e) == 1


# ---- double backward -----------------------------------------------------------------------------------

DOUBLE = {
    "mul": (lambda m, a, b: a * b, 2),
    "div": (lambda m, a, b: a / (b.abs() + 0.5), 2),
    "pow_scalar": (lambda m, a, b: (a.abs() + 0.5) ** 2.5, 1),
    "pow_tensor": (lambda m, a, b: (a.abs() + 0.5) ** b, 2),
    "rpow": (lambda m, a, b: 2.0 ** a, 1),
    "exp": (lambda m, a, b: a.exp(), 1),
    "log": (lambda m, a, b: (a.abs() + 0.1).log(), 1),
    "tanh": (lambda m, a, b: a.tanh(), 1),
    "sigmoid": (lambda m, a, b: a.sigmoid(), 1),
    "relu": (lambda m, a, b: a.relu() * a, 1),
    "sqrt": (lambda m, a, b: (a * a + 1).sqrt(), 1),
    "sin_cos": (lambda m, a, b: a.sin() * b.cos(), 2),
    "matmul": (lambda m, a, b: (a @ b.t()) * a.sum(), 2),
    "mm": (lambda m, a, b: m.mm(a, b.t()).pow(2), 2),
    "sum_mean": (lambda m, a, b: (a.sum(0, keepdim=True) * b).mean(1) ** 2, 2),
    "softmax_like": (lambda m, a, b: a.exp() / a.exp().sum(1, keepdim=True), 1),
}


@pytest.mark.parametrize("name", sorted(DOUBLE))
def test_double_backward_matches_torch(name, device):
    fn, nin = DOUBLE[name]
    dt = np.float64 if device == "cpu" else np.float32  # webgpu has no float64
    tol = dict(atol=1e-10, rtol=1e-8) if device == "cpu" else dict(atol=1e-4, rtol=1e-3)
    data = [rand(3, 4, dtype=dt) for _ in range(2)]
    v = rand(3, 4, dtype=dt)
    res = []
    for lib in LIBS:
        ins = [lib.tensor(d, requires_grad=True, **({} if lib is torch else {"device": device})) for d in data]
        out = fn(lib, *ins)
        w = lib.tensor(np.resize(v, tuple(out.shape)), dtype=out.dtype,
                       **({} if lib is torch else {"device": device}))
        grads = lib.autograd.grad((out * w).sum(), ins[:nin], create_graph=True)
        s = sum((g * g).sum() for g in grads)
        res.append((grads, lib.autograd.grad(s, ins[:nin], allow_unused=True)))
    for a, b in zip(res[1][0], res[0][0]):
        close(a, b, **tol)
    for a, b in zip(res[1][1], res[0][1]):
        close(a, b, **tol)


@pytest.mark.parametrize("name", sorted(DOUBLE))
def test_gradcheck_and_gradgradcheck(name):
    fn, nin = DOUBLE[name]
    ins = [webtorch.tensor(rand(2, 3, dtype=np.float64), requires_grad=i < nin) for i in range(2)]
    assert webtorch.autograd.gradcheck(lambda a, b: fn(webtorch, a, b), ins)
    assert webtorch.autograd.gradgradcheck(lambda a, b: fn(webtorch, a, b), ins)


def test_gradcheck_detects_wrong_gradient():
    class Bad(webtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # should be 2x

    x = webtorch.tensor(rand(4, dtype=np.float64), requires_grad=True)
    assert webtorch.autograd.gradcheck(Bad.apply, (x,), raise_exception=False) is False
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0"):
        webtorch.autograd.gradcheck(Bad.apply, (x,))
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to require gradient"):
        webtorch.autograd.gradcheck(lambda a: a * 2, (webtorch.ones(2, dtype=webtorch.float64),))


# ---- autograd.functional -----------------------------------------------------------------------------

def test_functional_jacobian_hessian_vjp_jvp():
    a = rand(3, dtype=np.float64)
    b = rand(2, dtype=np.float64)
    v3 = rand(3, dtype=np.float64)
    res = []
    for lib in LIBS:
        AF = lib.autograd.functional
        x, y = lib.tensor(a), lib.tensor(b)
        f = lambda x: (x.exp() * x.sum())  # noqa: E731
        g = lambda x, y: (x.sin().sum() * y, (x * x).sum())  # noqa: E731
        h = lambda x: (x ** 3).sum() + (x * x).sum() ** 2  # noqa: E731
        res.append(dict(
            jac=AF.jacobian(f, x),
            jac2=AF.jacobian(g, (x, y)),
            hess=AF.hessian(h, x),
            vjp=AF.vjp(f, x, lib.tensor(v3)),
            jvp=AF.jvp(f, x, lib.tensor(v3)),
            hvp=AF.hvp(h, x, lib.tensor(v3)),
        ))
    t, w = res
    close(w["jac"], t["jac"], atol=1e-10)
    for i in range(2):
        for j in range(2):
            close(w["jac2"][i][j], t["jac2"][i][j], atol=1e-10)
    close(w["hess"], t["hess"], atol=1e-10)
    for k in ("vjp", "jvp", "hvp"):
        close(w[k][0], t[k][0], atol=1e-10)
        close(w[k][1], t[k][1], atol=1e-10)
