"""Storages larger than one binding on the webgpu device: windows of one buffer, and launches split to fit them.

WebGPU lets one binding show at most maxStorageBufferBindingSize bytes of a buffer (128 MiB on lavapipe and by
default in Chrome) while one buffer may hold maxBufferSize (2 GiB on lavapipe, 1 GiB on SwiftShader, more on
GPUs); GPT-2 small's token embedding (50,257 x 768 float32, 154 MB) is past the first and within the second.

The decision: a storage stays ONE buffer (up to maxBufferSize). A kernel that meets one larger than a binding
binds a *window* of it -- bytes [start, start + size) with start a multiple of 256 (WebGPU's largest
minStorageBufferOffsetAlignment), size a multiple of 16 (whole vec4s, which the product kernels read) and
within the binding limit -- and addresses it relative to the window's
start (``bind`` rebases the views whose offsets the kernel takes). A launch whose operands do not each fit one
window is split, by the family that knows its access pattern, into pieces that do: narrowed index spaces of an
elementwise kernel (``pieces``), halves of a reduction, row/column/K/batch blocks of a product, row ranges
of an embedding, flat chunks of an optimizer update, counter ranges of a random fill -- one dispatch each. A
kernel whose addresses come from data (gather, index, scatter, nonzero) runs once per window tiling the storage and
skips the addresses outside its window (``tiles``). The row and plane families (softmax, the norms, convolutions,
pooling, scans and sorts, linalg's solvers, pad, unfold) run in blocks of their independent work instead
(block_split.py).

Why one buffer, not several per storage: every byte-level path stays as it is (upload, readback, checkpoint
save and load move whole ranges with writeBuffer/copyBufferToBuffer, which know no binding limit); so do the
pool and the lazy graph (a node still names the storage's Buffer, so ordering, fusion and dead-node decisions
see every access to it; only the bound list of a dispatch names a Window), and the WGSL (no branch between
buffers in a kernel: only its offsets move). Small storages take none of this: one size compare per operand.
A storage past maxBufferSize cannot exist at all: the pool raises OutOfMemoryError naming the sizes
(memory.py). A template kernel that cannot split yet refuses a large operand when recorded, naming itself
(pending.check_bindings), rather than letting the device reject the flush.
"""
from ..._geometry import contiguous_strides, numel
from . import codegen
from .dtypes import DEVICE_ITEMSIZE
from .handles import DeviceOp, Src, View
from .runtime import OutOfMemoryError

ALIGN = 256  # a window's first byte: a multiple of every adapter's minStorageBufferOffsetAlignment


class Window:
    """Bytes [start, start + nbytes) of a Buffer, bound at that offset: stands in for the Buffer in a dispatch's
    bound list (``ensure`` gives the runtime's id of the window); reads and writes still name the Buffer."""
    __slots__ = ("buf", "start", "nbytes")
    id = None  # never cached: a replayed plan asks ``ensure`` (the buffer may be allocated there)

    def __init__(self, buf, start, nbytes):
        self.buf = buf
        self.start = start
        self.nbytes = nbytes

    def ensure(self):
        buf = self.buf
        return buf.pool.rt.window(buf.ensure(), self.start, self.nbytes)

    def alive(self):
        return self.buf.alive()


def is_big(buf):
    """True when ``buf`` (a Buffer) is larger than one binding of its device may show."""
    return buf.nbytes > buf.pool.limits.binding_size()


def span(shape, strides, offset):
    """(lowest, highest) element a view of this geometry touches, or None when it is empty."""
    lo = hi = offset
    for n, s in zip(shape, strides):
        if n == 0:
            return None
        if s > 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return lo, hi


def _windows(operands):
    """{id(Buffer): Window} covering every access of each large buffer among ``operands`` -- (buf, shape, strides,
    offset, itemsize) -- or raise when one does not fit a binding (the caller splits first)."""
    spans = {}
    for buf, shape, strides, offset, isz in operands:
        if not is_big(buf):
            continue
        sp = span(shape, strides, offset)
        lo, hi = (0, 0) if sp is None else sp
        old = spans.get(id(buf))
        if old is not None:
            lo, hi = min(lo, old[1]), max(hi, old[2])
        spans[id(buf)] = (buf, lo, hi, isz)
    wins = {}
    for k, (buf, lo, hi, isz) in spans.items():
        start = lo * isz // ALIGN * ALIGN
        size = (hi + 1) * isz - start
        size += (-size) % 16  # whole vec4s: a kernel reading array<vec4<f32>> sees its last elements
        limit = buf.pool.limits.binding_size()
        if size > limit:
            raise OutOfMemoryError(f"an operand spans {size:,} bytes of a {buf.nbytes:,}-byte tensor, past this "
                                   f"adapter's maxStorageBufferBindingSize ({limit:,}): its launch was not split")
        wins[k] = Window(buf, start, size)
    return wins


