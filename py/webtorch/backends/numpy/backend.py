"""Device "cpu": eager NumPy. A handle is an ndarray view of a root ndarray (its storage).

NumpyBackend lists every primitive of base.py: the handle metadata and views here, every other one a delegation
to the plain function of the same name in its family module (creation, transfer, elementwise, reduction, linalg,
indexing, convolution, optim, nn, scan_sort, rng). No primitive runs on another backend (``host_fallbacks`` is empty).
"""
import functools

import numpy as np

from ..base import Backend
from . import convolution, creation, elementwise, indexing, linalg, nn, optim, reduction, rng, scan_sort, transfer
from .arrays import FROM_NP
from .indexing import check_writable

# PyTorch does not warn on inf/nan producing math; neither do we (kept to the ufuncs we call).
np.seterr(all="ignore")


def _root(h):
    while isinstance(h.base, np.ndarray):
        h = h.base
    return h


def _storage(h):
    """h's storage as a C-contiguous array from its first element (what as_strided's offsets count from)."""
    root = h if h.base is None else _root(h)
    if root.flags.c_contiguous:
        return root
    # a foreign non-contiguous array shared by from_numpy: the memory it spans, from its first element
    span = 1 + sum((n - 1) * st for n, st in zip(root.shape, root.strides)) // root.itemsize if root.size else 0
    return np.lib.stride_tricks.as_strided(root, (span,), (root.itemsize,))


