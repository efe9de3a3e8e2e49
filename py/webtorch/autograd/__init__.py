"""torch.autograd: backward, grad, Function, grad modes."""
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: F401
from .graph import Node, run_backward  # noqa: F401
from .function import Function, once_differentiable  # noqa: F401
from . import graph  # noqa: F401
from . import function  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck, GradcheckError  # noqa: F401
from . import functional  # noqa: F401


def _roots(tensors, grad_tensors, create_graph):
    Tensor = graph.Tensor  # (set once _tensor.py exists; an import here would cost per backward call)
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    tensors = tuple(tensors)
    if grad_tensors is None or isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,) * len(tensors) if grad_tensors is None else (grad_tensors,)
    grads = []
    for t, g in zip(tensors, grad_tensors):
        if g is None:
            if not t.requires_grad:
                raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = t.new_ones(t._be.shape(t._data))
        elif tuple(g.shape) != tuple(t.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and output[0] has a "
                               f"shape of {t.shape}.")
        grads.append(g if create_graph else g.detach())
    return tensors, grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    Tensor = graph.Tensor
    tensors, grads = _roots(tensors, grad_tensors, create_graph)
    if inputs is not None:
        inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        for t in inputs:
            if t.grad_fn is not None:
                t.retain_grad()  # as PyTorch: a non-leaf input receives .grad through retain_grad
    run_backward(tensors, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs,
                 accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None,
         is_grads_batched=False, materialize_grads=False):
    from .._tensor import Tensor
    outputs, grads = _roots(outputs, grad_outputs, create_graph)
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    res = run_backward(outputs, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs,
                       allow_unused=bool(allow_unused) or materialize_grads, accumulate=False)
    if materialize_grads:
        from ..ops.creation import zeros_like
        res = tuple(r if r is not None else zeros_like(i) for r, i in zip(res, inputs))
    return res
from .variable import Variable  # noqa: F401
