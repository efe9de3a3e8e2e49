"""Creation ops: tensor, zeros/ones/full/empty, arange/linspace/eye, *_like, random creation, Generator."""
import math

from .. import _dtype as D
from .. import _layout
from .. import _memory_format as _MF
from .._device import device as _device_cls, backend_for, no_storage_error, _BACKEND_MODULES
from .._tensor import Tensor, _as_subclass, _wrap, default_backend, fresh_geometry, handle_geometry
from ._core.dispatch import new_size_arg
from ._core.inplace import not_implemented_for
from ._core.out_arg import ANY, RESIZED, Rule, floating, takes_out


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def _make(h, be, dev, shape, requires_grad=False):
    """The Tensor around a creation primitive's fresh result h of ``shape``."""
    return _finish(_wrap(h, be, dev, fresh_geometry(tuple(shape))), requires_grad)


_PLAIN_SCALARS = frozenset((float, int, bool))


def _flatten_data(data):
    """(flat list of Python numbers, shape, inferred dtype) of nested sequences."""
    flat = []
    kinds = set()

    def walk(x, depth, shape):
        if isinstance(x, Tensor):
            if x.dim() == 0:
                flat.append(x.item())
                kinds.add(x.dtype)
                return
            x = x.tolist()
        if isinstance(x, (list, tuple)) or (hasattr(x, "__len__") and hasattr(x, "__getitem__")
                                             and not isinstance(x, (str, bytes))):
            n = len(x)
            if depth == len(shape):
                shape.append(n)
            elif shape[depth] != n:
                raise ValueError(f"expected sequence of length {shape[depth]} at dim {depth} (got {n})")
            types = set(map(type, x)) if isinstance(x, (list, tuple)) else None
            if types and types <= _PLAIN_SCALARS and len(shape) == depth + 1:
                flat.extend(x)  # a row of plain Python numbers: checked and copied at C speed
                kinds.update(types)
                return
            for item in x:
                walk(item, depth + 1, shape)
            return
        if depth != len(shape):
            raise ValueError(f"expected sequence of length {shape[depth]} at dim {depth} (got a scalar)")
        if isinstance(x, bool):
            kinds.add(bool)
        elif isinstance(x, int):
            kinds.add(int)
        elif isinstance(x, float):
            kinds.add(float)
        elif hasattr(x, "item"):  # NumPy scalar
            x = x.item()
            kinds.add(type(x))
        else:
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        flat.append(x)

    shape = []
    walk(data, 0, shape)
    if float in kinds or any(isinstance(k, D.dtype) and k.is_floating_point for k in kinds):
        dt = D.get_default_dtype()
        for k in kinds:
            if isinstance(k, D.dtype) and k.is_floating_point:
                dt = D.promote_types(dt, k) if k is not D.float16 else dt
    elif int in kinds or any(isinstance(k, D.dtype) and k is not D.bool_ for k in kinds):
        dt = D.int64
    elif kinds:
        dt = D.bool_
    else:
        dt = D.get_default_dtype()
    return flat, tuple(shape), dt


def _is_numpy(x):
    return type(x).__module__ == "numpy" and hasattr(x, "dtype")


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    be, dev = default_backend(device)
    dt = D.to_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        t = data.detach().to(dev, dt if dt is not None else data.dtype, copy=True)
        if t._data is data._data:
            t = t.clone()
        return _finish(t, requires_grad)
    if _is_numpy(data):
        h = backend_for("cpu").from_numpy(data.reshape(data.shape), copy=True)
        t = _wrap(h, backend_for("cpu"), _device_cls("cpu"), fresh_geometry(tuple(data.shape)))
        if dt is not None or dev.type != "cpu":
            t = t.to(dev, dt)
        return _finish(t, requires_grad)
    flat, shape, inferred = _flatten_data(data)
    dt = dt or inferred
    if dt.is_floating_point is False:
        for v in flat:
            if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
                raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
    return _make(be.from_flat(flat, shape, dt), be, dev, shape, requires_grad)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (device or dtype) else data
    if _is_numpy(data):
        t = from_numpy(data)
        return t.to(device=device, dtype=dtype) if (device or dtype) else t
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, dtype=None, device=None, copy=None, requires_grad=False):
    t = tensor(obj, dtype=dtype, device=device) if copy else as_tensor(obj, dtype=dtype, device=device)
    return _finish(t, requires_grad)


