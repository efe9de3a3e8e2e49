"""The __torch_function__ protocol against PyTorch's: a logging Tensor subclass sees the same calls and gives the
same result types, an object that is no Tensor takes over the functions it implements, dispatch order and
NotImplemented, the torch.overrides helpers, DisableTorchFunctionSubclass and TorchFunctionMode."""
import pytest
import torch

import webtorch


def _logging_subclass(lib):
    class Logged(lib.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)
    return Logged


def _program(lib, Logged):
    """What a user does with the subclass; returns the result types."""
    x = lib.tensor([1.0, -2.0, 3.0]).as_subclass(Logged)
    plain = lib.tensor([0.5, 0.5, 0.5])
    out = [x + 1, plain * x, lib.add(x, plain), lib.nn.functional.relu(x), x.sum(), lib.cat([plain, x]),
           x.max(dim=0), x[1:], lib.nn.functional.linear(x, lib.ones(2, 3))]
    y = x.clone()
    y.add_(1)
    out.append(y)
    return [type(o).__name__ if not isinstance(o, tuple) else [type(v).__name__ for v in o] for o in out]


def test_a_logging_subclass_sees_torchs_calls_and_keeps_its_type():
    runs = []
    for lib in (torch, webtorch):
        Logged = _logging_subclass(lib)
        types = _program(lib, Logged)
        runs.append((types, Logged.calls))
    assert runs[0][0] == runs[1][0]
    assert runs[1][1] == runs[0][1]


def test_the_subclass_gets_values_right_and_autograd_flows():
    Logged = _logging_subclass(webtorch)
    x = webtorch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = (x.as_subclass(Logged) * 2).sum()
    assert type(y) is Logged and y.item() == 4.0
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0] and type(x.grad) is webtorch.Tensor


def test_parameters_and_plain_tensors_take_no_part():
    p = webtorch.nn.Parameter(webtorch.ones(2))
    assert type(p * 2) is webtorch.Tensor and type(webtorch.add(p, 1)) is webtorch.Tensor
    for lib in (torch, webtorch):
        assert not lib.overrides.has_torch_function((lib.ones(1), lib.nn.Parameter(lib.ones(1)), 3, None))
        assert lib.overrides.has_torch_function_unary(lib.ones(1).as_subclass(_logging_subclass(lib)))
        assert lib.overrides.is_tensor_like(lib.ones(1)) and not lib.overrides.is_tensor_like(3)


class Scalar:
    """A number that is no Tensor but answers torch.mean, torch.add and torch.nn.functional.relu itself (the pattern
    of PyTorch's "extending torch" guide, written for this test)."""

    def __init__(self, n, value):
        self.n, self.value = n, value

    def __repr__(self):
        return f"Scalar(n={self.n}, value={self.value})"

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.__name__
        if name == "mean":
            return args[0].value
        if name == "add":
            a, b = args
            av = a.value if isinstance(a, Scalar) else a
            bv = b.value if isinstance(b, Scalar) else b
            return Scalar(args[0].n if isinstance(args[0], Scalar) else args[1].n, av + bv)
        if name == "relu":
            return Scalar(args[0].n, max(args[0].value, 0.0))
        return NotImplemented


def test_an_object_that_is_no_tensor_takes_over_functions():
    for lib in (torch, webtorch):
        s = Scalar(5, -2.0)
        assert lib.mean(s) == -2.0
        assert repr(lib.add(s, 3.0)) == "Scalar(n=5, value=1.0)"
        assert repr(lib.nn.functional.relu(s)) == "Scalar(n=5, value=0.0)"
        with pytest.raises(TypeError) as failed:
            lib.sum(s)
        assert str(failed.value) == (
            "Multiple dispatch failed for 'torch.sum'; all __torch_function__ handlers returned NotImplemented:\n\n"
            f"  - tensor subclass {Scalar}\n\nFor more information, try re-running with TORCH_LOGS=not_implemented")
        with pytest.raises(TypeError, match=r"^no implementation found for 'torch\.nn\.functional\.silu' on types "
                                            r"that implement __torch_function__: \[<class '.*Scalar'>\]$"):
            lib.nn.functional.silu(s)
        assert lib.overrides.has_torch_function((1, s)) and lib.overrides.is_tensor_like(s)


def test_dispatch_order_subclass_before_base_and_not_implemented():
    for lib in (torch, webtorch):
        order = []

        class A(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                order.append("A")
                return NotImplemented

        class B(A):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                order.append("B")
                return NotImplemented

        class C(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                order.append("C:" + ",".join(t.__name__ for t in types))
                return "C answered"

        a, b, c = (lib.ones(1).as_subclass(k) for k in (A, B, C))
        with pytest.raises(TypeError, match=f"^Multiple dispatch failed for 'torch.add'; all __torch_function__ "
                                            f"handlers returned NotImplemented:\n\n  - tensor subclass {B}\n  - "
                                            f"tensor subclass {A}\n"):
            lib.add(a, b)
        assert order == ["B", "A"]
        order.clear()
        with pytest.raises(TypeError, match="unsupported operand type"):  # the operator returned NotImplemented
            a + 1
        with pytest.raises(TypeError, match=r"^Multiple dispatch failed for 'torch.Tensor.sum'"):
            a.sum()
        order.clear()
        assert lib.mul(a, c, out=None) == "C answered" and order == ["A", "C:A,C"]


def test_disable_torch_function_subclass_gives_plain_ops():
    for lib in (torch, webtorch):
        Logged = _logging_subclass(lib)
        x = lib.ones(2).as_subclass(Logged)
        with lib._C.DisableTorchFunctionSubclass():
            y = lib.add(x, 1)
            z = x * 2
        assert Logged.calls == []
        assert (type(y).__name__, type(z).__name__) == ("Tensor", "Tensor")


def test_handle_torch_function_in_a_python_function():
    def scaled(x, k=2.0):
        if webtorch.overrides.has_torch_function_unary(x):
            return webtorch.overrides.handle_torch_function(scaled, (x,), x, k=k)
        return x * k

    assert scaled(webtorch.ones(1)).tolist() == [2.0]
    with pytest.raises(TypeError, match="no implementation found for '.*scaled'"):
        scaled(Scalar(1, 3.0))  # Scalar answers no "scaled"


def test_torch_function_mode_sees_functions_and_methods():
    runs = []
    for lib in (torch, webtorch):
        class Recorder(lib.overrides.TorchFunctionMode):
            def __init__(self):
                super().__init__()
                self.seen = []

            def __torch_function__(self, func, types, args=(), kwargs=None):
                self.seen.append(func.__name__)
                return func(*args, **(kwargs or {}))

        x = lib.ones(3)
        with Recorder() as rec:
            y = lib.add(x, 1).mul(2)
            z = lib.nn.functional.relu(y - 5)
        runs.append((rec.seen, z.tolist()))
        assert type(x + 1) is lib.Tensor  # after the mode: plain again
    assert runs[0] == runs[1]
