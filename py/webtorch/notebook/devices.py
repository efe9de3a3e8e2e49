"""What serves the page's devices, and why: the notebook app's device panel shows it (web/notebook/kernel_worker.js
asks once the kernel is up)."""


def page_devices():
    """{"default", "why", "accelerator", "cuda", "cuda_why", "cpu", "webgpu"}: the default device and the reason,
    what ``torch.accelerator`` reports, what "cuda" names (``"webgpu"`` or ``None``) and why, what runs "cpu" (the
    WebAssembly kernels: module size, instantiate time) and what runs "webgpu" (the adapter, or None)."""
    from .. import _cuda_alias, _device, accelerator
    from ..backends import webgpu

    default = _device.get_default_device().type
    adapter = webgpu.get_backend().rt.description if webgpu.is_available() else None
    if default != "cpu":
        why = "set by the program (torch.set_default_device)"
    elif adapter is None:
        why = "as PyTorch's; this browser has no WebGPU adapter: everything runs on the CPU, as WebAssembly"
    else:
        why = "as PyTorch's: code reaches WebGPU by naming it (\"webgpu\", torch.accelerator, or \"cuda\" while it " \
              "names webgpu)"
    cuda_on, cuda_why = _cuda_alias.status()
    rt = _device.backend_for("cpu").rt
    stats = getattr(rt, "stats", {})
    n = rt.threads()  # the caller and the worker threads started so far (2+ only in a cross-origin isolated page)
    cpu = f"WebAssembly (kernels.wasm, SIMD128, {n} thread{'s' if n > 1 else ''} for GEMMs"
    if stats:
        cpu += f"; {stats['module_bytes'] / 1024:.0f} KiB, instantiated in {stats['instantiate_ms']:.0f} ms"
    accel = accelerator.current_accelerator(check_available=True)
    return {"default": default, "why": why, "accelerator": None if accel is None else accel.type,
            "cuda": "webgpu" if cuda_on else None, "cuda_why": cuda_why, "cpu": cpu + ")", "webgpu": adapter}
