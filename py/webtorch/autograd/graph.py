"""The autograd graph: Node (a backward function), AccumulateGrad, and the backward engine.

A built-in op is a Node subclass named as PyTorch names it (``MulBackward0``) with two staticmethods side
by side: ``forward(ctx, *args)`` computes the result (autograd is off inside), ``backward(ctx, *grads)``
returns one gradient per tensor input, written with Tensor ops so double backward works. ``apply_op``
runs the forward and, when a gradient is needed, makes the Node the result's ``grad_fn``.
"""
import weakref

from .grad_mode import state

_FREED = object()


class _AllFalse:
    def __getitem__(self, i):
        return False

    def __iter__(self):
        return iter(())


class _NoGradCtx:
    """Context handed to forward when nothing needs a gradient: saving is free, attributes are ignored."""
    needs_input_grad = _AllFalse()

    def save_for_backward(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        pass

    def __setattr__(self, name, value):
        pass


NO_GRAD_CTX = _NoGradCtx()


def recording(ctx):
    """True when forward runs for a graph (save what backward needs); False on the no-grad path."""
    return ctx is not NO_GRAD_CTX


class Node:
    __slots__ = ("next_functions", "_saved", "_in_meta", "needs_input_grad", "_pre_hooks", "_hooks",
                 "_tensor_hooks", "_n_out", "_out_meta", "_non_diff", "metadata", "__weakref__", "__dict__")

    def __init__(self):
        self.next_functions = ()
        self._saved = None
        self._pre_hooks = None
        self._hooks = None
        self._tensor_hooks = None
        self._n_out = 1
        self._out_meta = None
        self._non_diff = None
        self.metadata = {}

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    # -- saving tensors for backward ---------------------------------------------------------------
    def save_for_backward(self, *tensors):
        self._saved = tuple(None if t is None else (t, t._version[0]) for t in tensors)

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
                    f"operation: [{t.type()} {list(t.shape)}], which is output {t._out_nr} of "
                    f"{t.grad_fn.name() if t.grad_fn is not None else 'a leaf'}, is at version {t._version[0]}; "
                    f"expected version {v} instead. Hint: the backtrace further above can point at the operation "
                    "that failed to compute its gradient. The variable in question was changed in there or anywhere "
                    "later. Good luck!")
            out.append(t)
        return tuple(out)

    def mark_non_differentiable(self, *tensors):
        self._non_diff = set(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self.metadata["_materialize"] = bool(value)

    def _release(self):
        if self._saved is not None:
            self._saved = _FREED

    # -- hooks -------------------------------------------------------------------------------------
    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) -> None or new grad_inputs; runs after this node."""
        if self._hooks is None:
            self._hooks = {}
        return _Handle(self._hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) -> None or new grad_outputs; runs before this node."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return _Handle(self._pre_hooks, fn)

    def _add_tensor_hook(self, index, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        return _Handle(self._tensor_hooks.setdefault(index, {}), fn)

    # -- running -----------------------------------------------------------------------------------
    def apply(self, *grads):
        return type(self).backward(self, *grads)

    def __call__(self, *grads):
        return self.apply(*grads)


class _Handle:
    """A removable handle, as returned by every register_*hook."""
    _next_id = 0

    def __init__(self, table, fn):
        _Handle._next_id += 1
        self.id = _Handle._next_id
        self.table = table
        table[self.id] = fn

    def remove(self):
        self.table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """Sink of a leaf tensor: adds the incoming gradient to ``variable.grad``."""
    __slots__ = ("variable",)

    def __init__(self, variable):
        Node.__init__(self)
        self.variable = variable

    def apply(self, grad):
        var = self.variable
        if var.grad is None:
            var.grad = grad if state.enabled else grad.detach()
        elif state.enabled:
            var.grad = var.grad + grad
        else:
            var.grad.add_(grad)
        return ()


def accumulator(t):
    """The (unique, weakly held) AccumulateGrad node of a leaf tensor that requires grad."""
    ref = t._accum
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(t)
        t._accum = weakref.ref(node)
    return node


def edge(t):
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._out_nr)
    if t.requires_grad:
        return (accumulator(t), 0)
    return (None, 0)


def attach(node, inputs, out):
    """Make ``node`` the grad_fn of the op's differentiable outputs."""
    node.next_functions = tuple(edge(t) for t in inputs)
    node._in_meta = tuple((t.shape, t.dtype, t.device) for t in inputs)
    nd = node._non_diff
    if isinstance(out, tuple):
        node._n_out = len(out)
        node._out_meta = tuple((o.shape, o.dtype, o.device) if o is not None else None for o in out)
        for i, o in enumerate(out):
            if o is not None and o.dtype.is_floating_point and (nd is None or id(o) not in nd):
                o.grad_fn = node
                o.requires_grad = True
                o._out_nr = i
    else:
        out.grad_fn = node
        out.requires_grad = True
        out._out_nr = 0
    return out


