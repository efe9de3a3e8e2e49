"""Recording the graph: ``apply_op`` runs a built-in op (a ``Node`` subclass, see node.py) and, when a
gradient is needed, makes the node the grad_fn of its outputs, with one edge per input.
"""
from .grad_mode import state  # noqa: F401  (state, Node, recording, zero_grads: the names ops and nn import)
from .node import Node, recording, zero_grads, accumulator, _NoGradCtx  # noqa: F401
from .tensor_base import TensorBase
from .view_history import refresh_if_stale


def _meta(t):
    return (t.shape, t.dtype, t._device)


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
        if isinstance(t, TensorBase):
            if t._base is not None:
                refresh_if_stale(t)
            fn = t.grad_fn
            if fn is not None or t.requires_grad:
                nexts.append((fn, t._out_nr) if fn is not None else (accumulator(t), 0))
                metas.append((t.shape, t.dtype, t._device))
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


_SEQ = (list, tuple)


def apply_op(cls, *args, **kwargs):
    """Run built-in op ``cls`` (a Node subclass) on args; Tensors may also appear inside list/tuple args."""
    if not state.enabled:
        return cls.forward(_NoGradCtx(), *args, **kwargs)
    slots = cls._operands
    if slots is not None:
        for i in slots:
            a = args[i]
            if isinstance(a, TensorBase) and a.requires_grad:
                return _record_operands(cls, slots, args, kwargs)
        # Its forward reads only these operands, none of which records history: grad mode can stay on.
        return cls.forward(_NoGradCtx(), *args, **kwargs)
    need = False
    for a in args:
        if isinstance(a, TensorBase):
            if a.requires_grad:
                need = True
                break
        elif type(a) in _SEQ:
            for x in a:
                if isinstance(x, TensorBase) and x.requires_grad:
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
        if isinstance(a, TensorBase):
            inputs.append(a)
        elif type(a) in _SEQ:
            inputs.extend([x for x in a if isinstance(x, TensorBase)])
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

