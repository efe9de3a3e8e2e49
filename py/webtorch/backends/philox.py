"""The random stream every Philox backend shares (webgpu's random_philox.wgsl, wasm's random.c): a Philox4x32-10
key (the seed) and the next unused counter block. Each draw of n values takes ceil(n / 4) blocks (four 32-bit
words each), so the same seed gives the same numbers on every backend that draws through it."""
import struct


class PhiloxState:
    __slots__ = ("seed", "offset")

    def __init__(self, seed):
        self.seed = seed & ((1 << 64) - 1)
        self.offset = 0

    def take(self, n):
        """The first counter block of a draw of n values, reserving its blocks."""
        base = self.offset
        self.offset += (n + 3) // 4
        return base

    def get_state(self):
        return struct.pack("<QQ", self.seed, self.offset)

    def set_state(self, state):
        self.seed, self.offset = struct.unpack("<QQ", bytes(state)[:16])
