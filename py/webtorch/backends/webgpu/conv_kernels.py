"""WGSL kernels of the convolution, pooling, padding and embedding family on the webgpu device (in progress)."""
