"""The elementwise primitive on the wasm backend: one generated kernel ``ew_<op>_<compute type>`` per call
(wasm-kernels/generate.py, from op_facts.ELEMENTWISE_OPS), broadcasting through stride-0 operands.

Operands not of the compute type are converted first (a cast kernel into a temporary); float16 and bfloat16 compute
in float32 and round the result back per op (PyTorch's CPU); int8/int16/uint8 compute in int32, uint32 in int64. Python scalars are written to the context's scratch
block and read with stride 0. A result goes straight into ``out`` when it has the result dtype and overlaps no
operand differently; else through a temporary and a copy (cast) into it.
"""
from ... import _dtype as D
from ... import _geometry as G
from ..._broadcast import broadcast_shapes
from ..op_facts import BOOL_RESULT, float8_computes
from .context import int_range
from .copies import cast, check_writable, contiguous, convert, copy_, overlaps  # noqa: F401 (family: copies')
from .views import View

# the compute type of dtypes without kernels of their own (wasm-kernels/generate.py): the result is cast back, which
# rounds (float16, bfloat16) or wraps (narrow integers: the low bits of the wider result are the narrow op's)
_WIDENED = {D.float16: D.float32, D.bfloat16: D.float32, D.int8: D.int32, D.int16: D.int32, D.uint8: D.int32,
            D.uint32: D.int64}


def _unbounded(ct, low):
    """The clamp bound that clamps nothing (a missing bound)."""
    if ct.is_floating_point:
        return float("-inf") if low else float("inf")
    return int_range(ct)[0 if low else 1]


def _wrapped(v, dt):
    """The integer v wrapped into dt's range, as PyTorch converts a scalar to a tensor's integer type."""
    lo, hi = int_range(dt)
    return (int(v) - lo) % (hi - lo + 1) + lo


def _plan(ctx, op, dtype):
    """(kernel callable, compute dtype, result dtype) of op computing in dtype."""
    if dtype in D.FLOAT8:  # an op PyTorch's CPU runs on float8 (op_facts.FLOAT8_OPS): in float32, rounded back
        if not float8_computes(op, dtype):
            raise D.float8_compute_error(dtype)
        ct = D.float32
    else:
        ct = _WIDENED.get(dtype, dtype)
    name = f"ew_{op}_{ct.name}"
    if not ctx.has(name):
        raise RuntimeError(f'"{op}_cpu" not implemented for \'{D.scalar_type_name(dtype)}\'')
    plan = _PLANS[(op, dtype)] = (ctx.rt.fn(name), ct, D.bool_ if op in BOOL_RESULT else ct)
    return plan


_PLANS = {}
_NUMBERS = frozenset((float, int, bool))


def _direct(ctx, kernel, ct, rdt, args):
    """The hot path: the result of a kernel on one View of the compute type ct, or two of one shape, or one and a
    Python number (no conversion, no broadcasting); None for any other call."""
    a = args[0]
    if type(a) is not View or a.st.dtype is not ct:
        return None
    shape = a.shape
    if len(args) == 1:
        res = ctx.new(shape, rdt)
        kernel(res.addr, a.addr, ctx.geom(shape, res.strides, a.strides))
        return res
    if len(args) != 2:
        return None
    b = args[1]
    if type(b) is View:
        if b.shape != shape or b.st.dtype is not ct:
            return None
        b_addr, b_strides = b.addr, b.strides
    elif type(b) in _NUMBERS:
        b_addr, b_strides = ctx.scalar(b, ct), (0,) * len(shape)
    else:
        return None
    res = ctx.new(shape, rdt)
    if kernel(res.addr, a.addr, b_addr, ctx.geom(shape, res.strides, a.strides, b_strides)):
        raise RuntimeError("ZeroDivisionError")
    return res


def elementwise(ctx, op, args, dtype, out=None):
    kernel, ct, rdt = _PLANS.get((op, dtype)) or _plan(ctx, op, dtype)
    if out is None and dtype is ct and op != "where":
        res = _direct(ctx, kernel, ct, rdt, args)
        if res is not None:
            return res
    if out is None:
        shapes = [a.shape for a in args if type(a) is View]
        shape = shapes[0] if all(s == shapes[0] for s in shapes) else broadcast_shapes(*shapes)
    else:
        check_writable(out)
        shape = tuple(out.shape)
    addrs, strides, views = [], [], []
    for k, a in enumerate(args):
        want = D.bool_ if (op == "where" and k == 0) else ct
        if type(a) is View:
            if a.st.dtype is not want:
                a = cast(ctx, a, want)
            st = a.strides if a.shape == shape else G.expand_strides(a.shape, a.strides, shape)
            addrs.append(a.addr)
            strides.append(st)
            views.append((st, a))
        else:
            if a is None:  # a missing clamp bound
                a = _unbounded(ct, k == 1)
            elif want is ct and dtype is not ct and not dtype.is_floating_point:
                a = _wrapped(a, dtype)  # a scalar is the narrow type's value first (-1 is 255 for uint8)
            addrs.append(ctx.scalar(a, want))
            strides.append((0,) * len(shape))
    direct = out is not None and out.st.dtype is rdt and not any(
        overlaps(out, v) and not (st == out.strides and v.offset == out.offset) for st, v in views)
    res = out if direct else ctx.new(shape, rdt)
    if kernel(res.addr, *addrs, ctx.geom(shape, res.strides, *strides)):
        raise RuntimeError("ZeroDivisionError")
    if out is not None and not direct:
        convert(ctx, out, res)
        return out
    if rdt is not D.bool_ and dtype is not ct:
        return cast(ctx, res, dtype)
    return res
