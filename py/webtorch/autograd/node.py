"""Node (a backward function), the contexts forward runs with, and AccumulateGrad (a leaf's gradient sink).

A built-in op is a Node subclass named as PyTorch names it (``MulBackward0``) with two staticmethods side
by side: ``forward(ctx, *args)`` computes the result (nothing inside records history), ``backward(ctx,
*grads)`` returns one gradient per tensor input (per operand position, for a node that declares
``_operands``), written with Tensor ops so double backward works. ``graph.apply_op`` runs the forward and,
when a gradient is needed, makes the Node the result's ``grad_fn``.
"""
import weakref

from .grad_mode import state
from .hooks import add_hook, hook_dict

_FREED = object()


class _AllFalse:
    def __getitem__(self, i):
        return False

    def __iter__(self):
        return iter(())


class _NoGradCtx:
    """Context handed to forward when nothing needs a gradient: saving is free. A fresh one per call
    (attributes land in a dict that dies with it, which is cheaper than ignoring them in __setattr__)."""
    needs_input_grad = _AllFalse()

    def save_for_backward(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        pass



def recording(ctx):
    """True when forward runs for a graph (save what backward needs); False on the no-grad path."""
    return type(ctx) is not _NoGradCtx


class Node:
    # Rarely-set fields are class-level defaults (an instance sets them in its __dict__), so creating a
    # node per op costs no __init__.
    __slots__ = ("next_functions", "_in_meta", "needs_input_grad", "__weakref__", "__dict__")
    _saved = None
    _pre_hooks = None
    _hooks = None
    _tensor_hooks = None
    _n_out = 1
    _out_meta = None
    _non_diff = None
    _materialize = True
    _metadata = None
    _fresh_outputs = True  # built-in backward returns new tensors (or its inputs), never stored ones
    _engine_materializes = True  # the engine fills missing output grads with zeros before apply
    # Positions of the op's operands in forward's args, as PyTorch's node has one edge per operand: a Python
    # number there gets the edge (None, 0) (``(x * 2).grad_fn.next_functions`` has two entries) and backward
    # returns one gradient per position. Declaring them also promises that forward reads no other Tensor (so
    # when no operand requires grad, forward runs without toggling grad mode). None: every Tensor in args (and
    # inside list/tuple args), in order.
    _operands = None

    def __init__(self):
        self.next_functions = ()
        self._in_meta = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls._operands is not None and cls.__init__ is not Node.__init__:
            raise TypeError(f"{cls.__name__}: a Node that declares _operands is created without __init__ "
                            "(autograd.graph._record_operands); keep its state in class defaults")

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    # -- saving tensors for backward ---------------------------------------------------------------
    def save_for_backward(self, *tensors):
        saved = []
        for t in tensors:
            if t is None:
                saved.append(None)
                continue
            if t._inference:
                raise RuntimeError("Inference tensors cannot be saved for backward. To work around you can make a "
                                   "clone to get a normal tensor and use it in autograd.")
            saved.append((t, t._version[0]))
        self._saved = tuple(saved)

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is _FREED:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after "
                "they have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward.")
        if saved is None:
            return ()
        out = []
        for item in saved:
            if item is None:
                out.append(None)
                continue
            t, v = item
            if t._version[0] != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{t.type()} {list(t.shape)}]"
                    f"{f', which is output {t._out_nr} of {t.grad_fn.name()},' if t.grad_fn is not None else ''}"
                    f" is at version {t._version[0]}; "
                    f"expected version {v} instead. Hint: enable anomaly detection to find the operation that failed "
                    "to compute its gradient, with torch.autograd.set_detect_anomaly(True).")
            out.append(t)
        return tuple(out)

    def mark_non_differentiable(self, *tensors):
        self._non_diff = set(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self._materialize = bool(value)

    def _release(self):
        if self._saved is not None:
            self._saved = _FREED

    # -- hooks -------------------------------------------------------------------------------------
    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) -> None or new grad_inputs; runs after this node."""
        if self._hooks is None:
            self._hooks = hook_dict()
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) -> None or new grad_outputs; runs before this node."""
        if self._pre_hooks is None:
            self._pre_hooks = hook_dict()
        return add_hook(self._pre_hooks, fn)

    def _add_tensor_hook(self, index, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        table = self._tensor_hooks.get(index)
        if table is None:
            table = self._tensor_hooks[index] = hook_dict()
        return add_hook(table, fn)

    # -- running -----------------------------------------------------------------------------------
    def apply(self, *grads):
        return type(self).backward(self, *grads)

    def __call__(self, *grads):
        return self.apply(*grads)


class AccumulateGrad(Node):
    """Sink of a leaf tensor: adds the incoming gradient to ``variable.grad``."""
    __slots__ = ("variable",)

    def __init__(self, variable):
        Node.__init__(self)
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def apply(self, grad, owned=False):
        accumulate_grad(self.variable, grad, owned)
        return ()


def accumulate_grad(var, grad, owned=False):
    """PyTorch's AccumulateGrad: the first gradient is stored (stolen when nothing else refers to it,
    else copied), later ones are added in place -- or out of place when building a graph."""
    if var.grad is None:
        if state.enabled:
            var.grad = grad.clone()
        else:
            var.grad = grad.detach() if owned else grad.detach().clone()
    elif var.grad.is_sparse and not grad.is_sparse:
        var.grad = grad + var.grad  # the sum is dense: a new .grad
    elif state.enabled:
        var.grad = var.grad + grad
    else:
        var.grad.add_(grad)


def zero_grads(params, set_to_none=True):
    """Reset the ``.grad`` of every tensor in ``params``: to None, or to zeros in place (detached from any
    graph first), as Module.zero_grad and Optimizer.zero_grad do."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()


def accumulator(t):
    """The (unique, weakly held) AccumulateGrad node of a leaf tensor that requires grad."""
    ref = t._accum
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(t)
        t._accum = weakref.ref(node)
    return node
