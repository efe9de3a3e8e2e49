"""The convolution, pooling, padding and embedding family of WGSL kernels, as one mixin of WebGPUBackend."""
from .conv_kernels import ConvKernels
from .embedding_kernels import EmbeddingKernels
from .pad_kernels import PadKernels
from .pool_kernels import PoolKernels


class ConvFamilyKernels(ConvKernels, PoolKernels, PadKernels, EmbeddingKernels):
    """conv (and gradients), im2col/col2im, pooling, pad, embedding: every primitive of base.py's
    "convolution, pooling, padding, embedding" section as WGSL dispatches."""
