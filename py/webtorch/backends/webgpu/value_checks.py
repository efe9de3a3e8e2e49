"""``require_all`` on the webgpu device: an op's input check (backends/op_facts.py VALUE_CHECKS) reported through
the error word (device_checks.py) instead of read back at the call, so a training step keeps its one readback.

The bool handle is reduced with ``all`` on the device and the one-element result range-checked into the error word;
the check's nodes are kept by the planner although no tensor reads them, so a failure surfaces at the next read or
``synchronize`` even when the checked result is never used.
"""
from ... import _dtype as D
from . import device_checks, reduce_kernels


def require_all(rec, h, op):
    if not h.numel:
        return
    ok = reduce_kernels.reduce(rec, "all", h, (), False, D.bool_)
    rec.ew("index_check", [ok, ("c", 1), ("c", 1), ("c", device_checks.code(op, device_checks.VALUE))],
           D.int32, D.int32, ())
