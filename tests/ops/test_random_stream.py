"""One random stream on every device: the same seed gives the same numbers on cpu in CPython (NumPy), cpu in the page
(the wasm backend's primitives, run through wasmtime) and webgpu -- Philox4x32-10, state (seed, counter block) as
backends/philox.py. Uniform, integer, permutation and Bernoulli draws are bit-identical; normal draws (and what
log/exp/sin/cos make of a uniform) agree to float32 rounding of those functions."""
import numpy as np
import pytest

import webtorch
import webtorch.nn.functional as F
from devices import DEVICES
from webtorch import _dtype as D
from webtorch import nn

# (name, draw(primitives, rng), exact): a backend's random primitives called as base.py's signatures
PRIMITIVE_DRAWS = [
    ("uniform [0, 1)", lambda p, r: p.uniform((5, 7), 0.0, 1.0, D.float32, r), True),
    ("uniform [-2, 3)", lambda p, r: p.uniform((1027,), -2.0, 3.0, D.float32, r), True),
    ("normal", lambda p, r: p.normal((1001,), 0.5, 2.0, D.float32, r), False),
    ("normal, odd count", lambda p, r: p.normal((3, 3), 0.0, 1.0, D.float32, r), False),
    ("randint int32 span", lambda p, r: p.randint((9,), 0, 7, D.int64, r), True),
    ("randint negative low", lambda p, r: p.randint((2, 50), -100, 100, D.int32, r), True),
    ("randint uint8 result", lambda p, r: p.randint((64,), 0, 256, D.uint8, r), True),
    ("randint 32-bit span past int32", lambda p, r: p.randint((33,), 1 << 40, (1 << 40) + 3_000_000_000, D.int64, r),
     True),
    ("randint whole int32 range", lambda p, r: p.randint((40,), -(1 << 31), 1 << 31, D.int64, r), True),
    ("randint 63-bit span", lambda p, r: p.randint((1027,), -5, 1 << 40, D.int64, r), True),
    ("randperm", lambda p, r: p.randperm(1000, D.int64, r), True),
    ("randperm power of two", lambda p, r: p.randperm(64, D.int32, r), True),
    ("bernoulli", lambda p, r: p.bernoulli(0.3, (100,), D.float32, r), True),
]
# float64 lives on cpu only: its draws are the float32 draws, widened (as on the wasm backend)
CPU_DRAWS = [
    ("uniform float64", lambda p, r: p.uniform((13,), -1.0, 1.0, D.float64, r), True),
    ("normal float64", lambda p, r: p.normal((13,), 0.0, 1.0, D.float64, r), False),
    ("bernoulli float64", lambda p, r: p.bernoulli(0.7, (40,), D.float64, r), True),
]


class _WasmPrimitives:
    """The wasm backend's random primitives (backends/wasm/rng.py), through the process's one wasm backend (its
    kernel context owns the module's memory: a second context on the same runtime would share its arenas)."""

    def __init__(self):
        from webtorch.backends.wasm import get_backend
        self._be = get_backend()

    def __getattr__(self, name):
        return getattr(self._be, name)

    def values(self, h):
        return np.asarray(self._be.tolist(h))


class _NumpyPrimitives:
    def __getattr__(self, name):
        from webtorch.backends.numpy import rng
        return getattr(rng, name)

    def values(self, h):
        return np.asarray(h)


class _WebgpuPrimitives:
    def __init__(self):
        from webtorch.backends.webgpu import get_backend
        self._be = get_backend()

    def __getattr__(self, name):
        return getattr(self._be, name)

    def values(self, h):
        return np.asarray(self._be.tolist(h))


