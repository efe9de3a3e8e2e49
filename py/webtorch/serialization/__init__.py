"""webtorch.save / webtorch.load: safetensors for '*.safetensors' paths, PyTorch's zip format otherwise.

``weights_only=True`` (the default, as in PyTorch) never runs code from a file: a small pickle interpreter
accepts only tensors, containers and allow-listed globals (``add_safe_globals``). ``weights_only=False``
loads whole objects (nn.Module, optimizers, anything picklable) and can run code, as in PyTorch; torch.*
globals in such a file load as webtorch's objects of the same name. Reads are bounded by the file's size.

The zip format's modules (and the stdlib's pickle, a large import in Pyodide) load on the first save or load,
not with ``import webtorch``; ``CheckpointError`` is looked up on first use the same way.
"""
import io
import os

from . import safetensors  # noqa: F401
from .safe_globals import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals  # noqa: F401
from .safetensors import SafetensorsError  # noqa: F401
# pickles written before Tensor.__reduce_ex__ named ops.creation still name this module
from ..ops.creation import _rebuild_tensor_from_bytes  # noqa: F401


def __getattr__(name):
    if name != "CheckpointError":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .errors import CheckpointError
    return CheckpointError


def _is_safetensors(f):
    return isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors")


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Write ``obj`` (any picklable object; tensors as storage records) in PyTorch's zip format, or a flat
    dict of tensors as safetensors for a '*.safetensors' path."""
    if _is_safetensors(f):
        with open(os.fspath(f), "wb") as fh:
            fh.write(safetensors.save(obj))
        return
    from .torch_zip import save_zip
    save_zip(obj, f)


def _load_safetensors(path, map_location):
    from .load_objects import map_callable, map_target
    with open(path, "rb") as fh:
        tensors = safetensors.load(fh.read(), device=map_target(map_location, "cpu"))
    return {k: map_callable(map_location, t, "cpu") for k, t in tensors.items()}


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **kwargs):
    """Load what webtorch.save or torch.save wrote. ``map_location`` (a device, a str, a dict from saved
    location to device, or a callable(storage, location) that gets each storage as a flat tensor and returns
    it moved, or None) places each storage once; views stay views on it."""
    if _is_safetensors(f):
        return _load_safetensors(os.fspath(f), map_location)
    if isinstance(f, (bytes, bytearray, memoryview)):
        f = io.BytesIO(f)
    if isinstance(f, (str, os.PathLike)):
        with open(os.fspath(f), "rb") as fh:
            return _load_file(fh, map_location, weights_only)
    return _load_file(f, map_location, weights_only)


def _load_file(fh, map_location, weights_only):
    from .errors import CheckpointError
    from .load_objects import load_zip
    if not (hasattr(fh, "seekable") and fh.seekable()):
        fh = io.BytesIO(fh.read())  # a stream (a pipe, a response body): the zip reader needs to seek
    start = fh.tell()
    head = fh.read(2)
    size = fh.seek(0, io.SEEK_END) - start
    fh.seek(start)
    if head != b"PK":
        raise CheckpointError("webtorch.load: the file is not a PyTorch zip checkpoint (legacy pre-1.6 and "
                              "arbitrary pickles are refused because loading them could run code)")
    if start:
        fh = io.BytesIO(fh.read())
    return load_zip(fh, size, map_location, bool(weights_only))
