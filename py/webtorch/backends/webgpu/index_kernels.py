"""WGSL kernels of the indexing primitives (index, index_put_, gather, scatter_, nonzero, flip)."""
