"""What the webgpu linalg suites (tests/backends/webgpu/test_linalg.py, test_cholesky.py) share: the autouse
``lu_kernel`` fixture (import it into a test module and every test there runs with both LU kernels), the
no-host-fallback check and the input maker."""
import pytest
import torch

import webtorch
from webtorch.backends.webgpu import linalg_kernels

from webgpu_counts import counted

DEV = "webgpu"


@pytest.fixture(autouse=True, params=["invocation_per_matrix", "workgroup_per_matrix"])
def lu_kernel(request, monkeypatch):
    """Every test runs both kernels: linalg_lu_small.wgsl (the default up to SMALL_N) and linalg_lu.wgsl."""
    if request.param == "workgroup_per_matrix":
        monkeypatch.setattr(linalg_kernels, "SMALL_N", 0)
    return request.param


def no_fallback(fn):
    out, n = counted(fn)
    assert n["host_fallbacks"] == 0, n
    return out


def on_device(m, a):
    return m.tensor(a, device=DEV) if m is webtorch else torch.tensor(a)
