"""WGSL kernels of scans (cumulative), small-row sort/topk and searchsorted."""
