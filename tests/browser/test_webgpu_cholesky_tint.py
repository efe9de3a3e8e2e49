"""linalg cholesky / solve_triangular and MultivariateNormal on webgpu in Chromium (Tint, SwiftShader, Pyodide
without NumPy): linalg_cholesky(_small) and linalg_trsm compile and bind, match PyTorch, give PyTorch's
not-positive-definite error, and take no host fallback (which would fail there: no NumPy)."""
import json

import numpy as np
import pytest
import torch


@pytest.mark.parametrize("n", [5, 20])  # linalg_cholesky_small.wgsl, then linalg_cholesky.wgsl (n > SMALL_N)
def test_linalg_cholesky_trsm_mvn_in_the_browser(webtorch_browser, n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, n, n))
    a = (x @ np.swapaxes(x, -1, -2) / n + np.eye(n)).astype(np.float32)
    b = rng.standard_normal((2, n, 3)).astype(np.float32)
    v = rng.standard_normal((4, 2, n)).astype(np.float32)
    bad = np.stack([np.eye(n), -np.eye(n)]).astype(np.float32)
    r = webtorch_browser.run_source(
        "import json\n"
        "import webtorch as torch\n"
        f"a = torch.tensor({a.tolist()}, device='webgpu')\n"
        f"b = torch.tensor({b.tolist()}, device='webgpu')\n"
        f"v = torch.tensor({v.tolist()}, device='webgpu')\n"
        "d = torch.distributions.MultivariateNormal(torch.zeros(2, " + str(n) + ", device='webgpu'), a)\n"
        "print(json.dumps([torch.linalg.cholesky(a, upper=True).tolist(),\n"
        "                  torch.linalg.solve_triangular(a, b, upper=False).tolist(),\n"
        "                  torch.linalg.solve_triangular(a, b.mT, upper=True, left=False).tolist(),\n"
        "                  d.log_prob(v).tolist(), list(d.rsample((3,)).shape)]))\n"
        "try:\n"
        f"    torch.linalg.cholesky(torch.tensor({bad.tolist()}, device='webgpu'))\n"
        "except torch.linalg.LinAlgError as e:\n"
        "    print(e)\n"
        "print(torch.webgpu.stats()['host_fallbacks'])\n")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    lines = r.stdout.splitlines()[-3:]
    up, x_left, x_right, logp, shape = json.loads(lines[0])
    ta, tb = torch.tensor(a), torch.tensor(b)
    np.testing.assert_allclose(up, torch.linalg.cholesky(ta, upper=True).numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x_left, torch.linalg.solve_triangular(ta, tb, upper=False).numpy(), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(x_right, torch.linalg.solve_triangular(ta, tb.mT, upper=True, left=False).numpy(),
                               rtol=1e-4, atol=1e-5)
    ref = torch.distributions.MultivariateNormal(torch.zeros(2, n), ta).log_prob(torch.tensor(v))
    np.testing.assert_allclose(logp, ref.numpy(), rtol=1e-4, atol=1e-4)
    assert shape == [3, 2, n]
    assert lines[1] == ("linalg.cholesky: (Batch element 1): The factorization could not be completed because the "
                        "input is not positive-definite (the leading minor of order 1 is not positive-definite).")
    assert lines[2] == "0"
