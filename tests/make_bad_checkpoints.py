"""Writes the corpus of hostile/corrupt checkpoint files kept under tests/data/bad_checkpoints/.

Run once to (re)generate; the files are committed and every one must be refused with a clear error.
"""
import io
import json
import os
import pickle
import struct
import zipfile

HERE = os.path.join(os.path.dirname(__file__), "data", "bad_checkpoints")


def st(header, data=b"", raw_len=None):
    hb = json.dumps(header).encode()
    return struct.pack("<Q", len(hb) if raw_len is None else raw_len) + hb + data


def zip_with(pkl, records=None, name="archive"):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(f"{name}/data.pkl", pkl)
        zf.writestr(f"{name}/byteorder", b"little")
        for k, v in (records or {}).items():
            zf.writestr(f"{name}/data/{k}", v)
        zf.writestr(f"{name}/version", b"3\n")
    return buf.getvalue()


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /tmp/webtorch_pwned",))


def _tensor_pickle(numel, size, stride, offset=0, key="0", storage="FloatStorage"):
    # hand-assembled like torch's: _rebuild_tensor_v2(persid(storage), offset, size, stride, False, OrderedDict())
    def s(x):
        b = x.encode()
        return b"X" + struct.pack("<I", len(b)) + b

    def tup(items):
        return b"(" + b"".join(items) + b"t"

    def i(v):
        return b"J" + struct.pack("<i", v)
    pid = tup([s("storage"), b"ctorch\n" + storage.encode() + b"\n", s(key), s("cpu"), i(numel)])
    args = tup([pid + b"Q", i(offset), tup([i(v) for v in size]), tup([i(v) for v in stride]), b"\x89",
                b"ccollections\nOrderedDict\n)R"])
    return b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n" + args + b"R."


def _patch_entries(data, compress=None, flags=None):
    """Rewrite every local and central header's compression method or flag bits."""
    b = bytearray(data)
    for sig, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        pos = b.find(sig)
        while pos != -1:
            if compress is not None:
                b[pos + method_at: pos + method_at + 2] = struct.pack("<H", compress)
            if flags is not None:
                b[pos + flag_at: pos + flag_at + 2] = struct.pack("<H", flags)
            pos = b.find(sig, pos + 4)
    return bytes(b)


def corpus():
    ok_hdr = {"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
    return {
        "st_truncated.safetensors": b"\x10\x00\x00",
        "st_header_1e12.safetensors": struct.pack("<Q", 10 ** 12) + b"{}",
        "st_header_past_end.safetensors": st(ok_hdr, b"\0" * 8, raw_len=4000),
        "st_not_json.safetensors": struct.pack("<Q", 4) + b"{{{{",
        "st_unknown_dtype.safetensors": st({"w": {"dtype": "Q7", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8),
        "st_out_of_range.safetensors": st({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8),
        "st_overlap.safetensors": st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                      "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12),
        "st_size_mismatch.safetensors": st({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8),
        "st_negative_shape.safetensors": st({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\0" * 8),
        "st_trailing_bytes.safetensors": st(ok_hdr, b"\0" * 12),
        "st_header_array.safetensors": st([1, 2], b""),
        "st_bad_metadata.safetensors": st({"__metadata__": {"a": 1}}, b""),
        "zip_evil_global.pt": zip_with(pickle.dumps(_Evil(), protocol=2)),
        "zip_builtin_eval.pt": zip_with(b"\x80\x02cbuiltins\neval\nX\x04\x00\x00\x001+1\x85R."),
        "zip_truncated.pt": zip_with(_tensor_pickle(2, [2], [1]), {"0": b"\0" * 8})[:-40],
        "zip_missing_record.pt": zip_with(_tensor_pickle(2, [2], [1], key="7"), {"0": b"\0" * 8}),
        "zip_storage_too_small.pt": zip_with(_tensor_pickle(1000, [1000], [1]), {"0": b"\0" * 8}),
        "zip_view_past_storage.pt": zip_with(_tensor_pickle(2, [5], [1], offset=1), {"0": b"\0" * 8}),
        "zip_unknown_storage.pt": zip_with(_tensor_pickle(2, [2], [1], storage="QuantumStorage"), {"0": b"\0" * 8}),
        "zip_no_data_pkl.pt": zip_with(b"")[:0] + b"PK\x05\x06" + b"\0" * 18,
        "zip_garbage_pickle.pt": zip_with(b"\x80\x02\xff\xfe\xfd"),
        "not_a_zip.pt": b"\x80\x02}q\x00.",
        "zip_unknown_compression.pt": _patch_entries(zip_with(_tensor_pickle(2, [2], [1]), {"0": b"\0" * 8}),
                                                     compress=99),
        "zip_encrypted.pt": _patch_entries(zip_with(_tensor_pickle(2, [2], [1]), {"0": b"\0" * 8}), flags=1),
    }


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, data in corpus().items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