@pytest.fixture(scope="module")
def backends():
    if "webgpu" not in DEVICES:
        pytest.fail("no webgpu adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    return {"numpy": _NumpyPrimitives(), "wasm": _WasmPrimitives(), "webgpu": _WebgpuPrimitives()}


def _assert_same(values, exact):
    ref = values["numpy"]
    for name, v in values.items():
        assert v.shape == ref.shape, name
        if exact:
            np.testing.assert_array_equal(v, ref, err_msg=name)
        else:
            np.testing.assert_allclose(v, ref, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("name,draw,exact,on", [d + (("numpy", "wasm", "webgpu"),) for d in PRIMITIVE_DRAWS] +
                         [d + (("numpy", "wasm"),) for d in CPU_DRAWS], ids=[d[0] for d in PRIMITIVE_DRAWS + CPU_DRAWS])
def test_primitives_draw_one_stream(backends, name, draw, exact, on):
    values = {}
    for be_name in on:
        p = backends[be_name]
        r = p.rng_new(1234)
        first = p.values(draw(p, r))
        values[be_name] = p.values(draw(p, r))  # a second draw continues the stream where the first stopped
        assert not np.array_equal(first, values[be_name]) or first.size <= 1
    _assert_same(values, exact)


def test_primitive_states_are_one_format(backends):
    """A state saved on one backend continues the same numbers on every other one."""
    src = backends["numpy"].rng_new(99)
    backends["numpy"].uniform((10,), 0.0, 1.0, D.float32, src)
    state = backends["numpy"].rng_get_state(src)
    values = {}
    for be_name, p in backends.items():
        r = p.rng_new(0)
        p.rng_set_state(r, state)
        values[be_name] = p.values(p.randint((21,), 0, 1000, D.int64, r))
        assert p.rng_get_state(r) != state  # the draw moved the counter on
    _assert_same(values, True)


# (name, op(device, generator or None), exact): public ops that draw, on a device
OP_DRAWS = [
    ("rand", lambda d, g: webtorch.rand(4, 5, device=d, generator=g), True),
    ("randn", lambda d, g: webtorch.randn(301, device=d, generator=g), False),
    ("randint", lambda d, g: webtorch.randint(-3, 9, (40,), device=d, generator=g), True),
    ("randperm", lambda d, g: webtorch.randperm(77, device=d, generator=g), True),
    ("bernoulli", lambda d, g: webtorch.bernoulli(webtorch.full((50,), 0.4, device=d), generator=g), True),
    ("uniform_", lambda d, g: webtorch.empty(33, device=d).uniform_(-1.0, 5.0, generator=g), True),
    ("normal_", lambda d, g: webtorch.empty(33, device=d).normal_(2.0, 3.0, generator=g), False),
    ("exponential_", lambda d, g: webtorch.empty(33, device=d).exponential_(1.5, generator=g), False),
    ("random_", lambda d, g: webtorch.empty(33, device=d).random_(0, 10, generator=g), True),
]

SEEDED_OPS = [
    ("dropout", lambda d: F.dropout(webtorch.ones(64, device=d), 0.25, training=True), True),
    ("kaiming_uniform_", lambda d: nn.init.kaiming_uniform_(webtorch.empty(8, 6, device=d)), True),
    ("xavier_normal_", lambda d: nn.init.xavier_normal_(webtorch.empty(8, 6, device=d)), False),
    ("Linear's default init", lambda d: nn.Linear(6, 3, device=d).weight.detach(), True),
]


def _host(t):
    return t.cpu().numpy()


def _assert_devices_agree(cpu, gpu, exact):
    assert cpu.dtype == gpu.dtype and cpu.shape == gpu.shape
    if exact:
        np.testing.assert_array_equal(cpu, gpu)
    else:
        np.testing.assert_allclose(cpu, gpu, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,op,exact", OP_DRAWS, ids=[d[0] for d in OP_DRAWS])
def test_generators_give_one_stream_on_cpu_and_webgpu(name, op, exact):
    if "webgpu" not in DEVICES:
        pytest.fail("no webgpu adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    results = [_host(op(d, webtorch.Generator(d).manual_seed(2024))) for d in ("cpu", "webgpu")]
    _assert_devices_agree(*results, exact)


@pytest.mark.parametrize("name,op,exact", OP_DRAWS + [(n, lambda d, g, f=f: f(d), e) for n, f, e in SEEDED_OPS],
                         ids=[d[0] for d in OP_DRAWS + SEEDED_OPS])
def test_manual_seed_gives_one_stream_on_cpu_and_webgpu(name, op, exact):
    if "webgpu" not in DEVICES:
        pytest.fail("no webgpu adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    results = []
    for d in ("cpu", "webgpu"):
        webtorch.manual_seed(7)
        op(d, None)  # a second draw continues the stream
        results.append(_host(op(d, None)))
    _assert_devices_agree(*results, exact)


def test_cpu_state_restores_on_webgpu():
    """get_state bytes are one format: a state saved on cpu continues the same numbers on webgpu."""
    if "webgpu" not in DEVICES:
        pytest.fail("no webgpu adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    g = webtorch.Generator("cpu").manual_seed(5)
    webtorch.rand(10, generator=g)
    state = g.get_state()
    a = webtorch.rand(10, generator=g)
    b = webtorch.rand(10, generator=webtorch.Generator("cpu").set_state(state))
    c = webtorch.rand(10, device="webgpu", generator=webtorch.Generator("webgpu").set_state(state))
    np.testing.assert_array_equal(_host(a), _host(b))
    np.testing.assert_array_equal(_host(a), _host(c))
    webtorch.set_rng_state(state)
    np.testing.assert_array_equal(_host(a), _host(webtorch.rand(10)))


@pytest.mark.parametrize("device_type", ["cpu", "webgpu"])
def test_fork_rng_restores_the_default_generators(device_type):
    if device_type not in DEVICES:
        pytest.fail("no webgpu adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    webtorch.manual_seed(11)
    expected = _host(webtorch.rand(6, device=device_type))
    webtorch.manual_seed(11)
    with webtorch.random.fork_rng(device_type=device_type):
        inside = _host(webtorch.rand(6, device=device_type))
        webtorch.randn(100, device=device_type)
    np.testing.assert_array_equal(inside, expected)
    np.testing.assert_array_equal(_host(webtorch.rand(6, device=device_type)), expected)
    with webtorch.random.fork_rng(enabled=False):
        webtorch.rand(6, device=device_type)
    assert not np.array_equal(_host(webtorch.rand(6, device=device_type)), expected)
