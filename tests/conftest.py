"""Shared fixtures: the device list every op/module/optimizer suite is parametrized over.

The helpers of every suite live in tests/support/ and are imported by bare name (``from optest import check``):
this file puts that folder on sys.path. Test files are imported by pytest's importlib mode (pyproject.toml), so
two folders may hold files of the same name (tests/ops/test_conv.py, tests/backends/webgpu/test_conv.py)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from devices import DEVICES  # noqa: E402


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
