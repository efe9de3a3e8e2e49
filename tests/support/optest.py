"""The op-test helper: run one lambda on webtorch and on PyTorch 2.13, compare everything.

    check(lambda m, x, y: m.add(x, y), rand(3, 4), rand(4), device=device)

``m`` is the library module (webtorch or torch). Arguments that are NumPy arrays become tensors on
``device`` (float arrays require grad when ``grad`` is true); other arguments are passed unchanged.
Compared: output structure, shapes, dtypes, values (float tolerance), then the gradient of every input
after backpropagating the same random weights through every floating-point output.
"""
import contextlib
import warnings

import numpy as np
import pytest
import torch

import webtorch

# The stream of rand/randint and of the gradient weights: tests/conftest.py seeds it in place from each test's node id
# (and, while a test module is imported, from the module's), so a test's numbers do not depend on the run's order.
RNG = np.random.default_rng(0)


def rand(*shape, low=-1.0, high=1.0, dtype=np.float32):
    return RNG.uniform(low, high, size=shape).astype(dtype)


def randint(low, high, *shape, dtype=np.int64):
    return RNG.integers(low, high, size=shape).astype(dtype)


def _to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().cpu().numpy())


def _flatten(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flatten(o))
        return res
    return [out]


def _make(lib, a, device, grad):
    if isinstance(a, np.ndarray):
        if lib is torch:
            t = torch.tensor(a)
        else:
            t = webtorch.tensor(a, device=device)
        if grad and a.dtype.kind == "f":
            t.requires_grad_(True)
        return t
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, np.ndarray) for x in a):
        return type(a)(_make(lib, x, device, grad) for x in a)
    return a


def _inputs(lib, args, device, grad):
    return [_make(lib, a, device, grad) for a in args]


def _leaves(ins):
    out = []
    for x in ins:
        if isinstance(x, (list, tuple)):
            out.extend(_leaves(x))
        elif hasattr(x, "requires_grad") and x.requires_grad:
            out.append(x)
    return out


def assert_close(ours, ref, atol, rtol, what):
    ours_np, ref_np = _to_np(ours), _to_np(ref)
    assert tuple(ours.shape) == tuple(ref.shape), f"{what}: shape {tuple(ours.shape)} != torch {tuple(ref.shape)}"
    assert str(ours.dtype) == str(ref.dtype), f"{what}: dtype {ours.dtype} != torch {ref.dtype}"
    if ref_np.dtype.kind in "fc":
        np.testing.assert_allclose(ours_np.astype(np.float64), ref_np.astype(np.float64), atol=atol, rtol=rtol,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(ours_np, ref_np, err_msg=what)


def check(fn, *args, device="cpu", atol=1e-5, rtol=1e-4, grad=True, grad_atol=None, grad_rtol=None,
          check_dtype=True):
    """Run fn(lib, *tensors) in both libraries; compare outputs and, if grad, all input gradients."""
    t_in = _inputs(torch, args, None, grad)
    w_in = _inputs(webtorch, args, device, grad)
    t_out = fn(torch, *t_in)
    w_out = fn(webtorch, *w_in)
    t_flat, w_flat = _flatten(t_out), _flatten(w_out)
    assert len(t_flat) == len(w_flat), f"{len(w_flat)} outputs, torch gives {len(t_flat)}"
    for i, (w, t) in enumerate(zip(w_flat, t_flat)):
        if isinstance(t, torch.Tensor):
            assert isinstance(w, webtorch.Tensor), f"output {i}: got {type(w).__name__}, expected a Tensor"
            if w.device.type != "cpu":
                assert str(w.device).startswith(device), f"output {i} on {w.device}, expected {device}"
            assert_close(w, t, atol, rtol, f"output {i}")
        else:
            assert w == t or (isinstance(t, float) and abs(w - t) <= atol + rtol * abs(t)), \
                f"output {i}: {w!r} != torch {t!r}"
    if not grad:
        return w_out
    t_leaves, w_leaves = _leaves(t_in), _leaves(w_in)
    if not t_leaves:
        return w_out
    t_terms, w_terms = [], []
    for w, t in zip(w_flat, t_flat):
        if isinstance(t, torch.Tensor) and t.requires_grad and t.dtype.is_floating_point:
            assert w.requires_grad, "output does not require grad but torch's does"
            weight = RNG.uniform(0.5, 1.5, size=tuple(t.shape)).astype(np.float64)
            t_terms.append((t * torch.tensor(weight, dtype=t.dtype)).sum())
            w_terms.append((w * webtorch.tensor(weight, dtype=w.dtype, device=w.device)).sum())
    if not t_terms:
        return w_out
    t_grads = torch.autograd.grad(sum(t_terms), t_leaves, allow_unused=True)
    w_grads = webtorch.autograd.grad(sum(w_terms), w_leaves, allow_unused=True)
    for i, (wg, tg) in enumerate(zip(w_grads, t_grads)):
        if tg is None:
            assert wg is None or not np.any(_to_np(wg)), f"grad {i}: torch has none, ours is nonzero"
            continue
        assert wg is not None, f"grad {i}: torch has a gradient, webtorch has none"
        assert_close(wg, tg, grad_atol or atol, grad_rtol or rtol, f"grad of input {i}")
    return w_out


def check_error(fn, *args, device="cpu", match=None):
    """Both libraries raise the same exception type for fn; ours' message contains ``match`` if given."""
    t_exc = w_exc = None
    try:
        fn(torch, *_inputs(torch, args, None, False))
    except Exception as e:  # noqa: BLE001
        t_exc = e
    try:
        fn(webtorch, *_inputs(webtorch, args, device, False))
    except Exception as e:  # noqa: BLE001
        w_exc = e
    assert t_exc is not None, "torch did not raise"
    assert w_exc is not None, f"webtorch did not raise; torch raised {type(t_exc).__name__}: {t_exc}"
    assert isinstance(w_exc, type(t_exc)) or type(t_exc).__name__ in [c.__name__ for c in type(w_exc).__mro__], \
        f"webtorch raised {type(w_exc).__name__}: {w_exc}; torch raised {type(t_exc).__name__}: {t_exc}"
    if match is not None:
        assert match in str(w_exc), f"message {str(w_exc)!r} lacks {match!r}"
    return w_exc


def check_same_error(fn):
    """fn(lib) raises, for torch and for webtorch, an exception of the same type with the same message
    (warnings on the way are ignored)."""
    caught = []
    for lib in (torch, webtorch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                fn(lib)
        caught.append(info.value)
    assert type(caught[1]).__name__ == type(caught[0]).__name__, caught
    assert str(caught[1]) == str(caught[0])


@contextlib.contextmanager
def webgpu_dtype_error(device, when=True, error=TypeError, match="float64"):
    """Wraps a test body that feeds a dtype the webgpu device lacks (float64, as on PyTorch's MPS): on cpu (or
    when ``when`` is false) the body runs as is; on webgpu it must raise ``error`` with ``match`` in it."""
    if device == "cpu" or not when:
        yield
        return
    with pytest.raises(error, match=match):
        yield
