"""What serves the page's devices, and why: the notebook app's device panel shows it (web/notebook/kernel_worker.js
asks once the kernel is up)."""


def page_devices():
    """{"default", "why", "cpu", "webgpu"}: the default device, the reason it is the default, what runs "cpu" (the
    WebAssembly kernels: module size, instantiate time) and what runs "webgpu" (the adapter, or None)."""
    from .. import _device
    from ..backends import webgpu

    default = _device.get_default_device().type
    adapter = webgpu.get_backend().rt.description if webgpu.is_available() else None
    cpu_adapter = adapter is not None and webgpu.get_backend().rt.cpu_adapter
    if default == "webgpu":
        why = "the browser granted a WebGPU adapter"
        if cpu_adapter:
            why += " (a CPU fallback: its shaders run on the CPU, so small models may train faster on 'cpu')"
    elif adapter is None:
        why = "this browser has no WebGPU adapter: everything runs on the CPU, as WebAssembly"
    else:
        why = "set by the program (torch.set_default_device)"
    rt = _device.backend_for("cpu").rt
    stats = getattr(rt, "stats", {})
    cpu = "WebAssembly (kernels.wasm, SIMD128, 1 thread"
    if stats:
        cpu += f"; {stats['module_bytes'] / 1024:.0f} KiB, instantiated in {stats['instantiate_ms']:.0f} ms"
    return {"default": default, "why": why, "cpu": cpu + ")", "webgpu": adapter}
