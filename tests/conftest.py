"""Shared fixtures: the device list every op/module/optimizer suite is parametrized over."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))


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


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
