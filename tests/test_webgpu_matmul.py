"""The tiled matmul kernel on the webgpu device: every operand layout (loaded as vec4 along the tile, vec4
across it with an in-register transpose, or scalar), tile shapes for small and large problems, batched and
broadcast operands, and the fused elementwise epilogue (bias, activation) -- against NumPy."""
import numpy as np
import pytest

import webtorch
from webtorch.backends.webgpu import backend as wb

pytestmark = pytest.mark.skipif(not webtorch.webgpu.is_available(), reason="needs a WebGPU adapter")


def _layout(x, transposed, offset):
    """x (..., r, c) as a webgpu tensor with the same values: stored transposed and/or at an offset."""
    base = np.ascontiguousarray(np.swapaxes(x, -1, -2)) if transposed else x
    flat = np.concatenate([np.zeros(offset, np.float32), base.ravel()])
    t = webtorch.tensor(flat, device="webgpu")[offset:].reshape(base.shape)
    return t.transpose(-1, -2) if transposed else t


@pytest.mark.parametrize("m,k,n", [(64, 32, 64), (37, 19, 45), (128, 784, 256), (128, 256, 10), (16, 12, 20),
                                   (5, 8, 130), (200, 64, 4)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("offset", [0, 4, 3])
def test_layouts(m, k, n, ta, tb, offset):
    rng = np.random.default_rng(m * 7 + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    out = (_layout(a, ta, offset) @ _layout(b, tb, offset)).cpu().numpy()
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4 * np.sqrt(k))


@pytest.mark.parametrize("ta,tb", [(False, False), (True, True)])
def test_batched_broadcast(ta, tb):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 1, 20, 36)).astype(np.float32)
    b = rng.standard_normal((2, 36, 24)).astype(np.float32)
    out = (_layout(a, ta, 0) @ _layout(b, tb, 4)).cpu().numpy()
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-3)


def test_operand_modes():
    """The loader picks vec4 loads exactly when strides, offsets and sizes allow them."""
    assert wb._operand_mode(1, 64, 32, 16, (0, 0, 0, 0), 0) == 1
    assert wb._operand_mode(64, 1, 32, 16, (0, 0, 0, 0), 8) == 2
    assert wb._operand_mode(1, 64, 30, 16, (0, 0, 0, 0), 0) == 0  # size along not a multiple of 4
    assert wb._operand_mode(1, 64, 32, 16, (0, 0, 0, 0), 3) == 0  # misaligned offset
    assert wb._operand_mode(1, 64, 32, 16, (0, 0, 0, 6), 0) == 0  # misaligned batch stride
    assert wb._operand_mode(3, 5, 32, 16, (0, 0, 0, 0), 0) == 0
