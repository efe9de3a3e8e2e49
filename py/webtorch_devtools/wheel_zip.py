"""The runtime wheel's zip, written again with smaller deflate streams: every page that trains downloads it.

setuptools deflates each entry with zlib; Zopfli (PyPI's ``zopfli``, pinned in scripts/requirements-dev.txt) finds
a shorter encoding of the same deflate format -- any inflater reads it (pip, micropip, web/zip_files.js's
DecompressionStream) -- at a build's cost of a few seconds: kernels.wasm 164.8 -> 154.9 KiB. Entries compressed
already (the Zstandard bytecode archive) are stored, not deflated a second time. Names, order, timestamps,
attributes and the bytes inside (so RECORD's hashes) stay as they were.
"""
import struct
import zipfile
import zlib
from pathlib import Path

import zopfli.zlib

ZOPFLI_ITERATIONS = 15  # zopfli's default; more iterations gained < 0.1% on kernels.wasm
STORED_SUFFIXES = (".zst",)  # compressed already


def raw_deflate(data):
    """``data`` deflated by Zopfli, as a zip entry holds it (raw deflate: no zlib header or checksum)."""
    return zopfli.zlib.compress(data, numiterations=ZOPFLI_ITERATIONS)[2:-4]


def _dos_time(date_time):
    y, mo, d, h, mi, s = date_time
    return (h << 11) | (mi << 5) | (s // 2), ((y - 1980) << 9) | (mo << 5) | d


def recompress(path):
    """Rewrite the zip at ``path`` in place: each entry Zopfli-deflated (or stored: STORED_SUFFIXES, or where
    deflate does not help), everything else as it was. Returns (bytes before, bytes after)."""
    path = Path(path)
    before = path.stat().st_size
    with zipfile.ZipFile(path) as z:
        entries = [(info, z.read(info)) for info in z.infolist()]
    out, central = bytearray(), bytearray()
    for info, data in entries:
        packed = b"" if info.filename.endswith(STORED_SUFFIXES) else raw_deflate(data)
        method = zipfile.ZIP_DEFLATED if packed and len(packed) < len(data) else zipfile.ZIP_STORED
        body = packed if method == zipfile.ZIP_DEFLATED else data
        name = info.filename.encode("utf-8")
        flags = 0x800 if not name.isascii() else 0  # bit 11: the name is UTF-8
        time, date = _dos_time(info.date_time)
        crc = zlib.crc32(data)
        common = struct.pack("<HHHHHIIIH", 20, flags, method, time, date, crc, len(body), len(data), len(name))
        central += (struct.pack("<IH", 0x02014B50, (info.create_system << 8) | info.create_version) + common
                    + struct.pack("<HHHHII", 0, 0, 0, 0, info.external_attr, len(out)) + name)
        out += struct.pack("<I", 0x04034B50) + common + struct.pack("<H", 0) + name + body
    out += central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(out), 0)
    path.write_bytes(out)
    with zipfile.ZipFile(path) as z:  # read back: every entry's bytes as before
        if z.testzip() is not None or [(i.filename, z.read(i)) for i in z.infolist()] != [
                (i.filename, d) for i, d in entries]:
            raise RuntimeError(f"rewriting {path.name} with Zopfli changed its content")
    return before, len(out)
