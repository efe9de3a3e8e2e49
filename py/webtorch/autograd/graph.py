"""The autograd graph: Node (a backward function), AccumulateGrad, and the backward engine.

A built-in op is a Node subclass named as PyTorch names it (``MulBackward0``) with two staticmethods side
by side: ``forward(ctx, *args)`` computes the result (nothing inside records history), ``backward(ctx,
*grads)`` returns one gradient per tensor input (per operand position, for a node that declares
``_operands``), written with Tensor ops so double backward works. ``apply_op`` runs the forward and, when a
gradient is needed, makes the Node the result's ``grad_fn``.
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


NO_GRAD_CTX = _NoGradCtx()


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


def _refresh_if_stale(t):
    """A view whose storage was written in place since its history was recorded gets new history
    (ops/inplace.refresh_view), as PyTorch regenerates a view's grad_fn."""
    if t._version[0] != getattr(t, "_view_version", t._version[0]):
        from ..ops.inplace import refresh_view
        refresh_view(t)


def edge(t):
    if t._base is not None:
        _refresh_if_stale(t)
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._out_nr)
    if t.requires_grad:
        return (accumulator(t), 0)
    return (None, 0)


def _meta(t):
    return (t._be.shape(t._data), t.dtype, t._device)


_NO_EDGE = (None, 0)
_new_node = object.__new__
_POSITIONS = [tuple(range(n)) for n in range(8)]


def _edges(args, slots):
    """(next_functions, in_meta, needs_input_grad) for the op inputs args[i], i in slots; an input that is no
    Tensor (a number operand, None) gets the edge (None, 0). in_meta holds (shape, dtype, device) of each input
    that receives a gradient, None for the others."""
    nexts, metas, needs = [], [], []
    for i in slots:
        t = args[i]
        if isinstance(t, Tensor):
            if t._base is not None:
                _refresh_if_stale(t)
            fn = t.grad_fn
            if fn is not None or t.requires_grad:
                nexts.append((fn, t._out_nr) if fn is not None else (accumulator(t), 0))
                metas.append((t._be.shape(t._data), t.dtype, t._device))
                needs.append(True)
                continue
        nexts.append(_NO_EDGE)
        metas.append(None)
        needs.append(False)
    return tuple(nexts), tuple(metas), tuple(needs)


def attach(node, inputs, out):
    """Make ``node`` the grad_fn of the op's differentiable outputs (inputs: a None entry is a number operand)."""
    n = len(inputs)
    node.next_functions, node._in_meta, _ = _edges(inputs, _POSITIONS[n] if n < 8 else range(n))
    return own_outputs(node, out)


def own_outputs(node, out):
    """Second half of attach: the outputs get node as their grad_fn."""
    nd = node._non_diff
    if isinstance(out, tuple):
        node._n_out = len(out)
        node._out_meta = tuple([_meta(o) if o is not None else None for o in out])
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


Tensor = None  # webtorch.Tensor, set by _tensor.py once the class exists (avoids an import per op)
_SEQ = (list, tuple)


def apply_op(cls, *args, **kwargs):
    """Run built-in op ``cls`` (a Node subclass) on args; Tensors may also appear inside list/tuple args."""
    if not state.enabled:
        return cls.forward(_NoGradCtx(), *args, **kwargs)
    slots = cls._operands
    if slots is not None:
        for i in slots:
            a = args[i]
            if isinstance(a, Tensor) and a.requires_grad:
                return _record_operands(cls, slots, args, kwargs)
        # Its forward reads only these operands, none of which records history: grad mode can stay on.
        return cls.forward(_NoGradCtx(), *args, **kwargs)
    need = False
    for a in args:
        if isinstance(a, Tensor):
            if a.requires_grad:
                need = True
                break
        elif type(a) in _SEQ:
            for x in a:
                if isinstance(x, Tensor) and x.requires_grad:
                    need = True
                    break
            if need:
                break
    state.enabled = False
    if not need:
        try:
            return cls.forward(_NoGradCtx(), *args, **kwargs)
        finally:
            state.enabled = True
    inputs = []
    for a in args:
        if isinstance(a, Tensor):
            inputs.append(a)
        elif type(a) in _SEQ:
            inputs.extend([x for x in a if isinstance(x, Tensor)])
    ctx = cls()
    ctx.needs_input_grad = tuple([t.requires_grad for t in inputs])
    try:
        out = cls.forward(ctx, *args, **kwargs)
    finally:
        state.enabled = True
    return attach(ctx, inputs, out)


