"""Pickles any picklable object the way torch.save does, without importing torch (it runs in Pyodide).

Python's own pickler (protocol 2) does the work; this subclass changes what webtorch objects become:
- a Tensor: ``torch._utils._rebuild_tensor_v2(<persistent id of its storage>, offset, size, stride,
  requires_grad, OrderedDict())``, the storage named by a persistent id (one record per storage, so views
  share it as in torch's files);
- a Parameter: ``torch._utils._rebuild_parameter(<tensor>, requires_grad, OrderedDict())``;
- dtypes, devices and Size: ``torch.float32``, ``torch.device('cpu')``, ``torch.Size((2, 3))``;
- webtorch classes and functions (nn.Linear, optim.Adam, ...): their PyTorch names (``torch.nn Linear``).
"""
import io
import pickle
from collections import OrderedDict

from .safe_globals import torch_name
from .storage_types import UNTYPED


class TorchGlobal:
    """Stands for a PyTorch global (written as GLOBAL module name)."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle's save_reduce insists that a reduce function be callable
        raise TypeError(f"{self.module}.{self.name} stands for a PyTorch global in a checkpoint being written")


REBUILD_TENSOR = TorchGlobal("torch._utils", "_rebuild_tensor_v2")
REBUILD_TENSOR_V3 = TorchGlobal("torch._utils", "_rebuild_tensor_v3")  # (dtypes without a storage class: float8)
REBUILD_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter")
DEVICE = TorchGlobal("torch", "device")
SIZE = TorchGlobal("torch", "Size")
_STORAGE_TYPES = {}


def storage_type(name):
    return _STORAGE_TYPES.setdefault(name, TorchGlobal("torch.storage" if name == UNTYPED else "torch", name))


class StorageRecord:
    """A persistent reference to storage record ``key`` (its pid is what torch.load's persistent_load reads)."""

    def __init__(self, storage_name, key, numel):
        self.pid = ("storage", storage_type(storage_name), key, "cpu", numel)


class TorchPickler(pickle._Pickler):
    """``tensor_ref(t)`` returns (StorageRecord, offset, size, stride) for a tensor."""

    def __init__(self, file, tensor_ref):
        super().__init__(file, protocol=2)
        self.tensor_ref = tensor_ref
        # the pure-Python pickler memoizes by id(): keep every stand-in made during the dump alive
        self.keep = []

    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, StorageRecord) else None

    def reducer_override(self, obj):
        from .._tensor import Tensor, Size
        from .._device import device
        from .._dtype import dtype
        from ..autograd.hooks import _HookDict
        from ..nn.parameter import Parameter
        if isinstance(obj, (TorchGlobal, dtype)):
            return "global"  # a string: pickle writes it with save_global (below), as it does classes
        if isinstance(obj, Parameter):
            rv = (REBUILD_PARAMETER, (obj.detach(), obj.requires_grad, OrderedDict()))
        elif isinstance(obj, Tensor):
            record, offset, size, stride = self.tensor_ref(obj)
            args = (record, offset, tuple(size), tuple(stride), obj.requires_grad, OrderedDict())
            rv = (REBUILD_TENSOR_V3, args + (obj.dtype,)) if record.pid[1].name == UNTYPED else (REBUILD_TENSOR, args)
        elif isinstance(obj, device):
            rv = (DEVICE, (str(obj),))
        elif isinstance(obj, Size):
            rv = (SIZE, (tuple(obj),))
        elif isinstance(obj, _HookDict):  # hook tables are OrderedDicts in torch
            rv = (OrderedDict, (), None, None, iter(obj.items()))
        else:
            return NotImplemented
        self.keep.append(rv)
        return rv

    def save_global(self, obj, name=None):
        from .._dtype import dtype
        if isinstance(obj, TorchGlobal):
            module, name = obj.module, obj.name
        elif isinstance(obj, dtype):
            module, name = "torch", obj.name
        else:
            mapped = torch_name(obj)
            if mapped is None:
                return super().save_global(obj, name)
            module, name = mapped
        self.write(pickle.GLOBAL + module.encode("utf-8") + b"\n" + name.encode("utf-8") + b"\n")
        self.memoize(obj)


def dumps(obj, tensor_ref):
    buf = io.BytesIO()
    try:
        TorchPickler(buf, tensor_ref).dump(obj)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise type(e)(f"webtorch.save: {e}") from e
    return buf.getvalue()
