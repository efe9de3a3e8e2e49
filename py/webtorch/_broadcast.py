"""Broadcast shape rules with PyTorch's error message (shared by the op layer and backends)."""


def broadcast_shapes(*shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for k, s in enumerate(shapes):
        for i in range(len(s) - 1, -1, -1):  # from the last dim, as PyTorch (the first mismatch it names)
            d = s[i]
            j = nd - len(s) + i
            if out[j] == 1:
                out[j] = d
            elif d != 1 and d != out[j]:
                prev = next(p for p in shapes[:k] if j - (nd - len(p)) >= 0 and p[j - (nd - len(p))] != 1)
                da = prev[j - (nd - len(prev))]
                raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b ({d}) at "
                                   f"non-singleton dimension {j - (nd - max(len(prev), len(s)))}")
    return tuple(out)
