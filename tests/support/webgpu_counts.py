"""What a piece of webgpu work cost: webtorch.webgpu.stats() counters around it, with the queue drained on
both sides so the work is counted in full and nothing earlier is."""
import webtorch

DEFAULT = ("dispatches", "submits", "host_fallbacks")


def counted(fn, keys=DEFAULT):
    """(fn(), {counter: increase} for ``keys``); the key "ops" gives the fallback increases per primitive."""
    webtorch.webgpu.synchronize()
    before = webtorch.webgpu.stats()
    out = fn()
    webtorch.webgpu.synchronize()
    after = webtorch.webgpu.stats()
    diff = {k: after[k] - before[k] for k in keys if k != "ops"}
    if "ops" in keys:
        was = before["host_fallback_ops"]
        diff["ops"] = {k: v - was.get(k, 0) for k, v in after["host_fallback_ops"].items() if v != was.get(k, 0)}
    return out, diff
