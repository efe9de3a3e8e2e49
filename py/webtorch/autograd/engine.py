"""The backward engine: gradients flow from the roots through the graph's nodes in topological order.

``run_backward`` reads as the algorithm: seed the roots' gradients, order the reachable nodes, then for each
node: gather the gradients buffered for its outputs, run the tensor hooks, hand captured gradients to
``autograd.grad``, run the pre-hooks, then either accumulate into a leaf or apply the node's backward and
deliver each input's gradient to the buffer of the node it came from. A gradient that nothing but the engine
refers to is tracked ("owned"), so a leaf may keep it as ``.grad`` without a copy, as PyTorch steals it.
"""
from .grad_mode import state
from .node import AccumulateGrad
from .sum_to import sum_to
from .tensor_base import TensorBase
from .view_history import edge


def _checked_hook_result(fn, old, new):
    """A tensor hook's replacement gradient, refused as PyTorch refuses it when it is no tensor or has another
    size, dtype or device than the gradient it replaces (the engine would otherwise carry a wrong-shaped
    gradient into the next node, or into .grad)."""
    name = getattr(fn, "__name__", repr(fn))
    if not isinstance(new, TensorBase):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new.shape != old.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value (was {list(old.shape)}, got "
                           f"{list(new.shape)})")
    if new.dtype is not old.dtype or new.device != old.device:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {old.type()} got {new.type()})")
    return new


def run_backward(roots, root_grads, retain_graph=None, create_graph=False, inputs=None,
                 allow_unused=False, accumulate=True):
    """Backpropagate root_grads from the root tensors.

    With ``inputs`` and ``accumulate=False`` (autograd.grad) returns the gradients of those inputs;
    with ``inputs`` and ``accumulate=True`` (backward(inputs=...)) accumulates only into them. Only the
    nodes that lead to an input run.
    """
    retain = create_graph if retain_graph is None else retain_graph
    buffers, owned = {}, {}  # node -> {output index: gradient}; node -> {output index: True} if engine-owned
    order = _topo_order(_seed(roots, root_grads, buffers))
    want = None if inputs is None else _Wanted(inputs, order, accumulate)
    prev, state.enabled = state.enabled, create_graph
    try:
        for node in order:
            slot = buffers.pop(node, None)
            if slot is None or (want is not None and not want.reached(node)):
                continue  # no gradient arrived, or it leads to no input (PyTorch runs neither it nor its hooks)
            n = node._n_out
            grads = [slot.get(i) for i in range(n)] if n > 1 else [slot.get(0)]
            mine = owned.pop(node, None)
            if node._tensor_hooks and _run_tensor_hooks(node, grads):
                mine = None  # a hook may keep the gradient it sees
            if want is not None:
                if want.capture(node, grads):
                    mine = None  # autograd.grad returns it
                if not want.runs(node):
                    continue
            if node._pre_hooks:
                grads, mine = _run_pre_hooks(node, grads), None
            if type(node) is AccumulateGrad:
                _accumulate(node, grads[0], mine)
                continue
            outs = _apply(node, grads, slot, retain)
            _deliver(node, outs, _owned_outputs(node, grads, mine, outs), buffers, owned)
    finally:
        state.enabled = prev
    return None if want is None or accumulate else want.results(allow_unused)


def _seed(roots, root_grads, buffers):
    """Buffer each root's gradient for the node it flows to; returns those nodes."""
    nodes = []
    for k, (t, g) in enumerate(zip(roots, root_grads)):
        node, nr = edge(t)
        if node is None:
            raise RuntimeError(f"element {k} of tensors does not require grad and does not have a grad_fn")
        nodes.append(node)
        slot = buffers.setdefault(node, {})
        slot[nr] = g if nr not in slot else slot[nr] + g
    return nodes


