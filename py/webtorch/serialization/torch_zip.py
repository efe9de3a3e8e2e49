"""PyTorch's zip checkpoint format (what torch.save writes and torch.load reads).

Layout: a stored (uncompressed) zip whose entries live under one folder ``<name>/``: ``data.pkl`` (a
protocol-2 pickle; tensors are persistent ids naming storage records), ``data/<key>`` (raw little-endian
storage bytes, 64-byte aligned), ``version``, ``byteorder``, ``.format_version``, ``.storage_alignment``.

Reading is bounded by the file: each entry is read (streamed) only as far as the bytes a storage the pickle
references needs, and all entries together may produce at most ``_EXPANSION`` times the file's size (plus
``_SLACK``): a zip whose entries overlap or inflate past that is refused instead of filling memory.
"""
import os
import zipfile

from .. import _dtype as D
from .errors import CheckpointError
from .pickle_writer import StorageRecord, dumps
from .storage_types import STORAGE_DTYPES, UNTYPED

_ALIGN = 64
_STORAGE_NAME = {v: k for k, v in STORAGE_DTYPES.items()}
_STORAGE_NAME.update({d.name: UNTYPED for d in D.FLOAT8})  # (one-byte: an untyped storage's byte count is numel)
_EXPANSION, _SLACK = 4, 16 << 20
_CHUNK = 1 << 20


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


class _StorageTable:
    """One record per (storage, dtype): views of one storage share it in the file, as torch.save's do."""

    def __init__(self):
        self.records = []  # (key, flat tensor over the whole storage)
        self.by_storage = {}
        self.dtype_at = {}  # storage data_ptr -> the dtype its record holds

    def tensor_ref(self, t):
        dt = t.dtype.name
        if dt not in _STORAGE_NAME:
            raise TypeError(f"webtorch.save: dtype {t.dtype} has no PyTorch storage type")
        t = t.detach()
        stride, offset = t.stride(), t.storage_offset()
        numel = t.untyped_storage().nbytes() // t.dtype.itemsize
        shared = all(s >= 0 for s in stride) and offset >= 0 and numel > 0
        if shared:
            ident = (t.untyped_storage().data_ptr(), dt)
            if self.dtype_at.setdefault(ident[0], dt) != dt:  # (views through Tensor.view(dtype)), as torch.save
                raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different "
                                   "types")
            entry = self.by_storage.get(ident)
            if entry is None:
                entry = StorageRecord(_STORAGE_NAME[dt], str(len(self.records)), numel)
                self.by_storage[ident] = entry
                self.records.append((entry.pid[2], t.as_strided((numel,), (1,), 0)))
            return entry, offset, tuple(t.shape), tuple(stride)
        flat = t.contiguous().reshape(-1)  # a storage webtorch cannot describe (or an empty one): its elements
        entry = StorageRecord(_STORAGE_NAME[dt], str(len(self.records)), flat.numel())
        self.records.append((entry.pid[2], flat))
        size = tuple(t.shape)
        contiguous, acc = [], 1
        for s in reversed(size):
            contiguous.append(acc)
            acc *= s
        return entry, 0, size, tuple(reversed(contiguous))


def save_zip(obj, f):
    table = _StorageTable()
    pkl = dumps(obj, table.tensor_ref)
    name = _archive_name(f)
    target = open(os.fspath(f), "wb") if isinstance(f, (str, os.PathLike)) else f
    try:
        with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            zf.writestr(_aligned_entry(zf, f"{name}/data.pkl"), pkl)
            zf.writestr(_aligned_entry(zf, f"{name}/.format_version"), b"1")
            zf.writestr(_aligned_entry(zf, f"{name}/.storage_alignment"), b"64")
            zf.writestr(_aligned_entry(zf, f"{name}/byteorder"), b"little")
            for key, flat in table.records:
                zf.writestr(_aligned_entry(zf, f"{name}/data/{key}"), flat._bytes())
            zf.writestr(_aligned_entry(zf, f"{name}/version"), b"3\n")
    finally:
        if target is not f:
            target.close()


class ZipReader:
    """The entries of a checkpoint zip, read under the file-size budget."""

    def __init__(self, fileobj, size):
        self.size = size
        self.budget = _EXPANSION * size + _SLACK
        try:
            self.zf = zipfile.ZipFile(fileobj)
            self.infos = {i.filename: i for i in self.zf.infolist()}
        except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError, RuntimeError,
                UnicodeDecodeError) as e:
            raise CheckpointError(f"webtorch.load: not a PyTorch zip checkpoint or truncated ({e})") from None
        pkls = [n for n in self.infos if n.endswith("/data.pkl") and n.count("/") == 1] or \
            [n for n in self.infos if n == "data.pkl"]
        if len(pkls) != 1:
            raise CheckpointError("webtorch.load: the zip holds no single '<name>/data.pkl' record; "
                                  "not a PyTorch checkpoint")
        self.prefix = pkls[0][: -len("data.pkl")]
        order = self.infos.get(self.prefix + "byteorder")
        if order is not None and self.read(order, order.file_size).strip() not in (b"little", b""):
            raise CheckpointError("webtorch.load: big-endian checkpoints are not supported")

    def pickle(self):
        info = self.infos[self.prefix + "data.pkl"]
        return self.read(info, info.file_size)

    def storage(self, key, nbytes):
        info = self.infos.get(f"{self.prefix}data/{key}")
        if info is None:
            raise CheckpointError(f"webtorch.load: storage record data/{key} is missing")
        if info.file_size < nbytes:
            raise CheckpointError(f"webtorch.load: storage data/{key} holds {info.file_size} bytes, fewer than "
                                  f"the {nbytes} its tensors need")
        return self.read(info, nbytes)

    def read(self, info, n):
        """The first n bytes of an entry, streamed; n counts against the budget before anything is read."""
        if info.flag_bits & 0x1:
            raise CheckpointError(f"checkpoint entry {info.filename} is encrypted; checkpoints are plain zip files")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise CheckpointError(f"checkpoint entry {info.filename} uses compression method "
                                  f"{info.compress_type}; PyTorch checkpoints are stored uncompressed")
        if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            raise CheckpointError(f"checkpoint entry {info.filename} is stored but declares {info.file_size} "
                                  f"bytes for {info.compress_size} bytes of data; the file is corrupt")
        if n > self.budget:
            raise CheckpointError(
                f"webtorch.load: checkpoint entry {info.filename} would expand to {n} bytes; with the entries "
                f"already read that exceeds {_EXPANSION}x the file's {self.size} bytes (+16 MiB), so the zip "
                "overlaps or inflates past what a checkpoint can hold (a zip bomb)")
        self.budget -= n
        out = bytearray()
        try:
            with self.zf.open(info) as fh:
                while len(out) < n:
                    chunk = fh.read(min(_CHUNK, n - len(out)))
                    if not chunk:
                        break
                    out += chunk
                if n == info.file_size:
                    fh.read(1)  # reaching the end checks the CRC
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError, RuntimeError) as e:
            raise CheckpointError(f"checkpoint entry {info.filename} is unreadable: {e}") from None
        if len(out) != n:
            raise CheckpointError(f"checkpoint entry {info.filename} is truncated ({len(out)} of {n} bytes)")
        return out