def _record_operands(cls, slots, args, kwargs):
    """apply_op building a graph, for a node that declares its operand positions. The edges are taken before
    forward runs (a built-in forward never modifies its operands). The node is made without __init__, as every
    slot is set here (Node.__init_subclass__ refuses an operand-declaring node with an __init__ of its own)."""
    ctx = _new_node(cls)
    nexts, metas, ctx.needs_input_grad = _edges(args, slots)
    state.enabled = False
    try:
        out = cls.forward(ctx, *args, **kwargs)
    finally:
        state.enabled = True
    ctx.next_functions = nexts
    ctx._in_meta = metas
    return own_outputs(ctx, out)


# ---------------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------------

def _topo_order(roots):
    """Nodes reachable from roots, each after every node that feeds it a gradient."""
    order, seen = [], set()  # nodes hash by identity (the engine's buffers are keyed by them too)
    for root in roots:
        if root is None or root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, it = stack[-1]
            for fn, _ in it:
                if fn is not None and fn not in seen:
                    seen.add(fn)
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
    if grad._be.shape(grad._data) != shape:
        from ..ops.reduce_to import sum_to
        try:
            grad = sum_to(grad, shape)
        except RuntimeError:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"{list(grad.shape)} but expected shape compatible with {list(shape)}") from None
    if grad.dtype is not dtype:
        grad = grad.to(dtype)
    if grad._device is not device and grad._device != device:
        grad = grad.to(device)
    return grad


def _checked_hook_result(fn, old, new):
    """A tensor hook's replacement gradient, refused as PyTorch refuses it when it is no tensor or has another
    size, dtype or device than the gradient it replaces (the engine would otherwise carry a wrong-shaped
    gradient into the next node, or into .grad)."""
    name = getattr(fn, "__name__", repr(fn))
    if not hasattr(new, "_data"):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new.shape != old.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value (was {list(old.shape)}, got "
                           f"{list(new.shape)})")
    if new.dtype is not old.dtype or new.device != old.device:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {old.type()} got {new.type()})")
    return new


def _zeros_for(meta):
    from .. import zeros
    shape, dtype, device = meta
    return zeros(shape, dtype=dtype, device=device)


def _executable(order, targets):
    """Nodes whose backward must run to reach a target node (autograd.grad / backward(inputs=))."""
    run = set()
    for node in reversed(order):
        for fn, _ in node.next_functions:
            if fn is not None and (fn in targets or fn in run):
                run.add(node)
                break
    return run


def _root(t):
    return t if t._base is None else t._base


def _owned_outputs(node, grads, mine, outs):
    """Per output gradient of node: True when nothing but the engine refers to its storage, so a leaf may
    keep it without a copy (PyTorch's AccumulateGrad steals a gradient no one else holds). That is a new
    tensor or a view of one, or an incoming gradient the engine alone held (``mine``: {slot: True}) or a view
    of it -- provided no other output shares the storage. None when no output qualifies."""
    if not node._fresh_outputs or node._hooks:
        return None
    roots = {}
    for o in outs:
        if o is not None:
            r = id(_root(o))
            roots[r] = roots.get(r, 0) + 1
    for i, x in enumerate(grads):
        if x is not None and not (mine and i in mine):
            r = id(_root(x))
            if r in roots:
                roots[r] = 2  # passes on a gradient someone else may hold
    return [o is not None and roots[id(_root(o))] == 1 for o in outs]


def _stealable(g):
    """A gradient the engine alone holds may become ``.grad`` as is when it is laid out as a fresh one:
    contiguous and, if a view (a transposed mm result, a reshaped sum), over its whole storage."""
    return g.is_contiguous() and (g._base is None or g.numel() == g._base.numel())


