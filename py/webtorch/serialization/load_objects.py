"""From a checkpoint zip to objects: the storages (each read and moved once, where map_location says), the
tensor rebuilders (views on those storages, geometry checked), the globals a weights-only load allows, and
the full unpickler of ``weights_only=False`` (which maps torch.* globals to webtorch's objects)."""
import io
import pickle
from collections import Counter, OrderedDict

from .. import _dtype as D
from .errors import CheckpointError
from .restricted_unpickler import WeightsUnpickler
from .safe_globals import user_allowed, webtorch_object
from .storage_types import STORAGE_DTYPES, UNTYPED
from .torch_zip import ZipReader

_WEIGHTS_ONLY_HEAD = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, do those steps "
    "only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, we changed the default value of the "
    "`weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` "
    "set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please check the "
    "recommended steps in the following error message.\n\tWeightsUnpickler error: ")
_WEIGHTS_ONLY_TAIL = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
                      "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def unsupported_global(full):
    return CheckpointError(
        f"{_WEIGHTS_ONLY_HEAD}Unsupported global: GLOBAL {full} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{full}])` or the `torch.serialization.safe_globals([{full}])` "
        f"context manager to allowlist this global if you trust this class/function.{_WEIGHTS_ONLY_TAIL}")


class StorageType:
    """Stands for torch.<Type>Storage inside a persistent id."""

    def __init__(self, name):
        self.name = name
        self.dtype = D.uint8 if name == UNTYPED else D.from_name(STORAGE_DTYPES[name])  # (untyped: bytes)


class LoadedStorage:
    """A storage read from the file (a flat tensor on its final device); tensors are views on it."""

    def __init__(self, flat, dtype):
        self.flat, self.dtype = flat, dtype


def map_target(map_location, location):
    """The device a storage saved at ``location`` goes to (None: the default device)."""
    if map_location is None or (callable(map_location) and not isinstance(map_location, type)):
        return None
    if isinstance(map_location, dict):
        return map_location.get(location)
    return str(map_location)


def map_callable(map_location, t, location):
    """torch's callable map_location(storage, location) applied to a flat tensor."""
    from .._tensor import Tensor
    if map_location is None or not callable(map_location) or isinstance(map_location, type):
        return t
    r = map_location(t, location)
    if r is None:
        return t
    if not isinstance(r, Tensor):
        raise TypeError(f"map_location returned {type(r).__name__}; it must return the storage (a Tensor) or None")
    return r


def _ints(v, what):
    if not (isinstance(v, tuple) and all(type(x) is int and x >= 0 for x in v)):
        raise CheckpointError(f"webtorch.load: tensor record has an invalid {what} {str(v)[:100]}")
    return v


def _set_attrs(t, state):
    """Python attributes a checkpoint stores on a tensor (torch's _set_obj_state), validated."""
    if isinstance(state, tuple) and len(state) == 2 and not state[1]:
        state = state[0]
    if not state:
        return
    if not (isinstance(state, dict) and all(isinstance(k, str) and k.isidentifier() and not k.startswith("_")
                                            and not hasattr(type(t), k) for k in state)):
        raise CheckpointError("webtorch.load: a tensor record carries state other than plain Python attributes")
    for k, v in state.items():
        setattr(t, k, v)


