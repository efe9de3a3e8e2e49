"""Backends: each owns the bytes of one device type (see base.py for the contract).

The small modules ``cudnn``, ``cuda``, ``mps``, ``mkldnn``, ``mkl`` and ``openmp`` are PyTorch's
``torch.backends.*`` settings that scripts probe and set at start-up; they hold flags and store no bytes.
"""
from . import cudnn, cuda, mps, mkldnn, mkl, openmp  # noqa: F401
