"""torch.autograd.backward and torch.autograd.grad: check the roots and their gradients, then run the engine."""
from .tensor_base import TensorBase
from .engine import run_backward


def _roots(tensors, grad_tensors, create_graph):
    if isinstance(tensors, TensorBase):
        tensors = (tensors,)
    tensors = tuple(tensors)
    if grad_tensors is None or isinstance(grad_tensors, TensorBase):
        grad_tensors = (grad_tensors,) * len(tensors) if grad_tensors is None else (grad_tensors,)
    grads = []
    for t, g in zip(tensors, grad_tensors):
        if g is None:
            if not t.requires_grad:
                raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = t.new_ones(t.shape)
        elif tuple(g.shape) != tuple(t.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and output[0] has a "
                               f"shape of {t.shape}.")
        grads.append(g if create_graph else g.detach())
    return tensors, grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    tensors, grads = _roots(tensors, grad_tensors, create_graph)
    if inputs is not None:
        inputs = (inputs,) if isinstance(inputs, TensorBase) else tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        for t in inputs:
            if t.grad_fn is not None:
                t.retain_grad()  # as PyTorch: a non-leaf input receives .grad through retain_grad
    run_backward(tensors, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs,
                 accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None,
         is_grads_batched=False, materialize_grads=False):
    outputs, grads = _roots(outputs, grad_outputs, create_graph)
    single = isinstance(inputs, TensorBase)
    inputs = (inputs,) if single else tuple(inputs)
    res = run_backward(outputs, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs,
                       allow_unused=bool(allow_unused) or materialize_grads, accumulate=False)
    if materialize_grads:
        res = tuple(r if r is not None else i.new_zeros(i.shape) for r, i in zip(res, inputs))
    return res
