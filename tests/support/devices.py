"""The devices every op/module/optimizer suite runs on: "cpu", plus "webgpu" when an adapter exists
(required when WEBTORCH_REQUIRE_WEBGPU=1, as in CI: a missing adapter is an install failure, not a skip)."""
import os
from contextlib import contextmanager


def available_devices():
    devs = ["cpu"]
    try:
        from webtorch.backends import webgpu
        if webgpu.is_available():
            devs.append("webgpu")
    except ImportError:
        pass
    if "webgpu" not in devs and os.environ.get("WEBTORCH_REQUIRE_WEBGPU") == "1":
        raise RuntimeError("WEBTORCH_REQUIRE_WEBGPU=1 but no WebGPU adapter was found: install wgpu "
                           "(pip) and mesa-vulkan-drivers (apt), as scripts/setup.sh does")
    return devs


DEVICES = available_devices()


@contextmanager
def adapter_kind(cpu):
    """Run the webgpu backend's code paths for a CPU adapter (``cpu``: SwiftShader, lavapipe) or a GPU,
    whatever this adapter is: the kernels of both run correctly anywhere, only their speed differs."""
    from webtorch.backends.webgpu import get_backend
    be = get_backend()
    saved = be.rt.cpu_adapter
    be.rt.cpu_adapter = cpu
    try:
        yield be
    finally:
        be.rt.cpu_adapter = saved
