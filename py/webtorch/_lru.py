"""LRU: a bounded cache that forgets its least recently used entry.

The backends remember per-structure work (a generated kernel per fused tree, a schedule per repeating queue)
across calls. A program with dynamic shapes (varying sequence lengths, a last smaller batch) meets new keys without
end, so such a cache must be bounded; forgetting the least recently used entry keeps what a training loop repeats
(its steps hit on every call) while one-off shapes age out, where clearing the whole cache at the bound would
throw away the steady-state entries with them.
"""
from collections import OrderedDict


class LRU(OrderedDict):
    """A dict of at most ``maxsize`` entries: ``get`` marks a hit as recently used, ``put`` stores and drops the
    least recently used entry past the bound. ``clear`` empties it (Limits.register_cache clears it on a change)."""

    def __init__(self, maxsize):
        super().__init__()
        self.maxsize = maxsize

    def get(self, key, default=None):
        try:
            value = self[key]
        except KeyError:
            return default
        self.move_to_end(key)
        return value

    def put(self, key, value):
        """Store ``value`` under ``key``; returns ``value``."""
        self[key] = value
        while len(self) > self.maxsize:
            self.popitem(last=False)
        return value