class _Wanted:
    """The inputs of autograd.grad / backward(inputs=...): which nodes lead to them, and their gradients."""

    def __init__(self, inputs, order, accumulate):
        self.captures, self.targets = {}, set()  # (node, output index) -> positions in inputs; their nodes
        for i, t in enumerate(inputs):
            node, nr = edge(t)
            if node is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            self.captures.setdefault((node, nr), []).append(i)
            self.targets.add(node)
        self.leading = _executable(order, self.targets)
        self.accumulate = accumulate
        self.grads = [None] * len(inputs)

    def reached(self, node):
        """Whether node's gradients matter: it leads to an input or is an input's own node."""
        return node in self.leading or node in self.targets

    def capture(self, node, grads):
        """Record the gradients of node's outputs that are inputs; True when one was (no longer engine-owned)."""
        taken = False
        for i in range(len(grads)):
            for j in self.captures.get((node, i), ()):
                self.grads[j] = grads[i]
                taken = True
        return taken

    def runs(self, node):
        """Whether node's backward runs: it leads to an input, or it is an input's leaf accumulating."""
        return node in self.leading or (self.accumulate and type(node) is AccumulateGrad)

    def results(self, allow_unused):
        if not allow_unused and any(g is None for g in self.grads):
            raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                               "Set allow_unused=True if this is the desired behavior.")
        return tuple(self.grads)


def _run_tensor_hooks(node, grads):
    """Hooks registered on node's output tensors may replace their gradient (in grads); True when any ran."""
    ran = False
    table = node._tensor_hooks
    for i in range(len(grads)):
        hooks = table.get(i)
        if hooks and grads[i] is not None:
            ran = True
            for fn in list(hooks.values()):
                r = fn(grads[i])
                if r is not None:
                    grads[i] = _checked_hook_result(fn, grads[i], r)
    return ran


def _run_pre_hooks(node, grads):
    for fn in list(node._pre_hooks.values()):
        r = fn(tuple(grads))
        if r is not None:
            grads = list(r)
    return grads


def _accumulate(node, grad, mine):
    """A leaf's gradient: into ``.grad`` (kept without a copy when the engine alone holds it), then its hooks."""
    node.apply(grad, mine is not None and _stealable(grad))
    if node._hooks:
        for fn in list(node._hooks.values()):
            fn((), (grad,))


def _apply(node, grads, slot, retain):
    """Run node's backward (missing output gradients filled in grads as zeros first) and its post-hooks;
    returns one gradient per edge."""
    if node._n_out > 1 and node._engine_materializes:
        ref = next(iter(slot.values()))  # (any buffered gradient: zeros are made with Tensor.new_zeros)
        for i, g in enumerate(grads):
            if g is None:
                shape, dtype, device = node._out_meta[i]
                grads[i] = ref.new_zeros(shape, dtype=dtype, device=device)
    outs = node.apply(*grads)
    if not isinstance(outs, tuple):
        outs = (outs,)
    if node._hooks:
        for fn in list(node._hooks.values()):
            r = fn(outs, tuple(grads))
            if r is not None:
                outs = tuple(r) if isinstance(r, (tuple, list)) else (r,)
    if not retain:
        node._release()
    if len(outs) != len(node.next_functions):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node.next_functions)}, got {len(outs)})")
    return outs


def _deliver(node, outs, own, buffers, owned):
    """Add each input gradient (fitted to the input's shape, dtype, device) to the buffer of the node it goes
    to; mark it engine-owned there when it is a new tensor no one else refers to (own: per output, or None)."""
    in_meta = node._in_meta
    for i, (fn, nr) in enumerate(node.next_functions):
        g = outs[i]
        if fn is None or g is None:
            continue
        m = in_meta[i]
        if g._device is not m[2] or g.dtype is not m[1] or g.shape != m[0]:
            g = _fit(g, m, node, i)
        slot = buffers.get(fn)
        if slot is None:
            buffers[fn] = slot = {nr: g}
        elif nr in slot:
            g = slot[nr] = _sum(slot[nr], g)  # a new tensor
        else:
            slot[nr] = g
        if g is not outs[i] or (own is not None and own[i]):  # (_fit and the sum make new tensors)
            o = owned.get(fn)
            if o is None:
                owned[fn] = {nr: True}
            else:
                o[nr] = True


def _sum(old, new):
    """Two gradients of one output: a sparse one meets a dense one as dense + sparse (sparse + dense is refused)."""
    return new + old if old.is_sparse and not new.is_sparse else old + new


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
    if grad.shape != shape:
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