@functools.lru_cache(maxsize=4096)  # geometry's hot path; bounded: dynamic shapes bring new strides without end
def _element_strides(byte_strides, itemsize):
    """NumPy's byte strides in elements (computed once per (strides, itemsize): a training step repeats them)."""
    return tuple([s // itemsize for s in byte_strides])


class NumpyBackend(Backend):
    device_type = "cpu"
    host_fallbacks = frozenset()

    # ---- metadata -----------------------------------------------------------------------------------
    def shape(self, h):
        return h.shape

    def geometry(self, h):
        isz = h.itemsize
        off = 0 if h.base is None else (h.__array_interface__["data"][0] - self.storage_ptr(h)) // isz
        return h.shape, _element_strides(h.strides, isz), off

    def dtype(self, h):
        return FROM_NP[h.dtype]

    def data_ptr(self, h):
        return h.__array_interface__["data"][0]

    def storage_ptr(self, h):
        return _root(h).__array_interface__["data"][0]

    def storage_nbytes(self, h):
        return _root(h).nbytes

    # ---- creation and host transfer -----------------------------------------------------------------------
    empty = staticmethod(creation.empty)
    full = staticmethod(creation.full)
    arange = staticmethod(creation.arange)
    linspace = staticmethod(creation.linspace)
    eye = staticmethod(creation.eye)
    from_flat = staticmethod(transfer.from_flat)
    from_buffer = staticmethod(transfer.from_buffer)
    from_numpy = staticmethod(transfer.from_numpy)
    to_numpy = staticmethod(transfer.to_numpy)
    to_bytes = staticmethod(transfer.to_bytes)
    tolist = staticmethod(transfer.tolist)
    item = staticmethod(transfer.item)
    known_range = staticmethod(transfer.known_range)

    # ---- views ----------------------------------------------------------------------------------------
    def as_strided(self, h, shape, stride, offset):
        isz = h.itemsize
        storage = h if h.base is None and h.flags.c_contiguous else _storage(h)
        offset *= isz
        if offset > storage.nbytes:  # an empty view past the end (PyTorch keeps its offset): no element
            offset = 0
        v = np.ndarray(shape, h.dtype, storage, offset, tuple([s * isz for s in stride]))
        if 0 in stride and any(st == 0 and n > 1 for n, st in zip(shape, stride)):
            v.flags.writeable = False  # an expanded view: several elements at one address (check_writable)
        return v

    # ---- copies and casts ---------------------------------------------------------------------------------
    def copy_(self, dst, src):
        check_writable(dst)
        np.copyto(dst, src, casting="unsafe")

    def contiguous(self, h):
        return np.array(h, order="C", copy=True)

    cast = staticmethod(transfer.cast)
    to_other = staticmethod(transfer.to_other)

    # ---- compute -----------------------------------------------------------------------------------------
    elementwise = staticmethod(elementwise.elementwise)
    reduce = staticmethod(reduction.reduce)
    arg_reduce = staticmethod(reduction.arg_reduce)
    matmul = staticmethod(linalg.matmul)

    # ---- random ------------------------------------------------------------------------------------------
    rng_new = staticmethod(rng.rng_new)
    rng_get_state = staticmethod(rng.rng_get_state)
    rng_set_state = staticmethod(rng.rng_set_state)
    uniform = staticmethod(rng.uniform)
    normal = staticmethod(rng.normal)
    randint = staticmethod(rng.randint)
    randperm = staticmethod(rng.randperm)
    bernoulli = staticmethod(rng.bernoulli)

    # ---- indexing ----------------------------------------------------------------------------------------
    index = staticmethod(indexing.index)
    index_put_ = staticmethod(indexing.index_put_)
    gather = staticmethod(indexing.gather)
    scatter_ = staticmethod(indexing.scatter_)
    nonzero = staticmethod(indexing.nonzero)
    flip = staticmethod(indexing.flip)

    # ---- convolution, pooling, padding, embedding --------------------------------------------------------
    conv = staticmethod(convolution.conv)
    conv_backward_input = staticmethod(convolution.conv_backward_input)
    conv_backward_weight = staticmethod(convolution.conv_backward_weight)
    im2col = staticmethod(convolution.im2col)
    col2im = staticmethod(convolution.col2im)
    max_pool = staticmethod(convolution.max_pool)
    adaptive_max_pool = staticmethod(convolution.adaptive_max_pool)
    avg_pool = staticmethod(convolution.avg_pool)
    avg_pool_backward = staticmethod(convolution.avg_pool_backward)
    scatter_plane = staticmethod(convolution.scatter_plane)
    gather_plane = staticmethod(convolution.gather_plane)
    pad = staticmethod(convolution.pad)
    pad_backward = staticmethod(convolution.pad_backward)
    embedding = staticmethod(convolution.embedding)
    embedding_backward = staticmethod(convolution.embedding_backward)
    embedding_renorm_ = staticmethod(convolution.embedding_renorm_)

    # ---- optim: fused multi-tensor optimizer updates -----------------------------------------------------
    sgd_update = staticmethod(optim.sgd_update)
    adam_update = staticmethod(optim.adam_update)
    rmsprop_update = staticmethod(optim.rmsprop_update)
    adagrad_update = staticmethod(optim.adagrad_update)
    adadelta_update = staticmethod(optim.adadelta_update)
    adamax_update = staticmethod(optim.adamax_update)
    nadam_update = staticmethod(optim.nadam_update)
    radam_update = staticmethod(optim.radam_update)

    # ---- nn: fused softmax, layer norm and batch norm -----------------------------------------------------
    softmax = staticmethod(nn.softmax)
    softmax_backward = staticmethod(nn.softmax_backward)
    layer_norm = staticmethod(nn.layer_norm)
    layer_norm_backward = staticmethod(nn.layer_norm_backward)
    batch_norm = staticmethod(nn.batch_norm)
    batch_norm_backward = staticmethod(nn.batch_norm_backward)

    # ---- scans, sorting, searching ------------------------------------------------------------------------
    cumulative = staticmethod(scan_sort.cumulative)
    sort = staticmethod(scan_sort.sort)
    topk = staticmethod(scan_sort.topk)
    searchsorted = staticmethod(scan_sort.searchsorted)
    unique = staticmethod(scan_sort.unique)
    check_classes = Backend.check_classes  # base.py's check reads the values back: cheap on the host
    require_all = Backend.require_all  # base.py's reads one bool back: cheap on the host

    # ---- dense linear algebra -----------------------------------------------------------------------------
    linalg_inv = staticmethod(linalg.linalg_inv)
    linalg_det = staticmethod(linalg.linalg_det)
    linalg_solve = staticmethod(linalg.linalg_solve)
    linalg_cholesky = staticmethod(linalg.linalg_cholesky)
    linalg_solve_triangular = staticmethod(linalg.linalg_solve_triangular)
    linalg_slogdet = staticmethod(linalg.linalg_slogdet)
    linalg_qr = staticmethod(linalg.linalg_qr)
    linalg_eigh = staticmethod(linalg.linalg_eigh)
    linalg_svd = staticmethod(linalg.linalg_svd)
    linalg_lstsq = staticmethod(linalg.linalg_lstsq)


_BACKEND = NumpyBackend()


def get_backend():
    return _BACKEND
