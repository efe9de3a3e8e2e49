"""Device-side checks: kernels report what PyTorch checks on the host (integer division by zero, an index
out of range) in one error word, read with the readback that happens anyway.

The error word is a 16-byte buffer per device: [0] the code of the first failed check, [1] the offending
value (as i32 bits), [2] the size the value was checked against; [3] is the latch the first failing invocation
takes (atomicExchange) before writing the others. A code is ``(op << 8) | (dim << 2) | kind``: ``op`` numbers the
public op (OPS), ``dim`` the indexed dim, ``kind`` the failure; all are in the kernel's source, so a kernel stays
cached across calls.

Cost: a checking kernel binds one more buffer; a read of any tensor (``item``, ``tolist``, ``numpy``) or a
``synchronize`` copies the word in the same submit as its data and maps both at once -- no readback of its
own. When the word is set, the read raises the error PyTorch raises for that op (type and message), naming
the op, and clears the word; the kernel meanwhile clamped the index (no access out of bounds) or divided by
a harmless value, so nothing else is corrupted.
"""
from ..base import IndexOutOfRange
from ..op_facts import VALUE_CHECKS

# public op -> number in the code (append only: codes are in cached kernel sources)
OPS = ("floor_divide", "remainder", "fmod", "index", "index_select", "gather", "scatter", "embedding",
       "nll_loss", "index_put_", "embedding_backward", "max_unpool", "gather_plane", "multi_margin_loss",
       "binary_cross_entropy", "normal", "histc", "binary_cross_entropy_target")
_OP_NO = {name: i + 1 for i, name in enumerate(OPS)}
DIV_ZERO, INDEX, VALUE = 1, 2, 3  # VALUE: an op's input check (value_checks.py), worded by op_facts.VALUE_CHECKS

NBYTES = 16
_active = [None]  # the ErrorWord of the device (one webgpu device per process)


def word_buffer():
    """The error word's Buffer, for a kernel that reports into it."""
    return _active[0].binding()


def code(op, kind, dim=0):
    return (_OP_NO[op] << 8) | (min(dim, 63) << 2) | kind


# WGSL of the reporting helpers; ERR is the error word's binding, declared by the kernel that uses them
HELPERS = """fn wt_report(code: u32, value: i32, size: u32) {
  if (atomicExchange(&ERR[3], 1u) == 0u) {
    atomicStore(&ERR[0], code);
    atomicStore(&ERR[1], bitcast<u32>(value));
    atomicStore(&ERR[2], size);
  }
}
fn wt_nonzero_i32(b: i32, code: u32) -> i32 {
  if (b == 0) { wt_report(code, 0, 0u); return 1; }
  return b;
}
fn wt_nonzero_u32(b: u32, code: u32) -> u32 {
  if (b == 0u) { wt_report(code, 0, 0u); return 1u; }
  return b;
}
fn wt_nonzero_i64(b: vec2<u32>, code: u32) -> vec2<u32> {
  if ((b.x | b.y) == 0u) { wt_report(code, 0, 0u); return vec2<u32>(1u, 0u); }
  return b;
}
// i within [lo, hi] (a negative lo allows Python's negative indices), else reported and clamped
fn wt_in_range(i: i32, lo: i32, hi: i32, code: u32) -> i32 {
  if (i < lo || i > hi) { wt_report(code, i, u32(hi + 1)); return clamp(i, lo, hi); }
  return i;
}
fn wt_in_range_or(i: i32, lo: i32, hi: i32, exempt: i32, code: u32) -> i32 {
  if (i == exempt) { return i; }
  return wt_in_range(i, lo, hi, code);
}
"""


def declaration(binding):
    return f"@group(0) @binding({binding}) var<storage, read_write> ERR: array<atomic<u32>, 4>;"


def error(word, checked=True):
    """The exception PyTorch raises for the failed check in ``word`` (code, value, size, -), or None when none
    failed. ``checked``: found by a kernel (the message says so: it surfaces at a later read)."""
    c, value, size = word[0], word[1], word[2]
    if not c:
        return None
    op = OPS[(c >> 8) - 1] if 0 < (c >> 8) <= len(OPS) else "a webgpu kernel"
    kind, dim = c & 3, (c >> 2) & 63
    value = value - (1 << 32) if value >= 1 << 31 else value
    where = f" ({op}, checked on the webgpu device)" if checked else ""
    if kind == DIV_ZERO:
        return RuntimeError("ZeroDivisionError" + where)
    if kind == VALUE:
        return RuntimeError(VALUE_CHECKS[op] + where)
    if op == "nll_loss":  # cross_entropy's too
        return IndexError(f"Target {value} is out of bounds." + where)
    if op == "multi_margin_loss":
        return RuntimeError("target out of range" + where)
    if op in ("index_select", "embedding", "embedding_backward"):
        return IndexError("index out of range in self" + where)
    if op == "max_unpool":
        return RuntimeError(f"Found an invalid max index: {value} (output volumes are of size {size})" + where)
    if op in ("index", "index_put_"):  # the op layer words it for index_select, index_add_, ...
        err = IndexOutOfRange(value, dim, size)
        err.args = (err.args[0] + where,)
        return err
    return RuntimeError(f"index {value} is out of bounds for dimension {dim} with size {size}" + where)


class ErrorWord:
    """The device's error word: its Buffer (bound by checking kernels), whether a checking kernel ran since the
    word was last read (``armed``), and reading it with a readback that happens anyway."""

    def __init__(self, rt, pool):
        from ... import _dtype as D
        from .handles import Storage
        self.rt = rt
        self.storage = Storage(NBYTES // 4, D.uint32, pool)  # held here: the buffer lives with the device
        self.buf = self.storage.buf
        self.armed = False
        self._zeroed = False
        _active[0] = self

    def binding(self):
        """The Buffer a checking kernel binds (zeroed on its first use)."""
        if not self._zeroed:
            self.rt.write(self.buf.ensure(), 0, bytes(NBYTES))
            self._zeroed = True
        return self.buf

    def read(self, buf, offset, nbytes):
        """``rt.read(buf, offset, nbytes)``, with the error word copied in the same submit when a checking kernel
        ran since the last read; raises the failed check's error (and clears the word)."""
        if not self.armed:
            return self.rt.read(buf, offset, nbytes)
        raw, word = self.rt.read(buf, offset, nbytes, check=self.buf.id)
        if word is not None:  # None: served from a prefetch without the word (the next read carries it)
            self.armed = False
            self._raise_if(word)
        return raw

    def check(self):
        """Wait for the device, reading the word if armed (``synchronize``); raises as ``read``."""
        if not self.armed:
            self.rt.wait()
            return
        _, word = self.rt.read(self.buf.id, 0, 4, check=self.buf.id)
        self.armed = False
        self._raise_if(word)

    def _raise_if(self, word):
        import struct
        err = error(struct.unpack("<4I", bytes(word[:NBYTES])))
        if err is not None:
            self.rt.write(self.buf.id, 0, bytes(NBYTES))
            raise err
