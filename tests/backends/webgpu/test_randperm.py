"""randperm on the webgpu device: a GPU bitonic sort of Philox keys (no NumPy, no host fallback)."""
import pytest

import webtorch


@pytest.fixture
def webgpu():
    if not webtorch.webgpu.is_available():
        raise RuntimeError("no WebGPU adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    return "webgpu"


# across one workgroup block (2048 pairs) and the global merge stages past it
@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 1438, 2048, 2049, 5000])
def test_randperm_is_a_permutation_on_the_gpu(webgpu, n):
    before = webtorch.webgpu.stats()["host_fallbacks"]
    g = webtorch.Generator(device=webgpu).manual_seed(n)
    p = webtorch.randperm(n, generator=g, device=webgpu)
    assert p.device.type == "webgpu" and p.dtype == webtorch.int64 and tuple(p.shape) == (n,)
    assert sorted(p.tolist()) == list(range(n))
    assert webtorch.webgpu.stats()["host_fallbacks"] == before


def test_randperm_reproducible_and_advancing(webgpu):
    g = webtorch.Generator(device=webgpu).manual_seed(1)
    a = webtorch.randperm(50, generator=g, device=webgpu).tolist()
    b = webtorch.randperm(50, generator=g, device=webgpu).tolist()
    g.manual_seed(1)
    assert webtorch.randperm(50, generator=g, device=webgpu).tolist() == a
    assert a != b and a != list(range(50))


def test_randperm_dtypes(webgpu):
    p = webtorch.randperm(6, dtype=webtorch.float32, device=webgpu)
    assert p.dtype == webtorch.float32 and sorted(p.tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert webtorch.randperm(5, dtype=webtorch.int32, device=webgpu).dtype == webtorch.int32


def test_randperm_is_roughly_uniform(webgpu):
    webtorch.manual_seed(0)
    firsts = [webtorch.randperm(4, device=webgpu)[0].item() for _ in range(400)]
    counts = [firsts.count(k) for k in range(4)]
    assert all(60 <= c <= 140 for c in counts), counts  # expected 100 each; 60..140 is > 8 sigma wide
