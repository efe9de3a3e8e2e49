"""A minimal PNG encoder (8-bit grey or RGB), pure Python: Pyodide may have no NumPy or Pillow."""
import struct
import zlib


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(pixels, width, height, channels):
    """PNG bytes of ``pixels`` (bytes, row-major, ``channels`` = 1 or 3 bytes per pixel)."""
    if channels not in (1, 3):
        raise ValueError(f"encode_png: channels must be 1 (grey) or 3 (RGB), got {channels}")
    if len(pixels) != width * height * channels:
        raise ValueError(f"encode_png: {len(pixels)} bytes do not hold a {width}x{height}x{channels} image")
    stride = width * channels
    raw = b"".join(b"\0" + pixels[r * stride:(r + 1) * stride] for r in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0 if channels == 1 else 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b"")
