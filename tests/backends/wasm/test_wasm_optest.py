"""The wasm backend serving "cpu", through the op-test helper (optest.check: forward and backward against PyTorch)
over the primitives it implements: elementwise math and promotion, reductions, matmul, views and copies, indexing,
gather/scatter, unique, nn (softmax, norms, conv, pooling), optimizers. The full cpu suite runs on this backend with
WEBTORCH_CPU_BACKEND=wasm; this file keeps the core of it in every run."""
import pytest
from optest import check, rand, randint

import webtorch
from webtorch import _device

pytestmark = pytest.mark.usefixtures("wasm_cpu")


def test_runs_on_wasm():
    x = webtorch.ones(3)
    assert type(_device.backend_for(x.device)).__name__ == "WasmBackend"


CASES = {
    "arith": (lambda m, a, b: (a + b * 2 - a / (b.abs() + 1)) ** 2, rand(3, 4), rand(4)),
    "unary": (lambda m, a: m.tanh(a).exp() + m.sigmoid(a) * m.erf(a) + m.log1p(a.abs()), rand(2, 5)),
    "int_math": (lambda m, a, b: (a // b, a % b, a * b - 3, a.pow(2)), randint(-9, 9, 4, 3), randint(1, 5, 3)),
    "compare": (lambda m, a, b: (a > b, m.where(a > 0, a, b), m.maximum(a, b), m.clamp(a, -0.5, 0.3)),
                rand(3, 4), rand(3, 4)),
    "reduce": (lambda m, a: (a.sum(), a.sum(0), a.mean(1, keepdim=True), a.amax(0), a.prod(1), a.std(0)),
               rand(4, 6)),
    "arg": (lambda m, a: (a.argmax(), a.argmin(1), a.max(0)), rand(5, 3)),
    "matmul": (lambda m, a, b, c: (a @ b, m.bmm(c, c.transpose(1, 2)), a.t() @ a), rand(7, 5), rand(5, 3),
               rand(2, 4, 6)),
    "views": (lambda m, a: (a.t().contiguous(), a[1:, ::2], a.permute(1, 0).reshape(-1), a.flip(0)), rand(4, 6)),
    "index": (lambda m, a, i: (a[i], a[:, i[:2]], a[i, i]), rand(5, 5), randint(-5, 5, 3)),
    "gather": (lambda m, a, i: (a.gather(1, i), m.zeros(4, 3).scatter_add(1, i, a[:, :2])), rand(4, 3),
               randint(0, 3, 4, 2)),
    "nonzero": (lambda m, a: (m.nonzero(a > 0), m.unique(a, return_counts=True)), randint(-3, 3, 4, 5)),
    "softmax": (lambda m, a: (m.softmax(a, 1), m.log_softmax(a, 0)), rand(3, 5)),
    "layer_norm": (lambda m, a, w, b: m.nn.functional.layer_norm(a, (5,), w, b), rand(3, 5), rand(5), rand(5)),
    "conv": (lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1), rand(2, 3, 6, 6), rand(4, 3, 3, 3)),
    "pool": (lambda m, x: (m.nn.functional.max_pool2d(x, 2), m.nn.functional.avg_pool2d(x, 2)), rand(1, 2, 4, 4)),
    "cross_entropy": (lambda m, x, y: m.nn.functional.cross_entropy(x, y), rand(4, 5), randint(0, 5, 4)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_op(case):
    fn, *args = CASES[case]
    check(fn, *args, device="cpu")


def test_adam_steps_match_torch():
    import numpy as np
    import torch
    w0 = rand(4, 3)
    ws = []
    for m in (webtorch, torch):
        w = m.tensor(w0, requires_grad=True)
        opt = m.optim.Adam([w], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
        ws.append(w.detach().numpy())
    np.testing.assert_allclose(ws[0], ws[1], rtol=1e-5, atol=1e-6)


def test_manual_seed_repeats_the_stream():
    webtorch.manual_seed(3)
    a = webtorch.rand(5).tolist()
    webtorch.manual_seed(3)
    assert webtorch.rand(5).tolist() == a
