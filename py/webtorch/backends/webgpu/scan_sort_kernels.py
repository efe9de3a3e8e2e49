"""WGSL kernels of scans (cumulative), small-row sort/topk and searchsorted."""


class WebGPUScanSortMixin:
    """cumulative, sort, topk and searchsorted as WGSL dispatches."""
