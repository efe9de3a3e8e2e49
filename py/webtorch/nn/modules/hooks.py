"""Module hook plumbing: the full backward hooks (handles and hook tables are autograd/hooks.py's).

A full backward hook needs the gradients with respect to a module's inputs and outputs. Like PyTorch's
BackwardHook, the module's tensor inputs and outputs pass through an identity autograd Function; the
node on the outputs sees grad_output first (backward pre-hooks run there), the node on the inputs then
sees grad_input, and the full backward hooks run with both.
"""
from ..._tensor import Tensor
from ...autograd.function import Function


class BackwardHookFunction(Function):
    """Identity on a group of tensors; its grad_fn is where a module's backward hooks attach."""

    @staticmethod
    def forward(ctx, *args):
        outs = tuple(a.detach() for a in args)
        ctx.mark_non_differentiable(*[o for o, a in zip(outs, args) if not a.requires_grad])
        return outs

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _tensor_positions(values):
    return [i for i, v in enumerate(values) if isinstance(v, Tensor)]


def _wrap_tensors(values, on_node):
    """values with their tensors replaced by BackwardHookFunction outputs; on_node(grad_fn, n_tensors)."""
    pos = _tensor_positions(values)
    if not pos or not any(values[i].requires_grad for i in pos):
        return values, len(pos), False
    outs = BackwardHookFunction.apply(*[values[i] for i in pos])
    new = list(values)
    for i, o in zip(pos, outs):
        new[i] = o
    node = next(o.grad_fn for o in outs if o.grad_fn is not None)
    on_node(node, len(pos))
    return tuple(new), len(pos), True


def _replaced(res, grads, what):
    """A hook's result: None keeps grads; else the new grads (same count)."""
    if res is None:
        return grads
    if not isinstance(res, tuple):
        res = (res,)
    if len(res) != len(grads):
        raise RuntimeError(f"{what}, got {len(res)}, but expected {len(grads)}")
    return res


class BackwardHook:
    """Runs a module's full backward hooks (and backward pre-hooks) for one forward call."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_tracked = False

    def _run_full_hooks(self, grad_inputs):
        for hook in self.user_hooks:
            grad_inputs = _replaced(hook(self.module, grad_inputs, self.grad_outputs), grad_inputs,
                                    "Backward hook returned an invalid number of grad_input")
        return grad_inputs

    def setup_input_hook(self, args):
        def on_node(node, n):
            def hook(grad_inputs, _grad_outputs):
                if not self.user_hooks:
                    return None
                return self._run_full_hooks(tuple(grad_inputs))
            node.register_hook(hook)

        new_args, self.n_inputs, self.input_tracked = _wrap_tensors(tuple(args), on_node)
        return new_args

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        values = (result,) if single else result
        if not isinstance(values, tuple):
            return result

        def on_node(node, n):
            def pre_hook(grad_outputs):
                grads = tuple(grad_outputs)
                for hook in self.user_pre_hooks:
                    grads = _replaced(hook(self.module, grads), grads,
                                      "Backward pre hook returned an invalid number of grad_output")
                self.grad_outputs = grads
                if not self.input_tracked and self.user_hooks:
                    # no input requires grad: PyTorch calls the hooks now with grad_input all None
                    self._run_full_hooks((None,) * self.n_inputs)
                return grads
            node.register_prehook(pre_hook)

        new, _, _ = _wrap_tensors(values, on_node)
        return new[0] if single else new
