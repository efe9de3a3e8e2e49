"""WGSL ``select`` forms of where and clamp, shared by every compute type (wgsl_ops.py, wgsl_int64.py): only the
comparison differs between them."""


def where(args):
    """where(cond, x, y) over argument expressions ``(cond, x, y)`` (a missing cond reads as false)."""
    c = args[0] if args[0] is not None else "false"
    return f"select({args[2]}, {args[1]}, {c})"


def clamp(x, lo, hi, lt):
    """``x`` limited to [lo, hi] (either may be None); ``lt(p, q)`` gives the WGSL of p < q for the type."""
    if lo is not None:
        x = f"select({x}, {lo}, {lt(x, lo)})"
    if hi is not None:
        x = f"select({x}, {hi}, {lt(hi, x)})"
    return x
