"""The wasm backend's scan_sort family: scans, sorting and searching (scan_sort.py) and unique (unique.py, which
is built on scan_sort's sort)."""
from .scan_sort import cumulative, searchsorted, sort, topk  # noqa: F401
from .unique import unique  # noqa: F401