def run_backward(roots, root_grads, retain_graph=None, create_graph=False, inputs=None,
                 allow_unused=False, accumulate=True):
    """Backpropagate root_grads from the root tensors.

    With ``inputs`` and ``accumulate=False`` (autograd.grad) returns the gradients of those inputs;
    with ``inputs`` and ``accumulate=True`` (backward(inputs=...)) accumulates only into them. Only the
    nodes that lead to an input run.
    """
    if retain_graph is None:
        retain_graph = create_graph
    buffers = {}
    owned = {}  # node -> {slot: True} for its buffered gradients that nothing but the engine refers to
    root_nodes = []
    for k, (t, g) in enumerate(zip(roots, root_grads)):
        node, nr = edge(t)
        if node is None:
            raise RuntimeError(f"element {k} of tensors does not require grad and does not have a grad_fn")
        root_nodes.append(node)
        slot = buffers.setdefault(node, {})
        slot[nr] = g if nr not in slot else slot[nr] + g

    order = _topo_order(root_nodes)
    captures = run = targets = None
    if inputs is not None:
        captures = {}
        targets = set()
        for i, t in enumerate(inputs):
            node, nr = edge(t)
            if node is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            captures.setdefault((node, nr), []).append(i)
            targets.add(node)
        run = _executable(order, targets)
    results = [None] * (len(inputs) if inputs is not None else 0)

    prev = state.enabled
    state.enabled = create_graph
    try:
        for node in order:
            slot = buffers.pop(node, None)
            if slot is None:
                continue
            skip = captures is not None and node not in run
            if skip and node not in targets:
                continue  # leads to no input: PyTorch does not evaluate it (nor its hooks)
            n = node._n_out
            grads = [slot.get(i) for i in range(n)] if n > 1 else [slot.get(0)]
            mine = owned.pop(node, None)
            th = node._tensor_hooks
            if th:
                for i in range(n):
                    hooks = th.get(i)
                    if hooks and grads[i] is not None:
                        mine = None  # a hook may keep the gradient it sees
                        for fn in list(hooks.values()):
                            r = fn(grads[i])
                            if r is not None:
                                grads[i] = _checked_hook_result(fn, grads[i], r)
            if captures is not None:
                for i in range(n):
                    for j in captures.get((node, i), ()):
                        results[j] = grads[i]
                        mine = None
                if skip and not (accumulate and type(node) is AccumulateGrad):
                    continue
            if node._pre_hooks:
                mine = None
                for fn in list(node._pre_hooks.values()):
                    r = fn(tuple(grads))
                    if r is not None:
                        grads = list(r)
            if type(node) is AccumulateGrad:
                g = grads[0]
                node.apply(g, mine is not None and _stealable(g))
                if node._hooks:
                    for fn in list(node._hooks.values()):
                        fn((), (g,))
                continue
            if n > 1 and node._engine_materializes and any(g is None for g in grads):
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
            if len(outs) != len(nexts):
                raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                                   f"(expected {len(nexts)}, got {len(outs)})")
            in_meta = node._in_meta
            own = _owned_outputs(node, grads, mine, outs)
            for i, (fn, nr) in enumerate(nexts):
                if fn is None:
                    continue
                g = outs[i]
                if g is None:
                    continue
                m = in_meta[i]
                if g._device is not m[2] or g.dtype is not m[1] or g._be.shape(g._data) != m[0]:
                    g = _fit(g, m, node, i)
                slot = buffers.get(fn)
                if slot is None:
                    buffers[fn] = slot = {nr: g}
                elif nr in slot:
                    g = slot[nr] = slot[nr] + g  # a new tensor
                else:
                    slot[nr] = g
                if g is not outs[i] or (own is not None and own[i]):  # (_fit and the sum make new tensors)
                    o = owned.get(fn)
                    if o is None:
                        owned[fn] = {nr: True}
                    else:
                        o[nr] = True
    finally:
        state.enabled = prev

    if inputs is None or accumulate:
        return None
    for r in results:
        if r is None and not allow_unused:
            raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                               "Set allow_unused=True if this is the desired behavior.")
    return tuple(results)
