"""Hostile and corrupt checkpoint files.

``corpus()``: small corrupt files kept under tests/data/bad_checkpoints/ (run this script to regenerate);
every one must be refused with a clear error. ``hostile()``: files built to change the loading process or
to amplify a small file into a lot of work or memory (some are megabytes, so tests generate them); each is
loaded in a subprocess under a memory limit (tests/serialization/test_checkpoint_hostile.py).
"""
import io
import json
import os
import pickle
import struct
import zipfile

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "bad_checkpoints")


def st(header, data=b"", raw_len=None):
    hb = json.dumps(header).encode()
    return struct.pack("<Q", len(hb) if raw_len is None else raw_len) + hb + data


def zip_with(pkl, records=None, name="archive", compression=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        zf.writestr(f"{name}/data.pkl", pkl)
        zf.writestr(f"{name}/byteorder", b"little")
        for k, v in (records or {}).items():
            zf.writestr(f"{name}/data/{k}", v)
        zf.writestr(f"{name}/version", b"3\n")
    return buf.getvalue()


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /tmp/webtorch_pwned",))


def _s(x):
    b = x.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def _tup(items):
    return b"(" + b"".join(items) + b"t"


def _i(v):
    return b"J" + struct.pack("<i", v)


def _tensor_ops(numel, size, stride, offset=0, key="0", storage="FloatStorage"):
    # hand-assembled like torch's: _rebuild_tensor_v2(persid(storage), offset, size, stride, False, OrderedDict())
    pid = _tup([_s("storage"), b"ctorch\n" + storage.encode() + b"\n", _s(key), _s("cpu"), _i(numel)])
    args = _tup([pid + b"Q", _i(offset), _tup([_i(v) for v in size]), _tup([_i(v) for v in stride]), b"\x89",
                 b"ccollections\nOrderedDict\n)R"])
    return b"ctorch._utils\n_rebuild_tensor_v2\n" + args + b"R"


def _tensor_pickle(numel, size, stride, offset=0, key="0", storage="FloatStorage"):
    return b"\x80\x02" + _tensor_ops(numel, size, stride, offset, key, storage) + b"."


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


def _list_of(items):
    return b"](" + b"".join(items) + b"e"


def _nested(depth):
    # [[[...[t]...]]]: depth EMPTY_LIST+MARK, the tensor, then depth APPENDS
    return b"\x80\x02" + b"](" * depth + _tensor_ops(1, [1], [1]) + b"e" * depth + b"."


def _shared_dag(levels):
    # L0 = [t, t]; L(k+1) = [Lk, Lk]: 2**levels paths to one tensor in a ~1.7 KB pickle
    out = b"\x80\x02" + _tensor_ops(1, [1], [1]) + b"r\x00\x00\x00\x00"
    for k in range(levels):
        get = b"j" + struct.pack("<I", k)
        out += b"](" + get + get + b"er" + struct.pack("<I", k + 1)
    return out + b"."


def _views(n, numel, size, stride):
    return b"\x80\x02" + _list_of([_tensor_ops(numel, size, stride)] * n) + b"."


def _deflate_bomb(entries, nbytes):
    numel = nbytes // 4
    pkl = b"\x80\x02" + _list_of([_tensor_ops(numel, [numel], [1], key=str(k)) for k in range(entries)]) + b"."
    zeros = b"\0" * nbytes
    return zip_with(pkl, {str(k): zeros for k in range(entries)}, compression=zipfile.ZIP_DEFLATED)


def _size_lie():
    # a deflated record that declares 8 bytes and inflates to 64 MiB
    data = bytearray(zip_with(_tensor_pickle(2, [2], [1]), {"0": b"\0" * (64 << 20)},
                              compression=zipfile.ZIP_DEFLATED))
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("archive/data/0")
    local = info.header_offset
    central = data.find(data[local + 4: local + 22], local + 30) - 6  # same fields, 2 bytes later
    assert data[central: central + 4] == b"PK\x01\x02"
    for at in (local + 22, central + 24):  # the uncompressed size in both headers
        data[at: at + 4] = struct.pack("<I", 8)
    return bytes(data)


_T = _tensor_ops(2, [2], [1])
_F8 = {"0": b"\0" * 8}


def hostile():
    """name -> (file bytes, map_location, "refused" or "loads")."""
    return {
        # BUILD may set state only on objects the unpickler made and whose state it checks
        "build_on_device_class.pt": (zip_with(b"\x80\x02ctorch\ndevice\nN}" + _s("__new__") + b"Ns\x86b."),
                                     None, "refused"),
        "build_on_device_instance.pt": (zip_with(b"\x80\x02ctorch\ndevice\n" + _s("cpu") + b"\x85RN}"
                                                 + _s("type") + _s("cuda") + b"s\x86b."), None, "refused"),
        "build_on_tensor.pt": (zip_with(b"\x80\x02" + _T + b"}" + _s("_data") + b"Nsb.", _F8), None, "refused"),
        "build_on_ordereddict_class.pt": (zip_with(b"\x80\x02ccollections\nOrderedDict\n}" + _s("keys")
                                                   + b"Nsb."), None, "refused"),
        "call_tensor_constructor.pt": (zip_with(b"\x80\x02ctorch\nTensor\n" + _i(10 ** 9) + b"\x85R."),
                                       None, "refused"),
        "bytearray_of_2gib.pt": (zip_with(b"\x80\x02c__builtin__\nbytearray\n" + _i(2 ** 31 - 1) + b"\x85R."),
                                 None, "refused"),
        "stack_global_system.pt": (zip_with(b"\x80\x04\x8c\x02os\x8c\x06system\x93" + _s("echo pwned > "
                                            "/tmp/webtorch_pwned") + b"\x85R."), None, "refused"),
        "newobj_of_builtin_class.pt": (zip_with(b"\x80\x02ccollections\nOrderedDict\n)\x81."), None, "refused"),
        "long4_length_2gib.pt": (zip_with(b"\x80\x02\x8b\xff\xff\xff\x7f."), None, "refused"),
        "unknown_memo.pt": (zip_with(b"\x80\x02j\xff\xff\xff\x00."), None, "refused"),
        "pid_location_not_str.pt": (zip_with(b"\x80\x02" + _T.replace(_s("cpu"), _i(3)), _F8), None, "refused"),
        "rebuild_size_not_ints.pt": (zip_with(b"\x80\x02" + _T.replace(b"(J\x02\x00\x00\x00t", b"(" + _s("x")
                                                                         + b"t", 1), _F8), None, "refused"),
        "deflate_bomb_1000_entries.pt": (_deflate_bomb(1000, 2 << 20), "cpu", "refused"),
        "declared_size_lie.pt": (_size_lie(), None, "refused"),
        "st_dtype_is_a_list.safetensors": (st({"w": {"dtype": ["F32"], "shape": [2], "data_offsets": [0, 8]}},
                                              b"\0" * 8), None, "refused"),
        "st_offsets_are_floats.safetensors": (st({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0.0, 8.0]}},
                                                 b"\0" * 8), None, "refused"),
        # valid files that amplify work unless storages are moved once and the walk keeps identity
        "shared_references_dag.pt": (zip_with(_shared_dag(60), {"0": b"\0" * 4}), "cpu", "loads"),
        "stride0_views_40.pt": (zip_with(_views(40, 1, [1 << 27], [0]), {"0": b"\0" * 4}), "cpu", "loads"),
        "stride0_views_40_webgpu.pt": (zip_with(_views(40, 1, [1 << 27], [0]), {"0": b"\0" * 4}), "webgpu", "loads"),
        "one_storage_1000_views.pt": (zip_with(_views(1000, 1 << 19, [1 << 19], [1]), {"0": b"\0" * (2 << 20)}),
                                      "cpu", "loads"),
        "nesting_depth_1e5.pt": (zip_with(_nested(100_000), {"0": b"\0" * 4}), "cpu", "loads"),
        "self_referencing_list.pt": (zip_with(b"\x80\x02]q\x00(" + _tensor_ops(1, [1], [1]) + b"h\x00e.",
                                              {"0": b"\0" * 4}), "cpu", "loads"),
    }


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, data in corpus().items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