def apply_op(cls, *args, **kwargs):
    """Run built-in op ``cls`` (a Node subclass) on args; Tensors may also appear inside list/tuple args."""
    from .._tensor import Tensor
    inputs = []
    need = False
    for a in args:
        if isinstance(a, Tensor):
            inputs.append(a)
            need = need or a.requires_grad
        elif type(a) in (list, tuple):
            for x in a:
                if isinstance(x, Tensor):
                    inputs.append(x)
                    need = need or x.requires_grad
    if not (need and state.enabled):
        if state.enabled:
            state.enabled = False
            try:
                return cls.forward(NO_GRAD_CTX, *args, **kwargs)
            finally:
                state.enabled = True
        return cls.forward(NO_GRAD_CTX, *args, **kwargs)
    ctx = cls()
    ctx.needs_input_grad = tuple(t.requires_grad for t in inputs)
    state.enabled = False
    try:
        out = cls.forward(ctx, *args, **kwargs)
    finally:
        state.enabled = True
    return attach(ctx, inputs, out)


# ---------------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------------

def _topo_order(roots):
    """Nodes reachable from roots, each after every node that feeds it a gradient."""
    order, seen = [], set()
    for root in roots:
        if root is None or id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, it = stack[-1]
            for fn, _ in it:
                if fn is not None and id(fn) not in seen:
                    seen.add(id(fn))
                    stack.append((fn, iter(fn.next_functions)))
                    break
            else:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def _fit(grad, meta, node, i):
    """PyTorch's validate_outputs: reduce a broadcast gradient to the input's shape, cast to its dtype."""
    shape, dtype, device = meta
    if grad.shape != shape:
        from ..ops.reduce_to import sum_to
        try:
            grad = sum_to(grad, shape)
        except RuntimeError:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"{list(grad.shape)} but expected shape compatible with {list(shape)}") from None
    if grad.dtype is not dtype:
        grad = grad.to(dtype)
    if grad.device != device:
        grad = grad.to(device)
    return grad


def _zeros_for(meta):
    from .. import zeros
    shape, dtype, device = meta
    return zeros(shape, dtype=dtype, device=device)


def run_backward(roots, root_grads, retain_graph=None, create_graph=False, inputs=None,
                 allow_unused=False, accumulate=True):
    """Backpropagate root_grads from the root tensors.

    With ``inputs`` and ``accumulate=False`` (autograd.grad) returns the gradients of those inputs;
    with ``inputs`` and ``accumulate=True`` (backward(inputs=...)) accumulates only into them.
    """
    if retain_graph is None:
        retain_graph = create_graph
    buffers = {}
    root_nodes = []
    for t, g in zip(roots, root_grads):
        node, nr = edge(t)
        if node is None:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        root_nodes.append(node)
        slot = buffers.setdefault(node, {})
        slot[nr] = g if nr not in slot else slot[nr] + g

    captures = None
    only = None
    if inputs is not None:
        captures = {}
        for i, t in enumerate(inputs):
            node, nr = edge(t)
            if node is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            captures.setdefault((id(node), nr), []).append(i)
        only = set(k[0] for k in captures)
    results = [None] * (len(inputs) if inputs is not None else 0)

    prev = state.enabled
    state.enabled = create_graph
    try:
        for node in _topo_order(root_nodes):
            slot = buffers.pop(node, None)
            if slot is None:
                continue
            n = node._n_out
            grads = [slot.get(i) for i in range(n)]
            th = node._tensor_hooks
            if th:
                for i in range(n):
                    hooks = th.get(i)
                    if hooks and grads[i] is not None:
                        for fn in list(hooks.values()):
                            r = fn(grads[i])
                            if r is not None:
                                grads[i] = r
            if captures is not None:
                for i in range(n):
                    idxs = captures.get((id(node), i))
                    if idxs:
                        for j in idxs:
                            results[j] = grads[i]
                if not accumulate and isinstance(node, AccumulateGrad):
                    continue
                if accumulate and isinstance(node, AccumulateGrad) and id(node) not in only:
                    continue
            if node._pre_hooks:
                for fn in list(node._pre_hooks.values()):
                    r = fn(tuple(grads))
                    if r is not None:
                        grads = list(r)
            if n > 1 and any(g is None for g in grads):
                grads = [g if g is not None else _zeros_for(node._out_meta[i]) for i, g in enumerate(grads)]
            outs = node.apply(*grads)
            if not isinstance(outs, tuple):
                outs = (outs,)
            if node._hooks:
                for fn in list(node._hooks.values()):
                    r = fn(outs, tuple(grads))
                    if r is not None:
                        outs = tuple(r) if isinstance(r, (tuple, list)) else (r,)
            if not retain_graph:
                node._release()
            nexts = node.next_functions
            if len(outs) != len(nexts) and not isinstance(node, AccumulateGrad):
                raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                                   f"(expected {len(nexts)}, got {len(outs)})")
            for i, (fn, nr) in enumerate(nexts):
                if fn is None:
                    continue
                g = outs[i]
                if g is None:
                    continue
                g = _fit(g, node._in_meta[i], node, i)
                slot = buffers.get(fn)
                if slot is None:
                    buffers[fn] = {nr: g}
                elif nr in slot:
                    slot[nr] = slot[nr] + g
                else:
                    slot[nr] = g
    finally:
        state.enabled = prev

    if inputs is not None and not accumulate:
        for i, r in enumerate(results):
            if r is None and not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                                   "Set allow_unused=True if this is the desired behavior.")
        return tuple(results)
    return None
