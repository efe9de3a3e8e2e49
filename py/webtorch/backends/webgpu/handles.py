"""What the webgpu device records with: handles (Views of Storages), device Buffers, operands (Src) and the
recorded ops (DeviceOp) the pending queue (pending.py) holds until a flush.

Ownership: a View (what Tensor._data holds) references a Storage; every view of one storage shares
it (a view(dtype) references a StorageAlias: the Storage's buffer under another dtype, holding the
Storage). The Storage owns a Buffer (device memory, allocated by the planner when first written) and the
pending nodes reference Buffers directly. So "the Storage is gone" means no Python tensor can ever
read this memory again: the planner uses that to fuse an intermediate away (never allocating it),
and the Buffer returns to the pool as soon as neither a tensor nor a pending node references it.
"""
import itertools
import weakref

from ..strided_view import StridedView
from . import dtypes as T

_keys = itertools.count(1)
_ITEMSIZE = T.DEVICE_ITEMSIZE
_new_buffer = object.__new__
_ref = weakref.ref


class Buffer:
    """Device memory of one storage; ``id`` stays None until the planner first needs it. ``bounds``:
    (min, max) of an integer buffer's values when the host knows them (set at upload or by a kernel that
    writes indices in a known range; any recorded write clears it), so index checks need no readback."""
    __slots__ = ("nbytes", "id", "cls", "owner", "pool", "bounds", "__weakref__")
    # made by its Storage alone (Storage.__init__ fills the fields: one Python frame less per recorded op)

    def ensure(self):
        if self.id is None:
            self.id, self.cls = self.pool.acquire(self.nbytes)
        return self.id

    def __del__(self):
        if self.id is not None:
            try:
                self.pool.release(self.id, self.cls)
            except Exception:  # noqa: BLE001 -- interpreter shutdown
                pass

    def alive(self):
        """True while some tensor can still read this memory."""
        o = self.owner
        return o is not None and o() is not None


class Storage:
    """What all views of one tensor storage share: the buffer, the element dtype and count."""
    __slots__ = ("buf", "dtype", "numel", "key", "__weakref__")

    def __init__(self, numel, dtype, pool):
        self.buf = buf = _new_buffer(Buffer)
        nbytes = numel * _ITEMSIZE[dtype]
        buf.nbytes = nbytes if nbytes > 4 else 4
        buf.id = None
        buf.cls = 0
        buf.owner = _ref(self)
        buf.pool = pool
        buf.bounds = None
        self.dtype = dtype
        self.numel = numel
        self.key = next(_keys)

    @property
    def root(self):
        """The Storage owning the buffer (a StorageAlias's base)."""
        return self


class StorageAlias:
    """A Storage's buffer under another dtype whose device bytes are its host bytes (Tensor.view(dtype)): the same
    buffer and key (so the same storage to the planner and to data_ptr); it keeps the Storage alive."""
    __slots__ = ("base", "buf", "dtype", "numel", "key", "__weakref__")

    def __init__(self, base, dtype):
        self.base, self.buf, self.dtype, self.key = base, base.buf, dtype, base.key
        self.numel = base.numel * _ITEMSIZE[base.dtype] // _ITEMSIZE[dtype]

    @property
    def root(self):
        return self.base


def retyped(st, dtype):
    """Storage st's buffer seen as dtype (its root Storage for the root's own dtype)."""
    base = st.root
    return base if dtype is base.dtype else StorageAlias(base, dtype)


class View(StridedView):
    """A webgpu tensor handle: a strided view (shape, strides, offset in elements) of a Storage. Immutable;
    ``src``: its Src at its own shape once a node wrote or read it so (``src_of``), shared by every node that
    reads it so -- a chain of ops creates one Src per result, not one per use."""
    __slots__ = ("src",)

    def __init__(self, st, shape, strides, offset):
        self.st = st
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self.src = None

    def is_whole(self):
        """A C-contiguous view covering its entire storage from offset 0."""
        return self.offset == 0 and self.numel == self.st.numel and self.is_contiguous()


class Src:
    """One operand read by a node: a buffer seen with ``strides``/``offset`` over the node's index space.
    Immutable (nodes may share one)."""
    __slots__ = ("buf", "strides", "offset", "dtype")

    def __init__(self, buf, strides, offset, dtype):
        self.buf = buf
        self.strides = strides
        self.offset = offset
        self.dtype = dtype


def src_of(v):
    """View v as a node sees it over v's own shape (made once per view)."""
    s = v.src
    if s is None:
        st = v.st
        s = v.src = Src(st.buf, v.strides, v.offset, st.dtype)
    return s


class DeviceOp:
    """A recorded op. ``kind``: "ew" (elementwise), "reduce", "argreduce", "matmul", "kernel" (a template
    kernel with ready parameters). ``out`` is a Src naming the written buffer and geometry; ``shape``
    the index space; ``srcs`` the operands; ``attrs`` the kind's own fields (a "kernel" node that writes
    more buffers than ``out`` lists them in ``attrs["writes"]``, so the planner orders and keeps it)."""
    __slots__ = ("kind", "shape", "out", "srcs", "attrs")

    def __init__(self, kind, shape, out, srcs, attrs):
        self.kind = kind
        self.shape = shape
        self.out = out
        self.srcs = srcs
        self.attrs = attrs
