"""Operand layouts for matmul_register.wgsl (the product kernel of a CPU adapter).

The kernel loads an operand by vec4 only in its modes 1 and 2 (contiguous along or across the vec4
direction, sizes and strides multiples of 4: ``operand_mode``); any other layout takes mode 0, a
clamped scalar load per element, several times slower on SwiftShader. The convolutions' GEMMs meet it all the
time: LeNet's conv2 weight is (16, 150) (K = 150), its input-gradient product reads the weight transposed with
a row stride of 150. ``vec4_operands`` copies such an operand, when it is small next to the product, into
the contiguous layout that gets a vec4 mode: row-major when the vec4 direction's size is a multiple of 4,
else column-major when the other one is. (SwiftShader, LeNet's step, one profiled step each on a loaded
machine: conv2's forward product 49 -> 16 ms, its input-gradient product 128 -> 17 ms.)
"""
from .elementwise_kernels import contiguous
from .handles import View

_MIN_REUSE = 8  # copy only when each copied element then serves at least this many products' rows/columns
_MIN_MACS = 1 << 20  # ... and the product is big enough to outweigh the copy's dispatch (a classifier head is not)


def operand_mode(along, across, n_along, n_across, batch_strides, offset):
    """Load mode of matmul_tiled.wgsl (P[5].z for A, P[5].w for B; matmul_register.wgsl's A_MODE, B_MODE) for an
    operand whose tile is vec4 ``along`` one dim
    (A: K, B: N): 1 when contiguous along it, 2 when contiguous across it (a transposed matrix), each
    only when every other stride, the offset and the contiguous dim's size are multiples of 4; else 0."""
    rest = batch_strides + (offset,)
    if along == 1 and n_along % 4 == 0 and across % 4 == 0 and all(x % 4 == 0 for x in rest):
        return 1
    if across == 1 and n_across % 4 == 0 and along % 4 == 0 and all(x % 4 == 0 for x in rest):
        return 2
    return 0


def vec4_operands(rec, a, b, batch_elems, m, n, k):
    """(a, b) for a matmul_register product of a (..., m, k) and b (..., k, n) (``batch_elems`` products):
    each operand whose layout would take the scalar mode 0 copied into one with vec4 loads, where one exists
    and the copy is cheap."""
    if batch_elems * m * n * k < _MIN_MACS:
        return a, b
    a_mode = operand_mode(a.strides[-1], a.strides[-2], k, m, a.strides[:-2], a.offset)
    b_mode = operand_mode(b.strides[-1], b.strides[-2], n, k, b.strides[:-2], b.offset)
    if a_mode == 0 and n >= _MIN_REUSE:
        a = _relayout(rec, a, k, m)
    if b_mode == 0 and m >= _MIN_REUSE:
        b = _relayout(rec, b, n, k)
    return a, b


def _relayout(rec, h, along, across):
    """h (..., rows, cols) contiguous in the layout with a vec4 mode: the vec4 direction ``along`` (h's
    columns for A, B alike) contiguous when its size is a multiple of 4, else the other one, else h as is."""
    if along % 4 == 0:
        return contiguous(rec, h)
    if across % 4 == 0:  # column-major: a contiguous copy of the transpose, seen transposed back
        t = contiguous(rec, View(h.st, h.shape[:-2] + h.shape[:-3:-1], h.strides[:-2] + h.strides[:-3:-1],
                               h.offset))
        return View(t.st, h.shape, t.strides[:-2] + t.strides[:-3:-1], t.offset)
    return h
