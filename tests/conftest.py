"""Shared fixtures: the device list every op/module/optimizer suite is parametrized over, and a random stream of
its own for every test.

The helpers of every suite live in tests/support/ and are imported by bare name (``from optest import check``):
this file puts that folder on sys.path. Test files are imported by pytest's importlib mode (pyproject.toml), so
two folders may hold files of the same name (tests/ops/test_conv.py, tests/backends/webgpu/test_conv.py).

Random streams: a test's draws depend on its node id only, never on which tests ran or were imported before it
(run alone, in its file or in the whole suite, it sees the same numbers). Each test module's import-time tables
(parametrize cases built with optest.rand) are drawn from optest's stream seeded by the module's node id; each
test then runs with optest's stream, the module's own NumPy generators, NumPy's and Python's global streams and
the default generators of torch and webtorch all seeded from the test's node id."""
import hashlib
import os
import random
import sys
from pathlib import Path

# The oracle is PyTorch's CPU build: where the installed torch sees a CUDA GPU (a machine lent for real-GPU runs),
# hide it, or programs that pick "cuda" when torch.cuda.is_available() would be compared with a CUDA machine's run
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

import webtorch  # noqa: E402
import optest  # noqa: E402
from devices import DEVICES  # noqa: E402


def _seed(key):
    """A 32-bit seed from a string: stable across runs and processes (Python's hash() of a str is not)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "little")


def _reseed(gen, seed):
    """Seed a NumPy Generator or RandomState in place, so every module that imported it sees the new stream."""
    if isinstance(gen, np.random.Generator):
        gen.bit_generator.state = type(gen.bit_generator)(seed).state
    else:
        gen.seed(seed)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    if isinstance(collector, pytest.Module):  # collecting it imports it: its tables come from its own stream
        _reseed(optest.RNG, _seed(collector.nodeid))
    return (yield)


@pytest.fixture(autouse=True)
def _own_random_streams(request):
    node = request.node.nodeid
    _reseed(optest.RNG, _seed(node))
    for name, value in vars(request.module).items():
        if isinstance(value, (np.random.Generator, np.random.RandomState)) and value is not optest.RNG:
            _reseed(value, _seed(f"{node}:{name}"))  # a stream of its own, not a copy of optest's
    np.random.seed(_seed(node + ":np.random"))
    random.seed(_seed(node + ":random"))
    torch.manual_seed(_seed(node + ":torch"))
    webtorch.manual_seed(_seed(node + ":webtorch"))


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
