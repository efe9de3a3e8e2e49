"""linalg det / solve / inv on webgpu in Chromium (Tint, SwiftShader, Pyodide without NumPy): every mode of
linalg_lu and linalg_lu_small compiles and binds (B is unused by det and inv), matches PyTorch, raises PyTorch's
singular error, and takes no host fallback."""
import json

import numpy as np
import pytest
import torch


@pytest.mark.parametrize("n", [5, 20])  # linalg_lu_small.wgsl, then linalg_lu.wgsl (n > SMALL_N)
def test_lu_modes_match_torch_in_the_browser(webtorch_browser, n):
    rng = np.random.default_rng(0)
    a = (np.eye(n) + rng.uniform(-0.3, 0.3, (2, n, n)) / n)[:, np.roll(np.arange(n), 2)].astype(np.float32)
    b = rng.standard_normal((2, n, 3)).astype(np.float32)
    ta, tb = torch.tensor(a), torch.tensor(b)
    singular = np.stack([np.eye(n), np.eye(n)]).astype(np.float32)
    singular[1, 1] = singular[1, 0]  # rows 0 and 1 equal: U[1, 1] is zero
    r = webtorch_browser.run_source(
        "import json\n"
        "import webtorch as torch\n"
        f"a = torch.tensor({a.tolist()}, device='webgpu')\n"
        f"b = torch.tensor({b.tolist()}, device='webgpu')\n"
        "print(json.dumps([torch.linalg.det(a).tolist(), torch.linalg.solve(a, b).tolist(),\n"
        "                  torch.linalg.inv(a).tolist()]))\n"
        "try:\n"
        f"    torch.linalg.inv(torch.tensor({singular.tolist()}, device='webgpu'))\n"
        "except torch.linalg.LinAlgError as e:\n"
        "    print(e)\n"
        "print(torch.webgpu.stats()['host_fallbacks'])\n")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    lines = r.stdout.splitlines()[-3:]
    det, x, inv = json.loads(lines[0])
    np.testing.assert_allclose(det, torch.linalg.det(ta).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x, torch.linalg.solve(ta, tb).numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(inv, torch.linalg.inv(ta).numpy(), rtol=1e-4, atol=1e-5)
    assert lines[1] == ("linalg.inv: (Batch element 1): The diagonal element 2 is zero, the inversion could not "
                        "be completed because the input matrix is singular.")
    assert lines[2] == "0"
