"""Lua's Module.flatten: copy a list of tensors into one flat tensor and hand back a view of it for each.

Tensors on one storage (the same object listed twice, or views of one storage) keep their relative
layout inside the flat tensor, so whatever was shared stays shared.
"""
from ...ops.creation import zeros


def _extent(t):
    """[first, last + 1) storage elements that tensor t touches."""
    lo = t.storage_offset()
    hi = lo + 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))
    return lo, hi


def flatten_parameters(tensors):
    """(flat tensor, {id(original): view of flat}) for the tensors, grouped by storage in first-seen order."""
    groups = {}  # storage (the version counter every view of it shares) -> distinct tensors on it
    for t in tensors:
        group = groups.setdefault(id(t._version), [])
        if all(t is not u for u in group):
            group.append(t)
    live = [g for g in groups.values() if any(t.numel() for t in g)]
    if not tensors:
        return zeros(0), {}
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        raise TypeError(f"getParameters: all parameters must have one type, got {sorted(d.name for d in dtypes)}; "
                        "convert the module with :float() or :double() first")
    ranges, total = [], 0
    for group in live:
        lo = min(_extent(t)[0] for t in group if t.numel())
        hi = max(_extent(t)[1] for t in group if t.numel())
        ranges.append((lo, total))
        total += hi - lo
    first = tensors[0]
    flat = zeros(total, dtype=first.dtype, device=first.device)
    views = {}
    for group, (lo, start) in zip(live, ranges):
        for t in group:
            v = flat.as_strided(tuple(t.shape), t.stride(), start + t.storage_offset() - lo)
            v.copy_(t.detach())
            views[id(t)] = v
    for group in groups.values():  # empty tensors: empty views at the end
        for t in group:
            if id(t) not in views:
                views[id(t)] = flat.as_strided(tuple(t.shape), t.stride(), total)
    return flat, views
