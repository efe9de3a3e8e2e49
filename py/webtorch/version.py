"""torch.version: webtorch's version; no CUDA, HIP or XPU toolkit."""
__version__ = "0.1.0"
cuda = None
hip = None
xpu = None
debug = False