def from_numpy(array):
    be = backend_for("cpu")
    h = be.from_numpy(array, copy=False)  # shares the array's memory, in the array's own geometry
    return _wrap(h, be, _device_cls("cpu"), handle_geometry(be, h))


def frombuffer(buffer, dtype, count=-1, offset=0, requires_grad=False, device=None):
    """Copy of the elements of a bytes-like object (PyTorch shares memory; webtorch copies).

    Created on ``device`` (default: the default device, "cpu" unless set)."""
    dt = D.to_dtype(dtype)
    mv = memoryview(buffer).cast("B")[offset:]
    n = len(mv) // dt.itemsize if count == -1 else count
    if n * dt.itemsize > len(mv) or (count == -1 and len(mv) % dt.itemsize):
        raise ValueError(f"buffer length ({len(mv)} bytes) is not a multiple of element size ({dt.itemsize})")
    be, dev = default_backend(device)
    return _make(be.from_buffer(mv[: n * dt.itemsize], (n,), dt), be, dev, (n,), requires_grad)


def _rebuild_tensor_from_bytes(data, dtype_name, shape, device, requires_grad):
    """Used by Tensor.__reduce_ex__ (pickle/copy of tensors)."""
    t = frombuffer(bytearray(data), dtype=D.from_name(dtype_name)).reshape(shape)
    if device != "cpu":
        t = t.to(device)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _refuse_dtype(kernel, dt):
    """PyTorch's error for a creation kernel that has no version for dt (reachable through dtype= or out=)."""
    raise not_implemented_for(kernel, dt)


def _filled(size, value, dtype, device, requires_grad, default=None, name="zeros"):
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    shape = new_size_arg(size)
    be, dev = default_backend(device)
    dt = D.to_dtype(dtype) if dtype is not None else (default or D.get_default_dtype())
    if value is None:
        h = be.empty(shape, dt)
    else:
        h = be.full(shape, value, dt)
    return _make(h, be, dev, shape, requires_grad)


def _factory(name, warn=False):
    """out= of a creation op: out supplies dtype and device, and is resized (silently, but for arange)."""
    return takes_out(name, ANY, factory=True, warn=warn)


