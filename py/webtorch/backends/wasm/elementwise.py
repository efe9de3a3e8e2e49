"""The elementwise primitive on the wasm backend: one generated kernel ``ew_<op>_<compute type>`` per call
(wasm-kernels/generate.py, from op_facts.ELEMENTWISE_OPS), broadcasting through stride-0 operands.

Operands not of the compute type are converted first (a cast kernel into a temporary); float16 and bfloat16 compute
in float32 and round the result back per op (PyTorch's CPU). Python scalars are written to the context's scratch
block and read with stride 0. A result goes straight into ``out`` when it has the result dtype and overlaps no
operand differently; else through a temporary and a copy (cast) into it.
"""
from ... import _dtype as D
from ... import _geometry as G
from ..._broadcast import broadcast_shapes
from ..op_facts import BOOL_RESULT
from .copies import cast, check_writable, convert, overlaps
from .views import View

_WIDENED = {D.float16: D.float32, D.bfloat16: D.float32}
_INT_LIMITS = {dt: (-(1 << (8 * dt.itemsize - 1)), (1 << (8 * dt.itemsize - 1)) - 1)
               for dt in (D.int8, D.int16, D.int32, D.int64)}
_INT_LIMITS.update({D.uint8: (0, 255), D.uint32: (0, (1 << 32) - 1), D.bool_: (0, 1)})


def _unbounded(ct, low):
    """The clamp bound that clamps nothing (a missing bound)."""
    if ct.is_floating_point:
        return float("-inf") if low else float("inf")
    return _INT_LIMITS[ct][0 if low else 1]


def elementwise(ctx, op, args, dtype, out=None):
    ct = _WIDENED.get(dtype, dtype)
    shape = broadcast_shapes(*(a.shape for a in args if isinstance(a, View)))
    if out is not None:
        check_writable(out)
        shape = tuple(out.shape)
    rdt = D.bool_ if op in BOOL_RESULT else ct
    name = f"ew_{op}_{ct.name}"
    if not ctx.has(name):
        raise RuntimeError(f'"{op}_cpu" not implemented for \'{D.scalar_type_name(dtype)}\'')
    operands = []
    for k, a in enumerate(args):
        want = D.bool_ if (op == "where" and k == 0) else ct
        if isinstance(a, View):
            if a.dtype is not want:
                a = cast(ctx, a, want)
            operands.append((a.addr, G.expand_strides(a.shape, a.strides, shape), a))
        else:
            if a is None:  # a missing clamp bound
                a = _unbounded(ct, k == 1)
            operands.append((ctx.scalar(a, want), (0,) * len(shape), None))
    direct = out is not None and out.dtype is rdt and not any(
        v is not None and overlaps(out, v) and not (st == out.strides and v.offset == out.offset)
        for _, st, v in operands)
    res = out if direct else ctx.new(shape, rdt)
    rc = ctx.call(name, res.addr, *(addr for addr, _, _ in operands),
                  ctx.geom(shape, res.strides, *(st for _, st, _ in operands)))
    if rc:
        raise RuntimeError("ZeroDivisionError")
    if out is not None and not direct:
        convert(ctx, out, res)
        return out
    if rdt is not D.bool_ and dtype is not ct:
        return cast(ctx, res, dtype)
    return res
