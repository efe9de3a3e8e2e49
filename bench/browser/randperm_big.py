"""randperm past one storage binding, against the cpu device: the half bench/bench_randperm_big.py runs natively
and inside Pyodide (there "cpu" is the WebAssembly backend). Reports one "randperm" JSON to the host in the page.

    argv: JSON {"n": int, "dtype": str, "binding": bytes to force the binding limit to, or null for the adapter's}
"""
import contextlib
import json
import sys
import time

import webtorch as wt
from webtorch.backends.webgpu import get_backend
from webtorch.backends.webgpu.randperm_kernels import _chunk


def main(cfg):
    n, dt = cfg["n"], getattr(wt, cfg["dtype"])
    t0 = time.perf_counter()
    want = wt.randperm(n, generator=wt.Generator().manual_seed(3), dtype=dt)
    cpu_s = time.perf_counter() - t0
    limits = get_backend().limits
    forced = limits.forced(binding=cfg["binding"]) if cfg["binding"] else contextlib.nullcontext()
    with forced:
        binding = limits.binding_size()
        pairs = 1 << (n - 1).bit_length()
        chunks = pairs // _chunk(pairs, limits)  # the sort's chunks: windows of one binding
        wt.webgpu.reset_peak_memory_stats()
        t0 = time.perf_counter()
        got = wt.randperm(n, generator=wt.Generator(device="webgpu").manual_seed(3), device="webgpu", dtype=dt)
        wt.webgpu.synchronize()
        gpu_s = time.perf_counter() - t0
        back = got.cpu()
        read_s = time.perf_counter() - t0 - gpu_s
    info = wt.webgpu.info()
    return {"n": n, "dtype": cfg["dtype"], "binding": binding, "chunks": chunks,
            "key_bytes": 4 * pairs, "result_bytes": n * dt.itemsize, "equal": bool(wt.equal(back, want)),
            "cpu_seconds": cpu_s, "webgpu_seconds": gpu_s, "readback_seconds": read_s,
            "max_memory_allocated": wt.webgpu.max_memory_allocated(), "adapter": info["adapter"],
            "adapter_binding": info["limits"]["maxStorageBufferBindingSize"]}


if __name__ == "__main__":
    from webtorch.browser.runner import report
    report("randperm", json.dumps(main(json.loads(sys.argv[1]))))
