"""The optimizers' multi-tensor path's one door to the backends: call a fused ``*_update`` primitive on
handle lists, given Tensors (optim/ speaks only Tensor; this is the tensor layer's side of it).

It groups the tensors by device and dtype, hands each group's handles and the update's hyper-parameter record
(backends/contract.py's HYPER) to the backend primitive, and bumps the version counter of every tensor the
primitive wrote, as an in-place op would.
"""
from .._tensor import Tensor, _wrap, fresh_geometry
from ..backends.contract import HYPER


def _groups(params):
    """{(device, dtype): indices} in first-seen order."""
    groups = {}
    for i, p in enumerate(params):
        groups.setdefault((p._device, p.dtype), []).append(i)
    return groups.values()


def _pick(arg, idx):
    """Arg restricted to one group: a list (one entry per param) is sliced, tensors become handles."""
    if not isinstance(arg, list):
        return arg
    return [a._data if isinstance(a, Tensor) else a for a in (arg[i] for i in idx)]


def fused_update(name, params, grads, *lists, **hyper):
    """Run ``backend.<name>(params, grads, *lists, HYPER[name](**hyper))`` per (device, dtype) group.

    ``lists`` are per-parameter lists (state tensors, None entries, Python floats) or None. A primitive that
    returns a list of handles (sgd_update's momentum buffers) returns the new contents of ``lists[0]``: this
    gives them back as Tensors in the params' order (the given Tensor where the handle is unchanged).
    """
    hp = HYPER[name](**hyper)
    written = [params] + [lst for lst in lists if isinstance(lst, list)]
    results = None
    for idx in _groups(params):
        be = params[idx[0]]._be
        out = getattr(be, name)(_pick(params, idx), _pick(grads, idx), *(_pick(lst, idx) for lst in lists), hp)
        if out is not None:
            if results is None:
                results = [None] * len(params)
            for j, i in enumerate(idx):
                old = lists[0][i]
                results[i] = old if isinstance(old, Tensor) and old._data is out[j] else \
                    _wrap(out[j], be, params[i]._device, fresh_geometry(tuple(params[i].shape)))
    for lst in written:
        for t in lst:
            if isinstance(t, Tensor):
                t._version[0] += 1
    return results
