"""webtorch.save / webtorch.load: safetensors for '*.safetensors' paths, PyTorch's zip format otherwise.

Loading never executes code from a file (a restricted unpickler; every offset and size is checked).
"""
import os

from . import safetensors  # noqa: F401
from .safetensors import SafetensorsError  # noqa: F401
from .torch_zip import CheckpointError, save_zip, load_zip


def _is_safetensors(f):
    return isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors")


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    if _is_safetensors(f):
        with open(os.fspath(f), "wb") as fh:
            fh.write(safetensors.save(obj))
        return
    save_zip(obj, f)


def _read_all(f):
    if isinstance(f, (str, os.PathLike)):
        with open(os.fspath(f), "rb") as fh:
            return fh.read()
    if isinstance(f, (bytes, bytearray, memoryview)):
        return bytes(f)
    return f.read()


def _map(obj, map_location):
    if map_location is None:
        return obj
    from .._tensor import Tensor

    def move(t):
        loc = str(t.device)
        if isinstance(map_location, dict):
            target = map_location.get(loc, map_location.get(t.device.type, loc))
        elif callable(map_location) and not isinstance(map_location, str):
            r = map_location(t, loc)
            return r if r is not None else t
        else:
            target = map_location
        return t.to(target)

    def walk(o):
        if isinstance(o, Tensor):
            return move(o)
        if isinstance(o, dict):
            r = type(o)() if type(o) is not dict else {}
            for k, v in o.items():
                r[k] = walk(v)
            return r
        if isinstance(o, list):
            return [walk(v) for v in o]
        if isinstance(o, tuple):
            return tuple(walk(v) for v in o)
        return o
    return walk(obj)


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **kwargs):
    """Load what webtorch.save or torch.save wrote (state_dicts, optimizer states, containers of tensors)."""
    if _is_safetensors(f):
        with open(os.fspath(f), "rb") as fh:
            return _map(safetensors.load(fh.read()), map_location)
    data = _read_all(f)
    if data[:2] != b"PK":
        raise CheckpointError("webtorch.load: the file is not a PyTorch zip checkpoint (legacy pre-1.6 and "
                              "arbitrary pickles are refused because loading them could run code)")
    return _map(load_zip(data, map_location), map_location)


def _rebuild_tensor_from_bytes(data, dtype_name, shape, device, requires_grad):
    """Used by Tensor.__reduce_ex__ (pickle/copy of tensors)."""
    from .. import _dtype as D
    from ..ops.creation import frombuffer
    t = frombuffer(bytearray(data), dtype=D.from_name(dtype_name)).reshape(shape)
    if device != "cpu":
        t = t.to(device)
    return t.requires_grad_(requires_grad) if requires_grad else t
