"""PyTorch's zip checkpoint format (what torch.save writes and torch.load(weights_only=True) reads).

Layout: a stored (uncompressed) zip whose entries live under one folder ``<name>/``: ``data.pkl`` (a
protocol-2 pickle; tensors are persistent ids naming storage records), ``data/<key>`` (raw little-endian
storage bytes, 64-byte aligned), ``version``, ``byteorder``, ``.format_version``, ``.storage_alignment``.
"""
import io
import os
import pickle
import zipfile

from .. import _dtype as D
from .pickle_writer import PickleWriter
from .restricted_unpickler import RestrictedUnpickler, STORAGE_DTYPES

_ALIGN = 64
_STORAGE_NAME = {v: k for k, v in STORAGE_DTYPES.items()}


class CheckpointError(RuntimeError, pickle.UnpicklingError):
    """A checkpoint file is malformed, truncated or hostile (also an UnpicklingError, as torch raises)."""


def _archive_name(f):
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        return stem or "archive"
    return "archive"


def _aligned_entry(zf, name):
    """A ZipInfo whose data starts on a 64-byte boundary (an extra field pads the local header)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    start = zf.fp.tell() + 30 + len(name.encode())
    pad = (-(start + 4)) % _ALIGN
    info.extra = b"FB" + pad.to_bytes(2, "little") + b"\0" * pad
    return info


def save_zip(obj, f):
    records = []
    keys = {}

    def tensor_ref(t):
        key = keys.get(id(t))
        if key is None:
            key = str(len(records))
            keys[id(t)] = key
            records.append((key, t.detach().contiguous()._bytes()))
        dt = t.dtype.name
        if dt not in _STORAGE_NAME:
            raise TypeError(f"webtorch.save: dtype {t.dtype} has no PyTorch storage type")
        size = tuple(t.shape)
        stride, acc = [], 1
        for s in reversed(size):
            stride.append(acc)
            acc *= s
        return (_STORAGE_NAME[dt], key, "cpu", t.numel(), 0, size, tuple(reversed(stride)), False)

    pkl = PickleWriter(tensor_ref).dump(obj)
    name = _archive_name(f)
    target = open(os.fspath(f), "wb") if isinstance(f, (str, os.PathLike)) else f
    try:
        with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            zf.writestr(_aligned_entry(zf, f"{name}/data.pkl"), pkl)
            zf.writestr(_aligned_entry(zf, f"{name}/.format_version"), b"1")
            zf.writestr(_aligned_entry(zf, f"{name}/.storage_alignment"), b"64")
            zf.writestr(_aligned_entry(zf, f"{name}/byteorder"), b"little")
            for key, data in records:
                zf.writestr(_aligned_entry(zf, f"{name}/data/{key}"), data)
            zf.writestr(_aligned_entry(zf, f"{name}/version"), b"3\n")
    finally:
        if target is not f:
            target.close()


def _read_entry(zf, info, limit):
    if info.flag_bits & 0x1:
        raise CheckpointError(f"checkpoint entry {info.filename} is encrypted; checkpoints are plain zip files")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise CheckpointError(f"checkpoint entry {info.filename} uses compression method {info.compress_type}; "
                              "PyTorch checkpoints are stored uncompressed")
    if info.file_size > limit:
        raise CheckpointError(f"checkpoint entry {info.filename} claims {info.file_size} bytes, more than the file "
                              f"holds ({limit}); the file is corrupt")
    try:
        with zf.open(info) as fh:
            data = fh.read(info.file_size + 1)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError, RuntimeError) as e:
        raise CheckpointError(f"checkpoint entry {info.filename} is unreadable: {e}") from None
    if len(data) != info.file_size:
        raise CheckpointError(f"checkpoint entry {info.filename} is truncated")
    return data


def load_zip(data, map_location):
    from .._tensor import Tensor
    from ..ops.creation import frombuffer
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = {i.filename: i for i in zf.infolist()}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError, RuntimeError) as e:
        raise CheckpointError(f"webtorch.load: not a PyTorch zip checkpoint or truncated ({e})") from None
    pkls = [n for n in infos if n.endswith("/data.pkl") and n.count("/") == 1] or \
        [n for n in infos if n == "data.pkl"]
    if len(pkls) != 1:
        raise CheckpointError("webtorch.load: the zip holds no single '<name>/data.pkl' record; not a PyTorch checkpoint")
    prefix = pkls[0][: -len("data.pkl")]
    order = infos.get(prefix + "byteorder")
    if order is not None and _read_entry(zf, order, len(data)).strip() not in (b"little", b""):
        raise CheckpointError("webtorch.load: big-endian checkpoints are not supported")
    storages = {}

    def load_storage(dtype_name, key, location, numel):
        if key in storages:
            return storages[key]
        info = infos.get(f"{prefix}data/{key}")
        if info is None:
            raise CheckpointError(f"webtorch.load: storage record data/{key} is missing")
        dt = D.from_name(dtype_name)
        raw = _read_entry(zf, info, len(data))
        if numel < 0 or numel * dt.itemsize > len(raw):
            raise CheckpointError(f"webtorch.load: storage data/{key} holds {len(raw)} bytes, fewer than "
                                  f"{numel} elements of {dt}")
        flat = frombuffer(bytearray(raw[: numel * dt.itemsize]), dtype=dt)
        storages[key] = flat
        return flat

    def rebuild_tensor(storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None):
        if not isinstance(storage, Tensor):
            raise CheckpointError("webtorch.load: tensor record does not reference a storage")
        if not (isinstance(offset, int) and all(isinstance(s, int) and s >= 0 for s in size)
                and all(isinstance(s, int) and s >= 0 for s in stride) and len(size) == len(stride)):
            raise CheckpointError(f"webtorch.load: invalid tensor geometry size={size!r} stride={stride!r}")
        n = storage.numel()
        extent = offset + sum((s - 1) * st for s, st in zip(size, stride)) + 1 if all(size) else 0
        if offset < 0 or extent > n:
            raise CheckpointError(f"webtorch.load: tensor of size {list(size)} with stride {list(stride)} at offset "
                                  f"{offset} reaches past its storage of {n} elements")
        t = storage.as_strided(tuple(size), tuple(stride), offset)
        if requires_grad:
            t = t.detach().requires_grad_(True)
        return t

    def rebuild_parameter(data, requires_grad, hooks=None):
        from ..nn.parameter import Parameter
        return Parameter(data, requires_grad)

    from .._device import device as make_device
    pkl = _read_entry(zf, infos[pkls[0]], len(data))
    try:
        obj = RestrictedUnpickler(io.BytesIO(pkl), rebuild_tensor, rebuild_parameter, load_storage,
                                  make_device).load()
    except CheckpointError:
        raise
    except Exception as e:  # noqa: BLE001 -- any pickle failure is a corrupt file, reported as such
        raise CheckpointError(f"webtorch.load: corrupt checkpoint pickle: {type(e).__name__}: {e}"[:500]) from None
    return obj