@_factory("aten::zeros")
def zeros(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    _strided_only(layout, "zeros")
    return _filled(size, 0, dtype, device, requires_grad, name="zeros")


@_factory("aten::ones")
def ones(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    _strided_only(layout, "ones")
    return _filled(size, 1, dtype, device, requires_grad, name="ones")


@_factory(RESIZED)
def empty(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    _strided_only(layout, "empty")
    return _laid_out(lambda rg: _filled(size, None, dtype, device, rg, name="empty"), memory_format, None,
                     requires_grad)


@_factory("aten::full")
def full(size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False):
    _strided_only(layout, "full")
    if dtype is None:
        dtype = D.scalar_dtype(fill_value) if not isinstance(fill_value, Tensor) else fill_value.dtype
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    size_arg = (size,) if isinstance(size, int) else (tuple(size),)
    numel = size if isinstance(size, int) else math.prod(size)
    fill_value = D.fit_scalar(fill_value, D.to_dtype(dtype), numel)
    return _filled(size_arg, fill_value, dtype, device, requires_grad)


def _strided_only(layout, name):
    """The dense layout is the one a factory makes: any other is refused rather than ignored."""
    if layout is not None and layout is not _layout.strided:
        raise NotImplementedError(f"torch.{name}(layout={layout}) is not supported in webtorch: factories make "
                                  "strided tensors; build a sparse COO tensor with torch.sparse_coo_tensor(indices, "
                                  "values, size) or dense.to_sparse()")


def _like(t, dtype, device, layout, name):
    _strided_only(layout if layout is not None or not t.is_sparse else t.layout, name)
    return (dtype if dtype is not None else t.dtype), (device if device is not None else t._device)


def _laid_out(make, memory_format, like, requires_grad):
    """``make(requires_grad)`` in the layout ``memory_format`` asks (preserve_format: ``like``'s, when it is
    channels-last), a leaf that requires grad when asked."""
    fmt = _MF.resolve(memory_format, *like._geometry_of()[:2]) if like is not None else memory_format
    if fmt in (None, _MF.contiguous_format, _MF.preserve_format):
        return make(requires_grad)
    t = make(False).contiguous(memory_format=fmt)
    return t.requires_grad_() if requires_grad else t


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    dt, dev = _like(input, dtype, device, layout, "zeros_like")
    return _laid_out(lambda rg: zeros(tuple(input.shape), dtype=dt, device=dev, requires_grad=rg),
                     memory_format, input, requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    dt, dev = _like(input, dtype, device, layout, "ones_like")
    return _laid_out(lambda rg: ones(tuple(input.shape), dtype=dt, device=dev, requires_grad=rg),
                     memory_format, input, requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    dt, dev = _like(input, dtype, device, layout, "empty_like")
    return _laid_out(lambda rg: empty(tuple(input.shape), dtype=dt, device=dev, requires_grad=rg),
                     memory_format, input, requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    dt, dev = _like(input, dtype, device, layout, "full_like")
    return _laid_out(lambda rg: full(tuple(input.shape), fill_value, dtype=dt, device=dev, requires_grad=rg),
                     memory_format, input, requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    size, stride = new_size_arg((size,)), tuple(stride)
    span = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    flat = empty(span, dtype=dtype, device=device)
    return _finish(flat.as_strided(size, stride), requires_grad)


def _arange_resize_warning(out, shape):
    return (f"The number of elements in the out tensor of shape {list(out.shape)} is {out.numel()} which does not "
            f"match the computed number of elements {shape[0]}. Note that this may occur as a result of rounding "
            f"error. The out tensor will be resized to a tensor of shape {shape}.")


@_factory("aten::arange", warn=_arange_resize_warning)
def arange(start, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if math.ceil((end - start) / step) > 2 ** 63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
    if dtype is None:
        dtype = D.get_default_dtype() if any(isinstance(v, float) for v in vals) else D.int64
    dt = D.to_dtype(dtype)
    if dt is D.bool_:
        _refuse_dtype("arange_cpu", dt)
    be, dev = default_backend(device)
    return _make(be.arange(start, end, step, dt), be, dev, (max(0, math.ceil((end - start) / step)),), requires_grad)


@_factory("aten::range")
def range_(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """torch.range (deprecated in PyTorch): includes end."""
    return arange(start, end + step / 2 if isinstance(step, float) else end + step, step,
                  dtype=dtype or D.get_default_dtype(), device=device, requires_grad=requires_grad)


@_factory("aten::linspace")
def linspace(start, end, steps, *, dtype=None, layout=None, device=None, requires_grad=False):
    dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
    if dt is D.bool_:
        _refuse_dtype("linspace_cpu", dt)
    be, dev = default_backend(device)
    start = start.item() if isinstance(start, Tensor) else start
    end = end.item() if isinstance(end, Tensor) else end
    if not isinstance(steps, int) and not (isinstance(steps, Tensor) and not steps.dtype.is_floating_point):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if int(steps) < 0:
        raise RuntimeError("number of steps must be non-negative")
    return _make(be.linspace(start, end, int(steps), dt), be, dev, (int(steps),), requires_grad)


@_factory("aten::logspace")
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    if dtype is D.bool_:
        _refuse_dtype("logspace_cpu", dtype)
    # computed in float64 where the device has it (webgpu has not)
    wide = D.float64 if default_backend(device)[1].type == "cpu" else D.float32
    t = linspace(start, end, steps, dtype=wide if dtype is None or dtype.is_floating_point else dtype,
                 device=device)
    r = (base ** t).to(dtype or D.get_default_dtype())
    return _finish(r, requires_grad)


@_factory("aten::eye")
def eye(n, m=None, *, dtype=None, layout=None, device=None, requires_grad=False):
    dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
    m = n if m is None else m
    for name, v in (("n", n), ("m", m)):
        if type(v) is not int:
            raise TypeError(f"eye(): argument '{name}' must be int, not {type(v).__name__}")
        if v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    be, dev = default_backend(device)
    return _make(be.eye(n, m, dt), be, dev, (n, m), requires_grad)


# ---- random ---------------------------------------------------------------------------------------

class Generator:
    """torch.Generator: a seedable random stream for one device type."""

    def __init__(self, device="cpu"):
        self.device = _device_cls(device)
        if self.device.type not in _BACKEND_MODULES:
            raise no_storage_error(self.device.type)
        self._seed = 67280421310721
        self._rng = None

    def _state(self):
        if self._rng is None:
            self._rng = backend_for(self.device).rng_new(self._seed)
        return self._rng

    def manual_seed(self, seed):
        seed = int(seed)
        if seed < 0:
            seed &= (1 << 64) - 1
        self._seed = seed
        self._rng = None
        return self

    def seed(self):
        import random
        self.manual_seed(random.SystemRandom().getrandbits(63))
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        raw = backend_for(self.device).rng_get_state(self._state())
        return frombuffer(bytearray(raw), dtype=D.uint8)

    def set_state(self, new_state):
        backend_for(self.device).rng_set_state(self._state(), new_state._bytes())
        return self


_default_generators = {}


def default_generator(dev):
    t = _device_cls(dev).type
    g = _default_generators.get(t)
    if g is None:  # as PyTorch, the default generators start from a seed drawn from the OS
        g = _default_generators[t] = Generator(t)
        g.seed()
    return g


def manual_seed(seed):
    for t in ("cpu", "webgpu"):
        default_generator(t).manual_seed(seed)
    return default_generator("cpu")


def seed():
    return default_generator("cpu").seed()


def initial_seed():
    return default_generator("cpu").initial_seed()


def get_rng_state():
    return default_generator("cpu").get_state()


def set_rng_state(new_state):
    default_generator("cpu").set_state(new_state)


def rng_for(generator, dev):
    """The random state to draw from for an op on ``dev``; a generator of another device type is refused, as
    PyTorch refuses a CPU generator for a CUDA op."""
    if generator is None:
        return default_generator(dev)._state()
    want = _device_cls(dev).type
    if generator.device.type != want:
        raise RuntimeError(f"Expected a '{want}' device type for generator but found '{generator.device.type}'")
    return generator._state()


def _random(kind, size, generator, dtype, device, requires_grad, *params):
    shape = new_size_arg(size)
    be, dev = default_backend(device)
    dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
    if kind == "randint":
        if dt is D.bool_:
            raise RuntimeError("to - 1 is out of bounds for bool")
    elif not dt.is_floating_point:
        _refuse_dtype("check_uniform_bounds" if kind == "uniform" else "normal_kernel_cpu", dt)
    h = getattr(be, kind)(shape, *params, dt, rng_for(generator, dev))
    return _make(h, be, dev, shape, requires_grad)


@_factory("aten::rand")
def rand(*size, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    return _random("uniform", size, generator, dtype, device, requires_grad, 0.0, 1.0)


@_factory(RESIZED)
def randn(*size, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    return _random("normal", size, generator, dtype, device, requires_grad, 0.0, 1.0)


@_factory("aten::randint")
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, layout=None, device=None,
            requires_grad=False):
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _random("randint", (tuple(size),), generator, dtype or D.int64, device, requires_grad, int(low), int(high))


@_factory("aten::randperm")
def randperm(n, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False):
    dt = D.to_dtype(dtype or D.int64)
    if dt is D.bool_:
        _refuse_dtype("randperm", dt)
    (n,) = new_size_arg((n,))
    be, dev = default_backend(device)
    return _make(be.randperm(n, dt, rng_for(generator, dev)), be, dev, (n,), requires_grad)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    dt, dev = _like(input, dtype, device, layout, "rand_like")
    return _laid_out(lambda rg: rand(tuple(input.shape), dtype=dt, device=dev, requires_grad=rg),
                     memory_format, input, requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    dt, dev = _like(input, dtype, device, layout, "randn_like")
    return _laid_out(lambda rg: randn(tuple(input.shape), dtype=dt, device=dev, requires_grad=rg),
                     memory_format, input, requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None):
    if high is None:
        low, high = 0, low
    dt, dev = _like(input, dtype, device, layout, "randint_like")
    return _laid_out(lambda rg: randint(low, high, tuple(input.shape), dtype=dt, device=dev, requires_grad=rg),
                     memory_format, input, requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if isinstance(out, Tensor) and not isinstance(std, Tensor):  # PyTorch broadcasts mean with out's shape
            from ._core.dispatch import broadcast_shapes
            broadcast_shapes(tuple(mean.shape), tuple(out.shape))
        return _normal_tensors(mean, std, generator=generator, out=out)
    if size is None:
        raise TypeError("normal() with float mean and std needs a size")
    return _normal_sized(mean, std, size, generator=generator, out=out, dtype=dtype, device=device,
                         requires_grad=requires_grad)


def check_std(std):
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


@takes_out("normal", Rule(floating, "\"normal_kernel_cpu\" not implemented for '{o}'", NotImplementedError))
def _normal_tensors(mean, std, *, generator=None):
    ref = mean if isinstance(mean, Tensor) else std
    if isinstance(std, Tensor):
        std._be.require_all((std.detach() >= 0)._data, "normal")  # webgpu: checked on the device, no readback
    else:
        check_std(std)
    from ._core.dispatch import broadcast_shapes
    shape = broadcast_shapes(tuple(getattr(mean, "shape", ())), tuple(getattr(std, "shape", ())))
    z = randn(shape, generator=generator, dtype=ref.dtype, device=ref.device)
    return z * std + mean


@_factory("aten::normal")
def _normal_sized(mean, std, size, *, generator=None, dtype=None, device=None, requires_grad=False):
    check_std(std)
    return _random("normal", (tuple(size),), generator, dtype, device, requires_grad, float(mean), float(std))


def _new_factory(fn):
    def method(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        return fn(*size, dtype=dtype or self.dtype, device=device or self._device, requires_grad=requires_grad)
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or self._device,
                requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, device=device or self._device, requires_grad=requires_grad)


def _tensor_new(cls, *args, device=None, dtype=None):
    """``Tensor(data)`` copies data (float32 by default); ``Tensor(2, 3)`` is uninitialized."""
    if len(args) == 1 and not isinstance(args[0], int):
        src = args[0]
        t = tensor(src, dtype=src.dtype if isinstance(src, Tensor) else (dtype or D.float32), device=device)
    else:
        shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        t = empty(*shape, dtype=dtype or D.float32, device=device)
    if cls is Tensor:
        return t
    return _as_subclass(t, cls)


def _reduce_ex(self, proto):
    """Pickling: the bytes, dtype, shape, device and requires_grad (``_rebuild_tensor_from_bytes`` restores)."""
    return (_rebuild_tensor_from_bytes,
            (self.contiguous()._bytes(), self.dtype.name, tuple(self.shape), str(self._device), self.requires_grad))


FUNCTIONS = {
    "tensor": tensor, "as_tensor": as_tensor, "asarray": asarray, "from_numpy": from_numpy,
    "frombuffer": frombuffer, "zeros": zeros, "ones": ones, "empty": empty, "full": full,
    "zeros_like": zeros_like, "ones_like": ones_like, "empty_like": empty_like, "full_like": full_like,
    "empty_strided": empty_strided, "arange": arange, "linspace": linspace, "logspace": logspace, "eye": eye,
    "rand": rand, "randn": randn, "randint": randint, "randperm": randperm, "rand_like": rand_like,
    "randn_like": randn_like, "randint_like": randint_like, "normal": normal,
}
METHODS = {
    "new_zeros": _new_factory(zeros), "new_ones": _new_factory(ones), "new_empty": _new_factory(empty),
    "new_full": _new_full, "new_tensor": _new_tensor,
}
DUNDERS = {"__new__": _tensor_new, "__reduce_ex__": _reduce_ex}