class Loader:
    """Storages and rebuild functions for one load."""

    def __init__(self, reader, map_location):
        self.reader = reader
        self.map_location = map_location
        self.storages = {}
        self.rebuilders = {
            "torch._utils._rebuild_tensor_v2": self.rebuild_tensor,
            "torch._utils._rebuild_tensor_v3": self.rebuild_tensor_v3,
            "torch._utils._rebuild_parameter": self.rebuild_parameter,
            "torch._utils._rebuild_parameter_with_state": self.rebuild_parameter_with_state,
            "torch._tensor._rebuild_from_type_v2": self.rebuild_from_type,
        }

    def persistent_load(self, pid):
        from ..ops.creation import frombuffer
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and isinstance(pid[1], StorageType)
                and isinstance(pid[2], str) and isinstance(pid[3], str) and type(pid[4]) is int and pid[4] >= 0):
            raise CheckpointError(f"webtorch.load: malformed storage reference in checkpoint: {str(pid)[:200]}")
        _, kind, key, location, numel = pid
        known = self.storages.get(key)
        if known is not None:
            if known.dtype is not kind.dtype or numel > known.flat.numel():
                raise CheckpointError(f"webtorch.load: storage data/{key} is referenced as {kind.name} of {numel} "
                                      f"elements and as {known.dtype} of {known.flat.numel()}")
            return known
        raw = self.reader.storage(key, numel * kind.dtype.itemsize)
        flat = frombuffer(raw, dtype=kind.dtype, device=map_target(self.map_location, location))
        flat = map_callable(self.map_location, flat, location)
        self.storages[key] = LoadedStorage(flat, kind.dtype)
        return self.storages[key]

    def rebuild_tensor(self, storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None):
        if not isinstance(storage, LoadedStorage):
            raise CheckpointError("webtorch.load: tensor record does not reference a storage")
        size, stride = _ints(tuple(size) if isinstance(size, tuple) else size, "size"), _ints(stride, "stride")
        if type(offset) is not int or offset < 0 or len(size) != len(stride) or not isinstance(requires_grad, bool):
            raise CheckpointError(f"webtorch.load: invalid tensor record offset={offset!r} size={size} stride={stride}")
        n = storage.flat.numel()
        extent = offset + sum((s - 1) * st for s, st in zip(size, stride)) + 1 if all(size) else 0
        if extent > n:
            raise CheckpointError(f"webtorch.load: tensor of size {list(size)} with stride {list(stride)} at offset "
                                  f"{offset} reaches past its storage of {n} elements")
        t = storage.flat.as_strided(size, stride, offset)
        return t.requires_grad_(True) if requires_grad else t

    def rebuild_tensor_v3(self, storage, offset, size, stride, requires_grad, hooks, dtype, metadata=None):
        """A tensor of a dtype without a storage class (float8) on an untyped storage: its bytes viewed as dtype."""
        if not (isinstance(storage, LoadedStorage) and storage.dtype is D.uint8 and isinstance(dtype, D.dtype)
                and dtype.itemsize == 1):
            raise CheckpointError(f"webtorch.load: a _rebuild_tensor_v3 record of {dtype!r} on a storage webtorch "
                                  "cannot read (one-byte dtypes on an untyped storage are read)")
        try:
            typed = storage if dtype is D.uint8 else LoadedStorage(storage.flat.view(dtype), dtype)
        except TypeError as e:  # the map_location device holds no float8: said as it is, not as a corrupt file
            raise CheckpointError(f"webtorch.load: {e}") from None
        return self.rebuild_tensor(typed, offset, size, stride, requires_grad)

    def rebuild_parameter(self, data, requires_grad, hooks=None):
        from .._tensor import Tensor
        from ..nn.parameter import Parameter
        if not isinstance(data, Tensor) or not isinstance(requires_grad, bool):
            raise CheckpointError("webtorch.load: a Parameter record does not hold a tensor")
        return Parameter(data.detach(), requires_grad)

    def rebuild_parameter_with_state(self, data, requires_grad, hooks, state):
        p = self.rebuild_parameter(data, requires_grad)
        _set_attrs(p, state)
        return p

    def rebuild_from_type(self, func, new_type, args, state):
        from .._tensor import Tensor
        from ..nn.parameter import Parameter
        if not any(func is f for f in self.rebuilders.values()) or new_type not in (Tensor, Parameter) \
                or not isinstance(args, tuple):
            raise CheckpointError("webtorch.load: a tensor record names a rebuild function or type that is not "
                                  "a tensor's")
        t = func(*args)
        if new_type is Parameter and not isinstance(t, Parameter):
            t = Parameter(t.detach(), t.requires_grad)
        _set_attrs(t, state)
        return t

    # ---- globals --------------------------------------------------------------------------------------
    def allowed(self):
        """'module.name' -> (object, may be called) for what a weights-only load accepts by default."""
        from .._tensor import Tensor, Size
        from .._device import device
        from ..nn.parameter import Parameter
        table = {"collections.OrderedDict": (OrderedDict, True), "collections.Counter": (Counter, True),
                 "torch.device": (device, True), "torch.Size": (Size, True), "torch.Tensor": (Tensor, False),
                 "torch.nn.parameter.Parameter": (Parameter, False), "_codecs.encode": (_codecs_encode, True),
                 "builtins.bytearray": (_bytearray, True), "builtins.set": (_set, True),
                 "builtins.complex": (_complex, True)}
        table.update({name: (fn, True) for name, fn in self.rebuilders.items()})
        table.update({f"torch.{name}": (StorageType(name), False) for name in STORAGE_DTYPES})
        table[f"torch.storage.{UNTYPED}"] = (StorageType(UNTYPED), False)
        table.update({f"torch.{name}": (dt, False) for name, dt in D.ALIASES.items()})
        return table

    def weights_only_resolver(self):
        allowed, user = self.allowed(), user_allowed()
        user_ids = {id(o) for o in user.values()}

        def resolve(module, name):
            full = f"{_py3_module(module)}.{name}"
            if full in allowed:
                return allowed[full]
            obj = user.get(full)
            if obj is None:
                obj = webtorch_object(module, name)
                if obj is None or id(obj) not in user_ids:
                    raise unsupported_global(full)
            return obj, callable(obj)
        return resolve, {o for o in user.values() if isinstance(o, type)}


