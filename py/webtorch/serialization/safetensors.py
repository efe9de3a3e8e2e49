"""The safetensors format, pure Python (runs in Pyodide, where the Rust package is absent).

File: 8-byte little-endian header length N, N bytes of JSON ({name: {dtype, shape, data_offsets}, optional
"__metadata__": {str: str}}), then the data buffer; offsets are relative to the buffer, contiguous and
non-overlapping.
"""
import json
import struct

from .. import _dtype as D

_MAX_HEADER = 100_000_000
_CODES = {"BOOL": D.bool_, "U8": D.uint8, "I8": D.int8, "I16": D.int16, "I32": D.int32, "I64": D.int64,
          "U32": D.uint32, "F16": D.float16, "BF16": D.bfloat16, "F32": D.float32, "F64": D.float64,
          "F8_E4M3": D.float8_e4m3fn, "F8_E4M3FNUZ": D.float8_e4m3fnuz, "F8_E5M2": D.float8_e5m2,
          "F8_E5M2FNUZ": D.float8_e5m2fnuz}  # (safetensors' library names no float8_e8m0fnu)
_NAMES = {v.name: k for k, v in _CODES.items()}


class SafetensorsError(ValueError):
    """A safetensors file is malformed, truncated or hostile."""


def save(tensors, metadata=None):
    """bytes of a safetensors file holding ``tensors`` (a dict name -> Tensor)."""
    from .._tensor import Tensor
    if not isinstance(tensors, dict) or not all(isinstance(k, str) and isinstance(v, Tensor) for k, v in tensors.items()):
        raise TypeError("safetensors holds a flat dict of str -> Tensor; got " + type(tensors).__name__)
    if metadata is not None and not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise TypeError("safetensors metadata must be a dict of str -> str")
    # larger elements first, then by name (the order the reference writer uses)
    order = sorted(tensors, key=lambda k: (-tensors[k].dtype.itemsize, k))
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = dict(metadata)
    for name in order:
        t = tensors[name]
        if t.dtype.name not in _NAMES:
            raise TypeError(f"safetensors cannot store dtype {t.dtype}")
        data = t.detach().contiguous()._bytes()
        header[name] = {"dtype": _NAMES[t.dtype.name], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    hb = json.dumps(header, separators=(",", ":")).encode()
    hb += b" " * ((-len(hb)) % 8)
    return struct.pack("<Q", len(hb)) + hb + b"".join(blobs)


def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise SafetensorsError(f"safetensors header names {k!r} twice")
        seen[k] = v
    return seen


def parse_header(data):
    """(header dict, metadata, data start) after validating every entry against the file size."""
    if len(data) < 8:
        raise SafetensorsError("safetensors file is truncated: fewer than 8 bytes")
    (n,) = struct.unpack("<Q", bytes(data[:8]))
    if n > _MAX_HEADER or n > len(data) - 8:
        raise SafetensorsError(f"safetensors header length {n} is larger than the file ({len(data)} bytes) "
                               "or the 100 MB limit")
    try:
        header = json.loads(bytes(data[8:8 + n]).decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise SafetensorsError(f"safetensors header is not valid JSON: {e}") from None
    if not isinstance(header, dict):
        raise SafetensorsError("safetensors header must be a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict)
                                     and all(isinstance(v, str) for v in metadata.values())):
        raise SafetensorsError("safetensors __metadata__ must map str to str")
    start = 8 + n
    size = len(data) - start
    spans = []
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) - {"dtype", "shape", "data_offsets"}:
            raise SafetensorsError(f"safetensors entry {name!r} is malformed")
        code, shape, offs = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if not isinstance(code, str) or code not in _CODES:
            raise SafetensorsError(f"safetensors entry {name!r} has unknown dtype {code!r}")
        if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)):
            raise SafetensorsError(f"safetensors entry {name!r} has an invalid shape {shape!r}")
        if not (isinstance(offs, list) and len(offs) == 2 and all(type(o) is int for o in offs)
                and 0 <= offs[0] <= offs[1] <= size):
            raise SafetensorsError(f"safetensors entry {name!r} has data_offsets {offs!r} outside the "
                                   f"{size}-byte data buffer")
        numel = 1
        for s in shape:
            numel *= s
        if numel * _CODES[code].itemsize != offs[1] - offs[0]:
            raise SafetensorsError(f"safetensors entry {name!r}: shape {shape} of {code} needs "
                                   f"{numel * _CODES[code].itemsize} bytes, offsets give {offs[1] - offs[0]}")
        spans.append((offs[0], offs[1], name))
    spans.sort()
    pos = 0
    for b, e, name in spans:
        if b != pos:
            raise SafetensorsError(f"safetensors entry {name!r} overlaps another or leaves a gap at byte {pos}")
        pos = e
    if pos != size:
        raise SafetensorsError(f"safetensors data buffer has {size - pos} trailing bytes no entry describes")
    return header, metadata, start


def load(data, device=None):
    """dict name -> Tensor from the bytes of a safetensors file."""
    from ..ops.creation import frombuffer
    header, _, start = parse_header(data)
    mv = memoryview(data)
    out = {}
    for name, info in header.items():
        b, e = info["data_offsets"]
        dt = _CODES[info["dtype"]]
        out[name] = frombuffer(bytearray(mv[start + b: start + e]), dtype=dt, device=device).reshape(info["shape"])
    return out


def metadata(data):
    return parse_header(data)[1]


def save_file(tensors, filename, metadata=None):
    with open(filename, "wb") as f:
        f.write(save(tensors, metadata))


def load_file(filename, device=None):
    with open(filename, "rb") as f:
        return load(f.read(), device)
