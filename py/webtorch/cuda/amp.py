"""torch.cuda.amp: PyTorch's deprecated spelling of torch.amp with device "cuda"."""
from .. import amp as _amp


class GradScaler(_amp.GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=None):
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