def _py3_module(module):
    return {"__builtin__": "builtins", "copy_reg": "copyreg"}.get(module, module)


def _codecs_encode(text, encoding="utf-8"):
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
        raise CheckpointError("webtorch.load: _codecs.encode in a checkpoint takes a str and latin1/utf-8")
    return text.encode(encoding)


def _bytearray(data=b"", encoding=None):
    if isinstance(data, str) and encoding is not None:
        return bytearray(_codecs_encode(data, encoding))
    if not isinstance(data, (bytes, bytearray)):
        raise CheckpointError("webtorch.load: bytearray in a checkpoint must be built from bytes")
    return bytearray(data)


def _set(items=()):
    if not isinstance(items, (list, tuple, set, frozenset)):
        raise CheckpointError("webtorch.load: set in a checkpoint must be built from a list")
    return set(items)


def _complex(real=0.0, imag=0.0):
    if not all(type(v) in (int, float) for v in (real, imag)):
        raise CheckpointError("webtorch.load: complex in a checkpoint must be built from two numbers")
    return complex(real, imag)


class _FullUnpickler(pickle.Unpickler):
    """weights_only=False: any global loads (an explicit opt-in that can run code, as in PyTorch); torch.*
    globals become webtorch's objects of the same name."""

    def __init__(self, file, loader):
        super().__init__(file)
        self.loader = loader
        self.table = loader.allowed()

    def find_class(self, module, name):
        full = f"{module}.{name}"
        if full in self.table:
            return self.table[full][0]
        if module == "torch" or module.startswith("torch."):
            obj = webtorch_object(module, name)
            if obj is None:
                raise CheckpointError(f"webtorch.load: the checkpoint names {full}, which webtorch does not have "
                                      "(torch.* globals load as webtorch's objects of the same name)")
            return obj
        return super().find_class(module, name)

    def persistent_load(self, pid):
        return self.loader.persistent_load(pid)


# raised as they are: the file's own errors already worded, and failures of this machine rather than of the file's
# bytes (a map_location device without its backend, e.g. "cpu" in a page without NumPy; memory)
_NOT_THE_FILE = (CheckpointError, ModuleNotFoundError, MemoryError)


def load_zip(fileobj, size, map_location, weights_only):
    reader = ZipReader(fileobj, size)
    loader = Loader(reader, map_location)
    pkl = reader.pickle()
    try:
        if weights_only:
            resolve, safe_types = loader.weights_only_resolver()
            return WeightsUnpickler(pkl, resolve, loader.persistent_load, safe_types).load()
        return _FullUnpickler(io.BytesIO(pkl), loader).load()
    except _NOT_THE_FILE:
        raise
    except (pickle.UnpicklingError, EOFError) as e:
        raise CheckpointError(f"webtorch.load: corrupt checkpoint pickle: {type(e).__name__}: {e}"[:500]) from None
    except Exception as e:  # noqa: BLE001 -- in a weights-only load any other failure comes from the file's bytes
        if not weights_only:
            raise
        raise CheckpointError(f"webtorch.load: corrupt checkpoint pickle: {type(e).__name__}: {e}"[:500]) from None
