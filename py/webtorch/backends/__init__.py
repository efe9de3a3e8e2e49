"""Backends: each owns the bytes of one device type (contract.py: the primitives, declared once; base.py: how a
backend class is built from them).

The small modules ``cudnn``, ``cuda``, ``mps``, ``mkldnn``, ``mkl`` and ``openmp`` are PyTorch's
``torch.backends.*`` settings that scripts probe and set at start-up; they hold flags and store no bytes.
"""
from . import cudnn, cuda, mps, mkldnn, mkl, openmp  # noqa: F401
