"""Device "webgpu": WebGPUBackend, built from backends/contract.py (base.py) over the pending queue.

``families`` names the module implementing each family of primitives: plain functions of the device's Recorder
(recorder.py: pending queue, plan cache, planner, buffer pool, stats), bound to this device's Recorder at construction.
host_rules.py says which calls run on the host instead (the counted host fallback, fallback.py: the NumPy backend
computes, named in ``webtorch.webgpu.stats()``). Every primitive records nodes and returns a View at once; reads
(item/tolist/to_numpy/to_bytes) flush the queue.
"""
from ... import _dtype as D
from ..base import Backend
from . import (conv_kernels, creation, device_checks, elementwise_kernels, host_rules, index_kernels, kernel_launch,
               matmul_kernels, optim_kernels, pool_kernels, random_kernels, reduce_kernels, softmax_norm_kernels,
               transfer, unfold_kernels, value_checks, wgsl_int64, wgsl_ops, dtypes as T)
from .fallback import host_fallback
from .handles import View, retyped
from .recorder import Recorder


class WebGPUBackend(Backend):
    device_type = "webgpu"
    families = {"creation": creation, "transfer": transfer, "elementwise": elementwise_kernels,
                "reduce": reduce_kernels, "matmul": matmul_kernels, "random": random_kernels,
                "randperm": ".randperm_kernels", "indexing": index_kernels, "conv": conv_kernels,
                "unfold": unfold_kernels, "pool": pool_kernels, "pad": ".pad_kernels",
                "embedding": ".embedding_kernels", "optim": optim_kernels, "norm": softmax_norm_kernels,
                "scan_sort": ".scan_sort_kernels", "linalg": ".linalg_kernels", "checks": value_checks}
    context = "rec"
    host_fallbacks = host_rules.HOST_FALLBACKS
    host_when = host_rules.HOST_WHEN
    host_call = host_fallback

    def __init__(self, runtime):
        self._rec = rec = Recorder(runtime)
        self.bind(rec)
        # the device's services (webtorch.webgpu, tests): the recorder's own objects
        self.rt, self.pool, self.stats, self.checks, self.limits = rec.rt, rec.pool, rec.stats, rec.checks, rec.limits
        self.recorder, self.planner = rec, rec.planner

    # ---- device-level services (webtorch.webgpu) -----------------------------------------------------------
    def flush(self):
        """Record and submit every pending op (one batched submit); does not wait (webgpu.synchronize does)."""
        self._rec.flush()

    async def prefetch_async(self, h):
        """h (or a contiguous copy) with its bytes awaited from the device, so reading it next never blocks
        (Tensor.item_async/tolist_async/numpy_async; runtimes that can always block just flush)."""
        return await transfer.prefetch_async(self._rec, h)

    # ---- the handle family: metadata and the view primitive (the geometry of handles; no device work) -----------
    def geometry(self, h):
        return h.shape, h.strides, h.offset

    def dtype(self, h):
        return h.st.dtype

    def data_ptr(self, h):
        return (h.st.key << 40) + h.offset * h.st.dtype.itemsize

    def storage_ptr(self, h):
        return h.st.key << 40

    def storage_nbytes(self, h):
        st = h.st.root  # (a view(dtype)'s alias counts whole elements of its own dtype)
        return st.numel * st.dtype.itemsize

    def as_strided(self, h, shape, stride, offset):
        return View(h.st, tuple(shape), tuple(stride), int(offset))

    def view_dtype(self, h, dtype, shape, stride, offset):
        if dtype in D.FLOAT8:
            raise TypeError(f"dtype {dtype} is not supported on device 'webgpu' (no float8 storage there); view the "
                            "bytes on device 'cpu', or convert with .to(torch.float32) first")
        T.check(dtype, self._rec.features)  # (float64, bfloat16: no storage on the device at all)
        src = h.st.dtype
        if dtype is not src and not (src in T.HOST_BYTES and dtype in T.HOST_BYTES):
            raise TypeError(f"Tensor.view({dtype}) of a {src} tensor is not supported on device 'webgpu' (its "
                            "buffers widen bool, uint8, int8 and int16 to 32 bits: only float32, int32, uint32, "
                            f"int64 and float16 view each other's bytes); view the bytes on device 'cpu': "
                            f"t.cpu().view({dtype}), then .to('webgpu') if needed")
        return View(retyped(h.st, dtype), tuple(shape), tuple(stride), int(offset))


def int64_kernel_sources():
    """{name: WGSL} of the kernels int64 adds to the shipped templates' own forms: their 64-bit variants, and
    every int64 helper (beside the error-word helpers) in one module -- what the Tint and naga compile tests build."""
    from . import scan_sort_kernels
    i64 = wgsl_int64.TYPE
    out = {f"scan_cumulative[int64,op{op},{seq}]": scan_sort_kernels.kernel_source(
        "scan_cumulative", T=i64, FLOAT=False, OP=f"{op}u", SEQUENTIAL=seq) for op in (0, 3) for seq in (False, True)}
    out["sort_bitonic[int64]"] = scan_sort_kernels.kernel_source("sort_bitonic", T=i64, FLOAT=False, DESCENDING=True)
    out["sort_searchsorted[int64]"] = scan_sort_kernels.kernel_source("sort_searchsorted", T=i64, RIGHT=True)
    out["index_take[int64]"] = kernel_launch.source("index_take", T=i64)
    out["random_philox[raw words]"] = random_kernels.philox_source(3, D.uint32)
    out["int64 helpers"] = (device_checks.declaration(0) + "\n" + device_checks.HELPERS
                            + wgsl_ops.helper_sources(wgsl_int64.HELPERS)
                            + "\n@compute @workgroup_size(1)\nfn main() { wt_report(0u, 0, 0u); }\n")
    return out