def _of_views(views):
    return [(v.st.buf, v.shape, v.strides, v.offset, DEVICE_ITEMSIZE[v.dtype]) for v in views]


def _fit(operands):
    try:
        _windows(operands)
    except OutOfMemoryError:
        return False
    return True


def fits(views):
    """True when every view's storage fits one binding, or the view's part of it (with the others') does."""
    return not any(is_big(v.st.buf) for v in views) or _fit(_of_views(views))


def bind(views):
    """(the views rebased to their windows, the binding of each): a view of a storage within one binding is
    itself, bound as its Buffer; of a larger one, it keeps its storage but its offset counts from its Window,
    which covers every listed view of that storage."""
    wins = _windows(_of_views(views))
    if not wins:
        return list(views), [v.st.buf for v in views]
    out, binds = [], []
    for v in views:
        w = wins.get(id(v.st.buf))
        if w is None:
            out.append(v)
            binds.append(v.st.buf)
        else:
            out.append(View(v.st, v.shape, v.strides, v.offset - w.start // DEVICE_ITEMSIZE[v.dtype]))
            binds.append(w)
    return out, binds


def largest_dim(views):
    """The dim along which the views' largest window extends furthest (the one to split), or None."""
    return _largest_dim(_of_views(views))


def _largest_dim(operands):
    best, dim = 0, None
    for buf, shape, strides, _, isz in operands:
        if not is_big(buf):
            continue
        for d, (n, s) in enumerate(zip(shape, strides)):
            if n > 1 and abs(s) * (n - 1) * isz > best:
                best, dim = abs(s) * (n - 1) * isz, d
    return dim


def narrowed(v, dim, start, stop):
    """View v restricted to [start, stop) along dim."""
    shape = v.shape[:dim] + (stop - start,) + v.shape[dim + 1:]
    return View(v.st, shape, v.strides, v.offset + start * v.strides[dim])


def halves(n):
    """The two ranges a split of n gives."""
    m = n // 2
    return (0, m), (m, n)


# ---- generated kernels (elementwise and reductions) recorded over windows ----------------------------------

def _operands(node):
    """(buf, shape, strides, offset, itemsize) of every operand of an elementwise node (all over its index space)."""
    return [(s.buf, node.shape, s.strides, s.offset, DEVICE_ITEMSIZE[s.dtype]) for s in (node.out, *node.srcs)]


def pieces(node):
    """Index boxes ((start, stop) per dim) splitting elementwise ``node`` so every operand fits one window each."""
    out = []
    stack = [tuple((0, n) for n in node.shape)]
    while stack:
        box = stack.pop()
        operands = _operands(_narrow_node(node, box))
        if _fit(operands):
            out.append(box)
            continue
        d = _largest_dim(operands)
        if d is None:
            raise OutOfMemoryError("one element of an elementwise kernel spans more than one binding")
        a, b = box[d]
        (lo0, lo1), (hi0, hi1) = halves(b - a)
        stack.append(box[:d] + ((a + hi0, a + hi1),) + box[d + 1:])
        stack.append(box[:d] + ((a + lo0, a + lo1),) + box[d + 1:])
    return out


def _narrow_node(node, box):
    shape = tuple(b - a for a, b in box)

    def cut(s):
        return Src(s.buf, s.strides, s.offset + sum(a * st for (a, _), st in zip(box, s.strides)), s.dtype)
    return DeviceOp(node.kind, shape, cut(node.out), [cut(s) for s in node.srcs], node.attrs)


def _flat_start(shape, box):
    """Flat index of the box's first element when the box is a run of consecutive flat indices, else None."""
    start, inner, partial = 0, 1, False
    for (a, b), n in zip(reversed(box), reversed(shape)):
        if partial and b - a != 1:
            return None
        if b - a != n:
            partial = True
        start += a * inner
        inner *= n
    return start


def record_elementwise(rec, node):
    """Record elementwise ``node`` (absolute offsets, over storages of any size) as one windowed dispatch per
    piece of its index space; a piece's kernel is generated here (it fuses with nothing)."""
    boxes = pieces(node)
    iota = "iota" in node.attrs["args"]
    for box in boxes:
        sub = _narrow_node(node, box)
        if iota:
            i0 = _flat_start(node.shape, box)
            if i0 is None:
                raise OutOfMemoryError("an index-valued (arange-like) elementwise kernel over a tensor past one "
                                       "binding was split across rows: make the tensor contiguous first")
            sub.attrs = dict(node.attrs, iota0=i0)
        _record_generated(rec, sub, codegen.elementwise_kernel, _operands(sub), f"fused_{node.attrs['op']}")


def record_reduction(rec, node):
    """Record reduction ``node`` whose input fits one window (reduce_kernels splits the others) as a windowed
    dispatch; its output is a fresh storage within one binding."""
    s = node.srcs[0]
    operands = [(s.buf, node.shape, s.strides, s.offset, DEVICE_ITEMSIZE[s.dtype])]
    _record_generated(rec, node, rec.planner.reduce_kernel, operands, f"reduce_{node.attrs['op']}")


def _record_generated(rec, node, generate, operands, name):
    wins = _windows(operands)

    def rebased(s):
        w = wins.get(id(s.buf))
        return s if w is None else Src(s.buf, s.strides, s.offset - w.start // DEVICE_ITEMSIZE[s.dtype], s.dtype)
    local = DeviceOp(node.kind, node.shape, rebased(node.out), [rebased(s) for s in node.srcs], node.attrs)
    source, kbufs, params, groups = generate(local, {}, rec.limits)
    bound = [wins.get(id(b), b) for b in kbufs]
    rec.record_kernel(name, source, params, groups, bound, [s.buf for s in node.srcs],
                      [node.out.buf])


# ---- reductions over more than one window -------------------------------------------------------------------

_COMBINE = {"sum": "add", "mean": "add", "prod": "mul", "amax": "maximum", "amin": "minimum", "all": "minimum",
            "any": "maximum"}


def reduce_in_halves(rec, reduce, op, h, dims, keepdim, dtype):
    """``reduce(rec, op, view, dims, keepdim, dtype)`` of h, which spans more than one window, from its two halves
    along the dim it extends furthest in: side by side when that dim is kept, combined when it is reduced."""
    if op not in _COMBINE:
        raise OutOfMemoryError(f"reduction '{op}' over a tensor past one binding ({h.st.buf.nbytes:,} bytes, "
                               f"maxStorageBufferBindingSize {rec.limits.binding_size():,}) is not split yet")
    d = largest_dim([h])
    parts = [narrowed(h, d, a, b) for a, b in halves(h.shape[d])]
    kept_shape = tuple((1 if i in dims else n) for i, n in enumerate(h.shape))
    if d in dims:
        first, second = (reduce(rec, "sum" if op == "mean" else op, p, dims, True, dtype) for p in parts)
        out = rec.ew(_COMBINE[op], [first, second], dtype, dtype, kept_shape)
        if op == "mean":
            out = rec.ew("div", [out, ("c", numel([h.shape[i] for i in dims]))], dtype, dtype, kept_shape)
    else:
        out = rec.new(kept_shape, dtype)
        for (a, b), p in zip(halves(h.shape[d]), parts):
            r = reduce(rec, op, p, dims, True, dtype)
            rec.ew("copy", [r], dtype, dtype, r.shape, out=narrowed(out, d, a, b))
    if keepdim:
        return out
    shape = tuple(n for i, n in enumerate(h.shape) if i not in dims)
    return View(out.st, shape, contiguous_strides(shape), 0)


# ---- template kernels whose operands move by whole rows, or by data-dependent addresses ---------------------

def tiles(v):
    """[(binding, first element, elements)]: windows tiling the whole storage of view v in order, each element in
    exactly one, for a kernel whose addresses come from data (gather, scatter: it skips those outside its window);
    one entry -- the Buffer itself, from element 0, every element -- when the storage fits one binding."""
    buf = v.st.buf
    isz = DEVICE_ITEMSIZE[v.dtype]
    if not is_big(buf):
        return [(buf, 0, 0xFFFFFFFF)]
    step = (buf.pool.limits.binding_size() // ALIGN) * ALIGN
    out = []
    for s in range(0, buf.nbytes, step):
        size = min(step, buf.nbytes - s)
        size += (-size) % 16
        out.append((Window(buf, s, size), s // isz, size // isz))
    return out


def row_ranges(n_rows, row_bytes, limits):
    """[(start, stop)] splitting n_rows rows of row_bytes each into runs that fit one window (after alignment) of
    the device whose ``limits`` (limits.py) are given."""
    per = max(1, (limits.binding_size() - ALIGN) // max(row_bytes, 1))
    return [(r, min(r + per, n_rows)) for r in range(0, n_rows, per)]

