"""The counters behind ``webtorch.webgpu.stats()``: one Stats per device, counted by the planner, the plan cache,
the Recorder (flushes, submits, readbacks) and the host fallbacks."""


class Stats:
    """Counters behind ``webtorch.webgpu.stats()``."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.dispatches = 0
        self.submits = 0
        self.flushes = 0
        self.readbacks = 0
        self.host_fallbacks = 0
        self.fallback_ops = {}
        self.kernels_compiled = 0
        self.codegen_misses = 0
        self.nodes_fused = 0
        self.nodes_dropped = 0
        self.flush_reuses = 0  # flushes that reused a remembered schedule (plan_cache.py)

    def as_dict(self):
        return {"dispatches": self.dispatches, "submits": self.submits, "flushes": self.flushes,
                "readbacks": self.readbacks,
                "host_fallbacks": self.host_fallbacks, "host_fallback_ops": dict(self.fallback_ops),
                "kernels_compiled": self.kernels_compiled, "codegen_misses": self.codegen_misses,
                "nodes_fused": self.nodes_fused, "nodes_dropped": self.nodes_dropped, "flush_reuses": self.flush_reuses}

