"""Device "cpu": eager NumPy (backend.py: the NumpyBackend class; the other modules: its primitive families).

``get_backend()`` returns the device's Backend.
"""
from .backend import NumpyBackend, get_backend  # noqa: F401
