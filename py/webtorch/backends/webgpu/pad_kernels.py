"""WGSL kernels of the pad primitives (in progress)."""


class PadKernels:
    pass
