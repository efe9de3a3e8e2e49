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


def tensor_maker(lib, dev):
    """tensor(array, grad=False): a tensor of ``lib`` (webtorch or torch) on ``dev`` (the size-limit sweeps)."""
    def t(a, grad=False):
        x = lib.tensor(a, device=dev)
        return x.requires_grad_(True) if grad else x
    return t


def with_grads(outs, leaves):
    """outs plus the gradients of the sum of the float outputs (weighted, so every element counts) wrt leaves."""
    outs = list(outs)
    floats = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
    if floats:
        loss = sum((o * (1.0 + 0.001 * i)).sum() for i, o in enumerate(floats))
        loss.backward()
        outs += [x.grad for x in leaves]
    return outs


def assert_outputs_match(got, want, name, tol=2e-4):
    """Each tensor of ``got`` (webtorch, any device) equals the one of ``want`` (PyTorch): shape, and values
    (integers exactly, floats to ``tol``)."""
    import numpy as np
    assert len(got) == len(want), name
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = g.detach().cpu().numpy(), w.detach().numpy()
        assert g.shape == w.shape, f"{name}[{i}]: shape {g.shape} != {w.shape}"
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w, err_msg=f"{name}[{i}]")
        else:
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=f"{name}[{i}]")
