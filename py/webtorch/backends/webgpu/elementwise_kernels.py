"""Elementwise primitives of the webgpu device: elementwise, copy_, contiguous, cast -- each one ew node of the
pending queue (Recorder.ew), fused by the planner into generated kernels (codegen.py)."""
from ... import _dtype as D
from ..._broadcast import broadcast_shapes
from . import codegen, dtypes as T, transfer
from .handles import View

# PyTorch's message for a write through a view with stride-0 (expanded) dims
EXPANDED_WRITE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                  "memory location. Please clone() the tensor before performing the operation.")


def elementwise(rec, op, args, dtype, out=None):
    if dtype is not D.float32:
        T.check(dtype, rec.features)
    shape = None
    for a in args:  # the operands' common shape: broadcast only when two differ
        if type(a) is View:
            if shape is None:
                shape = a.shape
            elif a.shape != shape:
                shape = broadcast_shapes(*[a.shape for a in args if type(a) is View])
                break
    if shape is None:
        shape = ()
    if out is not None:
        return rec.ew(op, args, dtype, out.dtype, out.shape, out=out)
    return rec.ew(op, args, dtype, D.bool_ if op in codegen.BOOL_RESULT else dtype, shape)


def copy_(rec, dst, src):
    if any(st == 0 and s > 1 for s, st in zip(dst.shape, dst.strides)):
        raise RuntimeError(EXPANDED_WRITE)
    src = transfer.on_device(rec, src)
    if isinstance(src, View):
        broadcast_shapes(src.shape, dst.shape)
    rec.ew("copy", [src], dst.dtype, dst.dtype, dst.shape, out=dst)
    return dst


def contiguous(rec, h):
    return rec.ew("copy", [h], h.dtype, h.dtype, h.shape)


def cast(rec, h, dtype):
    T.check(dtype, rec.features)
    return rec.ew("copy", [h], dtype, dtype, h.shape)



