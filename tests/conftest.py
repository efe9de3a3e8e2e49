"""Shared fixtures: the device list every op/module/optimizer suite is parametrized over."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))

from devices import DEVICES  # noqa: E402


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
