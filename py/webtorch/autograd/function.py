"""torch.autograd.Function: user-defined ops with their own forward and backward."""
import functools

from .tensor_base import TensorBase
from .graph import Node, attach, apply_op
from .grad_mode import state


class FunctionCtx(Node):
    """The ctx of a custom Function; also its grad_fn (named ``<Function>Backward``)."""
    _fn_cls = None
    _fresh_outputs = False  # a user backward may return tensors it keeps elsewhere
    _engine_materializes = False  # ctx.set_materialize_grads decides

    def apply(self, *grads):
        cls = self._fn_cls
        if self._materialize and self._out_meta is not None:
            ref = next((g for g in grads if g is not None), None)  # zeros are made with its new_zeros
            if ref is not None:
                grads = tuple(g if g is not None else ref.new_zeros(m[0], dtype=m[1], device=m[2])
                              for g, m in zip(grads, self._out_meta))
        res = cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n_args = len(self._arg_is_tensor)
        if len(res) < n_args:
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                               f"(expected {n_args}, got {len(res)})")
        return tuple(g for g, is_t in zip(res, self._arg_is_tensor) if is_t)


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (FunctionCtx,), {"_fn_cls": cls})


class Function(metaclass=_FunctionMeta):
    """Subclass with staticmethods forward(ctx, *args) and backward(ctx, *grad_outputs); call ``apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    setup_context = None
    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        is_t = tuple(isinstance(a, TensorBase) for a in args)
        inputs = [a for a in args if isinstance(a, TensorBase)]
        ctx = cls._backward_cls()
        ctx._arg_is_tensor = is_t
        ctx.needs_input_grad = tuple(isinstance(a, TensorBase) and a.requires_grad for a in args)
        prev = state.enabled
        state.enabled = False
        try:
            if cls.setup_context is not None and cls.setup_context is not Function.setup_context:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        finally:
            state.enabled = prev
        if not (prev and any(t.requires_grad for t in inputs)):
            return out
        # an input returned unchanged must become a new tensor carrying the graph (PyTorch: a view)
        if isinstance(out, tuple):
            out = tuple(o.detach() if any(o is i for i in inputs) else o for o in out)
            node_out = out
        else:
            if any(out is i for i in inputs):
                out = out.detach()
            node_out = out
        attach(ctx, inputs, node_out)
        if not isinstance(out, tuple):
            ctx._out_meta = ((out.shape, out.dtype, out.device),)
        return out


class DelayedError(Node):
    """Stands after a once_differentiable backward: differentiating through it again raises."""

    @staticmethod
    def forward(ctx, *grads):
        outs = tuple(g.detach() for g in grads)
        return outs if len(outs) > 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


DelayedError.__name__ = DelayedError.__qualname__ = "Error"  # the node name PyTorch shows


def once_differentiable(fn):
    """Decorates a Function's backward that is not itself differentiable (runs without grad; a double
    backward through it raises PyTorch's error)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = state.enabled
        state.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            state.enabled = prev
        if not prev or not any(isinstance(a, TensorBase) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        fakes = [o.detach().requires_grad_() if isinstance(o, TensorBase) else o for o in outs]
        tensors = [f for f in fakes if isinstance(f, TensorBase)]
        if not tensors:
            return outputs
        res = apply_op(DelayedError, *tensors)
        res = iter(res if isinstance(res, tuple) else (res,))
        wrapped = tuple(next(res) if isinstance(f, TensorBase) else f for f in fakes)
        return wrapped[0] if single else wrapped
    return wrapper
