"""WGSL kernels of the embedding primitives (in progress)."""


class EmbeddingKernels:
    pass
