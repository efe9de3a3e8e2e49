"""WGSL kernels of the pool primitives (in progress)."""


class PoolKernels:
    pass
