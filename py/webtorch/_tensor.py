"""Tensor: a strided view over a backend storage, with autograd metadata.

The bytes belong to the backend: ``_data`` is the backend's handle of this view (for "cpu" a NumPy
ndarray view; for "webgpu" a lazy buffer view). Ops are defined in webtorch.ops and attached here as
methods; this file holds only metadata, conversions and the autograd entry points.
"""

from . import _dtype as D
from . import _geometry as G
from . import _memory_format as _MF
from . import _torch_function as _TF
from ._layout import strided as _strided
from ._device import device as _device_cls, backend_for, get_default_device
from ._numpy_interop import require_numpy
from ._print import tensor_repr
from .autograd import graph as _graph
from .autograd.api import backward as _backward
from .autograd.grad_mode import state as _grad_state
from .autograd.tensor_base import TensorBase


class Size(tuple):
    """torch.Size: a tuple of ints printed as ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(int(s)) for s in self)}])"

    def numel(self):
        return G.numel(self)

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))


class Tensor(TensorBase):
    __slots__ = ("_data", "_geom", "_be", "_device", "dtype", "requires_grad", "_grad", "grad_fn", "_out_nr",
                 "_version", "_base", "_accum", "_retains_grad", "__weakref__", "__dict__")

    # PyTorch tensors are never hashed by value: identity hash, elementwise __eq__
    __hash__ = object.__hash__
    _inference = False  # set (in the instance dict) on tensors created inside inference_mode
    __array_priority__ = 1000

    # ops on a subclass go through its __torch_function__ (this default gives results the subclass's type)
    __torch_function__ = classmethod(_TF.default_torch_function)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _TF.install_on_subclass(cls)

    # -- metadata ----------------------------------------------------------------------------------
    # The geometry (Size shape, strides, storage offset; elements) is plain data on the Tensor, given with the
    # handle: a fresh op result is C-contiguous of the shape the op computed (``fresh_geometry``), a view's is
    # decided by _geometry. Whatever replaces ``_data`` replaces ``_geom`` with it (``_set_handle``).
    def _geometry_of(self):
        return self._geom

    def _set_handle(self, h, geom):
        """Point this tensor at handle h, whose (shape, strides, offset) is geom."""
        self._data = h
        self._geom = (Size(geom[0]), tuple(geom[1]), geom[2])

    @property
    def shape(self):
        return self._geom[0]

    def size(self, dim=None):
        s = self.shape
        if dim is None:
            return s
        return s[G.norm_dim(dim, len(s))]

    def dim(self):
        return len(self.shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self.shape)

    def numel(self):
        return G.numel(self.shape)

    nelement = numel

    def stride(self, dim=None):
        st = self._geometry_of()[1]
        return st if dim is None else st[G.norm_dim(dim, len(st))]

    def storage_offset(self):
        return self._geometry_of()[2]

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def is_contiguous(self, *, memory_format=None):
        shape, strides, _ = self._geometry_of()
        if memory_format in (_MF.channels_last, _MF.channels_last_3d):
            return _MF.is_channels_last_contiguous(memory_format, shape, strides)
        return G.is_contiguous(shape, strides)

    def data_ptr(self):
        return self._be.data_ptr(self._data)

    def untyped_storage(self):
        return _StorageRef(self)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return False

    def is_signed(self):
        return self.dtype.is_signed

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        """True on webgpu while the cuda alias is on ("cuda" names webgpu then), else False."""
        if self._device.type != "webgpu":
            return False
        from ._cuda_alias import is_on
        return is_on()

    @property
    def is_mps(self):
        return False

    @property
    def is_xpu(self):
        return False

    @property
    def is_cpu(self):
        return self._device.type == "cpu"

    @property
    def is_webgpu(self):
        return self._device.type == "webgpu"

    @property
    def is_sparse(self):
        return False

    @property
    def is_quantized(self):
        return False

    @property
    def is_meta(self):
        return False

    @property
    def layout(self):
        return _strided

    def get_device(self):
        return -1 if self._device.type == "cpu" else (self._device.index or 0)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            name = D.tensor_type_name(self.dtype)
            return ("torch." if self._device.type == "cpu" else f"torch.{self._device.type}.") + name
        if isinstance(dtype, type) and dtype.__name__.endswith("Tensor"):  # torch.FloatTensor, torch.cuda.X
            dtype = f"{dtype.__module__}.{dtype.__name__}"
        if isinstance(dtype, str) and dtype.startswith("torch.") and dtype.endswith("Tensor"):
            *where, name = dtype.split(".")
            target_dtype = D.from_tensor_type_name(name)
            on = {("torch",): "cpu", ("torch", "webgpu"): "webgpu", ("torch", "cuda"): "cuda"}.get(tuple(where))
            if target_dtype is None or on is None or (on == "cuda" and _device_cls("cuda").type == "cuda"):
                raise ValueError(f"invalid type: '{dtype}'" + (
                    " (webtorch has no CUDA; use .to(\"webgpu\") for the GPU)" if "cuda" in where else ""))
            target = self.to(device=on)
            return target.to(target_dtype)
        return self.to(D.to_dtype(dtype))

    # -- autograd ----------------------------------------------------------------------------------
    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, g):
        """PyTorch's checks on ``p.grad = g``: an optimizer step must never broadcast a wrong-sized gradient."""
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(g).__name__}")
            if g is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if g.dtype is not self.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype '{D.cpp_type_name(g.dtype)}' to a "
                                   f"tensor with grad_dtype '{D.scalar_type_name(self.dtype)}'. The gradient must "
                                   "match the tensor's grad_dtype (defaults to the tensor's dtype).")
            if g._device.type != self._device.type:
                raise RuntimeError(f"attempting to assign a gradient with device type '{g._device.type}' to a tensor "
                                   f"with device type '{self._device.type}'. Please ensure that the gradient and "
                                   "the tensor are on the same device")
            if g.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(g.shape)}' to a tensor of size "
                                   f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the "
                                   "same size")
        self._grad = g

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def retains_grad(self):
        return bool(self._retains_grad)

    @property
    def output_nr(self):
        return self._out_nr

    @property
    def _version_counter(self):
        return self._version[0]

    def requires_grad_(self, requires_grad=True):
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self.requires_grad = requires_grad
        return self

    def is_inference(self):
        return self._inference

    def detach(self):
        t = _wrap(self._data, self._be, self._device, self._geom, dtype=self.dtype)
        t._version = self._version
        return t

    def detach_(self):
        if self._base is not None and self._base.requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self.requires_grad = False
        return self

    @property
    def data(self):
        t = _wrap(self._data, self._be, self._device, self._geom, dtype=self.dtype)
        t._version = self._version
        return t

    @data.setter
    def data(self, other):
        # Swaps the storage this tensor refers to; autograd metadata is kept (PyTorch's .data = semantics).
        self._data = other._data
        self._geom = other._geom
        self._be = other._be
        self._device = other._device
        self.dtype = other.dtype
        self._version = other._version

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        _backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._add_tensor_hook(self._out_nr, hook)
        node = _graph.accumulator(self)
        self._hooked_accum = node  # a leaf's hooks live as long as the leaf (the node is otherwise weak)
        return node._add_tensor_hook(0, hook)

    def retain_grad(self):
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        import weakref
        ref = weakref.ref(self)

        def _retain(grad):
            t = ref()
            if t is not None:
                g = grad if _grad_state.enabled else grad.detach()
                t.grad = g.clone() if t.grad is None else t.grad + g
        self.grad_fn._add_tensor_hook(self._out_nr, _retain)
        self._retains_grad = True

    # -- conversion --------------------------------------------------------------------------------
    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self._be.item(self._data)

    def tolist(self):
        return self._be.tolist(self._data)

    def numpy(self, *, force=False):
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._device.type != "cpu" and not force:
            raise TypeError(f"can't convert {self._device.type} device type tensor to numpy. "
                            "Use Tensor.cpu() to copy the tensor to host memory first.")
        require_numpy("Tensor.numpy()")
        if self.dtype in D.FLOAT8:  # NumPy has no float8 (PyTorch's words; the bytes: .view(torch.uint8).numpy())
            raise TypeError(f"Got unsupported ScalarType {D.scalar_type_name(self.dtype)}")
        return self._be.to_numpy(self._data)

    # Async readback: Pyodide code entered without stack switching (runPython, a JS callback) cannot block
    # on the GPU; these await it and then read as item/tolist/numpy do (on cpu they simply return).
    async def _host_handle_async(self):
        prefetch = getattr(self._be, "prefetch_async", None)
        return self._data if prefetch is None else await prefetch(self._data)

    async def item_async(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self._be.item(await self._host_handle_async())

    async def tolist_async(self):
        return self._be.tolist(await self._host_handle_async())

    async def numpy_async(self, *, force=False):
        """The values as a NumPy array, read back from any device (``t.detach().cpu().numpy()``, awaited)."""
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        require_numpy("Tensor.numpy_async()")
        return self._be.to_numpy(await self._host_handle_async())

    def __array__(self, dtype=None, copy=None):
        a = self.detach().cpu().numpy()
        return a.astype(dtype, copy=False) if dtype is not None else a

    def _bytes(self):
        """The elements as little-endian bytes in C order (what checkpoints store)."""
        return self._be.to_bytes(self._data)

    def __len__(self):
        s = self.shape
        if not s:
            raise TypeError("len() of a 0-d tensor")
        return s[0]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError(f"Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __repr__(self, *, tensor_contents=None):
        cls = type(self)
        plain = cls is Tensor or (cls.__name__ == "Parameter" and cls.__module__.startswith("webtorch."))
        return tensor_repr(self, tensor_contents, plain)

    def __str__(self):
        return self.__repr__()

    def __format__(self, spec):
        if self.dim() == 0 and type(self) is Tensor:
            return format(self._be.item(self._data), spec)
        return object.__format__(self, spec)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        with _no_grad():
            new = self.clone()
        if type(self) is not Tensor:
            new = _as_subclass(new, type(self))
            new.__dict__.update({k: v for k, v in self.__dict__.items()})
        new.requires_grad = self.requires_grad
        if self.grad is not None:
            new.grad = self.grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new

    # -- device and dtype moves --------------------------------------------------------------------
    def cpu(self, memory_format=None):
        return self.to("cpu")

    def webgpu(self):
        return self.to("webgpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """To the webgpu device while the cuda alias is on; else PyTorch's no-CUDA error."""
        return self.to(_device_cls("cuda", device) if isinstance(device, int) else _device_cls(device or "cuda"))

    def float(self):
        return self.to(D.float32)

    def double(self):
        return self.to(D.float64)

    def half(self):
        return self.to(D.float16)

    def bfloat16(self):
        return self.to(D.bfloat16)

    def int(self):
        return self.to(D.int32)

    def long(self):
        return self.to(D.int64)

    def short(self):
        return self.to(D.int16)

    def char(self):
        return self.to(D.int8)

    def byte(self):
        return self.to(D.uint8)

    def bool(self):
        return self.to(D.bool_)

    def type_as(self, other):
        return self.to(other.dtype)

    def as_subclass(self, cls):
        """This tensor's data as an instance of ``cls``; it stays in the autograd graph (a view of ``self``, as
        PyTorch's alias) when ``self`` requires grad."""
        if not self.requires_grad:
            return _as_subclass(self, cls)
        with _TF.DisableTorchFunction():
            return _as_subclass(self.view(self.shape), cls)


_TF.set_tensor_class(Tensor)


class _StorageRef:
    """Just enough of torch.UntypedStorage to compare storages and read sizes."""

    def __init__(self, t):
        self._t = t

    def data_ptr(self):
        return self._t._be.storage_ptr(self._t._data)

    def nbytes(self):
        return self._t._be.storage_nbytes(self._t._data)

    def size(self):
        return self.nbytes()


def _no_grad():
    from .autograd.grad_mode import no_grad
    return no_grad()


# Fresh geometries by shape. Every op result asks, so a hit is one dict lookup (the elementwise hot paths read
# FRESH directly); a program makes few distinct shapes, and past the bound the oldest entry goes: an LRU's
# reordering would cost every hit more than rebuilding an evicted entry costs once.
FRESH = {}
_FRESH_MAX = 4096


def fresh_geometry(shape):
    """The geometry of a fresh op result of ``shape`` (a tuple): C-contiguous from storage offset 0 (the backend
    contract, backends/contract.py)."""
    try:
        return FRESH[shape]
    except KeyError:
        pass
    if len(FRESH) >= _FRESH_MAX:
        del FRESH[next(iter(FRESH))]
    g = FRESH[shape] = (Size(shape), G.contiguous_strides(shape), 0)
    return g


def handle_geometry(be, h):
    """The geometry of handle h as its backend records it: for a handle Python did not shape itself (a view made
    on handles, memory shared from NumPy, a result of data-dependent size)."""
    shape, strides, offset = be.geometry(h)
    return Size(shape), tuple(strides), offset


def _wrap(h, be, dev, geom, cls=Tensor, dtype=None):
    """A new Tensor (no autograd history) around backend handle h of geometry ``geom`` ((Size shape, strides,
    offset): ``fresh_geometry(shape)`` for an op's fresh result); dtype: h's, when the caller knows it."""
    t = object.__new__(cls)
    t._data = h
    t._geom = geom
    t._be = be
    t._device = dev
    t.dtype = be.dtype(h) if dtype is None else dtype
    return _no_history(t)


def _no_history(t):
    """t with the autograd fields of a fresh tensor: no history, version 0, no base (an inference tensor when made
    under inference_mode)."""
    t.requires_grad = False
    t._grad = None
    t.grad_fn = None
    t._out_nr = 0
    t._version = [0]
    t._base = None
    t._accum = None
    t._retains_grad = False
    if _grad_state.inference:
        t._inference = True
    return t


def _as_subclass(t, cls):
    new = _wrap(t._data, t._be, t._device, t._geom, cls, t.dtype)
    new._version = t._version
    new._base = t._base
    new.requires_grad = t.requires_grad
    new.grad_fn = t.grad_fn
    new._out_nr = t._out_nr
    return new


def _parse_to(t, *args, **kwargs):
    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    fmt = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            dev, dt = a._device, a.dtype
        elif isinstance(a, D.dtype):
            dt = a
        elif isinstance(a, (str, _device_cls)):
            dev = _device_cls(a)
        elif isinstance(a, bool) or a is None:
            pass  # non_blocking positional; None keeps the device / dtype (t.to(dev, None))
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
    if dev is not None:
        dev = _device_cls(dev)
    if dt is not None:
        dt = D.to_dtype(dt)
    return dev, dt, copy, fmt


def default_backend(device=None):
    dev = _device_cls(device) if device is not None else get_default_device()
    return backend_for(dev), dev
