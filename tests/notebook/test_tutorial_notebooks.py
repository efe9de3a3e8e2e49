"""The tutorial notebooks (examples/notebooks/*.ipynb): valid nbformat 4.5 without outputs, every code cell
runs in order on each device with the notebook's own checks passing, and the key numbers of each notebook
equal PyTorch 2.13's for the same weights and inputs (the browser run is in tests/browser/)."""
import linecache
import sys

import numpy as np
import pytest
import torch

import webtorch
from tutorial_notebooks import NOTEBOOKS, code, prepare_workdir, read

NAMES = ["01_neural_networks", "02_autograd", "03_modules_r_style", "04_modules_lua_style",
         "05_digits_on_webgpu", "06_from_pytorch"]


def _np(t):
    return t.detach().cpu().numpy()


def _t(t):
    return torch.from_numpy(_np(t).copy())


def close(ours, theirs, tol=1e-5):
    np.testing.assert_allclose(_np(ours), theirs.detach().numpy(), rtol=1e-4, atol=tol)


def run_notebook(name, device, tmp_path, monkeypatch):
    """Exec the notebook's code cells in one namespace, in a working folder laid out as the hosts do."""
    path = next(p for p in NOTEBOOKS if p.stem == name)
    work = prepare_workdir(tmp_path / "work")
    monkeypatch.chdir(work)
    monkeypatch.syspath_prepend(str(work))
    monkeypatch.delitem(sys.modules, "digits_data", raising=False)
    source, filename = code(path), f"<notebook {path.name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # tracebacks show cells
    # each notebook trains on torch.accelerator when one is reported, as in the page (default device "cpu")
    monkeypatch.setitem(webtorch.accelerator._choice, "webgpu", device == "webgpu")
    previous = webtorch.get_default_device()
    try:
        ns = {"__name__": "__main__"}
        exec(compile(source, filename, "exec"), ns)
        assert webtorch.get_default_device().type == device
    finally:
        webtorch.set_default_device(previous)
        linecache.cache.pop(filename, None)
    return ns


def test_notebooks_are_valid_clean_nbformat_4_5():
    assert [p.stem for p in NOTEBOOKS] == NAMES
    for p in NOTEBOOKS:
        nb = read(p)
        assert (nb.nbformat, nb.nbformat_minor) == (4, 5), p.name
        assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), p.name
        assert sum(c.cell_type == "markdown" for c in nb.cells) >= 5, p.name
        for c in nb.cells:
            if c.cell_type == "code":
                assert c.outputs == [] and c.execution_count is None, f"{p.name}: commit notebooks without outputs"
        assert "import webtorch as torch" in code(p), p.name


# ---- PyTorch 2.13 on the same weights and inputs -----------------------------------------------------------

def check_neural_networks(ns):
    net, image, target = ns["net"], ns["image"], ns["target"]
    ref = torch.nn.Module()
    ref.conv1, ref.conv2 = torch.nn.Conv2d(1, 6, 5), torch.nn.Conv2d(6, 16, 5)
    ref.fc1, ref.fc2, ref.fc3 = torch.nn.Linear(400, 120), torch.nn.Linear(120, 84), torch.nn.Linear(84, 10)
    ref.load_state_dict({k: _t(v) for k, v in net.state_dict().items()})
    F = torch.nn.functional
    x = F.max_pool2d(F.relu(ref.conv1(_t(image))), 2)
    x = torch.flatten(F.max_pool2d(F.relu(ref.conv2(x)), 2), 1)
    out = ref.fc3(F.relu(ref.fc2(F.relu(ref.fc1(x)))))
    loss = F.mse_loss(out, _t(target))
    loss.backward()
    net.zero_grad()
    our_loss = ns["criterion"](net(image), target)
    our_loss.backward()
    close(our_loss, loss)
    for (name, p), q in zip(net.named_parameters(), ref.parameters()):
        close(p.grad, q.grad, tol=1e-6)
    chain, node = [], loss.grad_fn
    while node is not None:
        chain.append(type(node).__name__)
        inputs = [f for f, _ in node.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
        node = inputs[0] if inputs else None
    assert ns["chain"] == chain


def check_autograd(ns):
    f = lambda x: torch.stack([x[0] * x[1], x[1] * x[2], torch.sin(x[2])])  # noqa: E731
    close(ns["J_autograd"], torch.autograd.functional.jacobian(f, torch.tensor([0.5, -1.0, 2.0])), tol=1e-6)
    x = _t(ns["x"]).requires_grad_(True)
    torch.nn.functional.softplus(x).sum().backward()
    close(ns["s"], torch.nn.functional.softplus(x))
    close(ns["x"].grad, x.grad, tol=1e-6)


def check_modules_r_style(ns):
    net, x = ns["net"], ns["x_data"]
    sd = {k: _t(v) for k, v in net.state_dict().items()}
    ref = torch.relu(_t(x) @ sd["hidden.w"] + sd["hidden.b"]) @ sd["out.weight"].T + sd["out.bias"]
    close(net(x), ref)
    close(webtorch.nn.functional.mse_loss(net(x), ns["y_data"]), torch.nn.functional.mse_loss(ref, _t(ns["y_data"])))


def check_modules_lua_style(ns):
    mlp, x, labels = ns["mlp"], ns["x"], ns["labels"]
    l1, l3 = mlp.get(1), mlp.get(3)
    w1, b1, w3, b3 = (_t(t).requires_grad_(True) for t in (l1.weight, l1.bias, l3.weight, l3.bias))
    tx = _t(x).requires_grad_(True)
    logp = torch.log_softmax(torch.tanh(tx @ w1.T + b1) @ w3.T + b3, dim=1)
    loss = torch.nn.functional.nll_loss(logp, _t(labels) - 1)
    loss.backward()
    crit = ns["criterion"]
    ns["grad_params"].zero_()
    out = mlp.forward(x)
    assert abs(crit.forward(out, labels) - loss.item()) < 1e-5
    close(out, logp)
    close(mlp.backward(x, crit.backward(out, labels)), tx.grad, tol=1e-6)
    for ours, theirs in ((l1.gradWeight, w1), (l1.gradBias, b1), (l3.gradWeight, w3), (l3.gradBias, b3)):
        close(ours, theirs.grad, tol=1e-6)


def _torch_mlp(state_dict):
    """PyTorch's DigitsMLP (fc1 -> ReLU -> fc2) holding a state_dict torch.load read."""
    fc1_w = state_dict["fc1.weight"]
    m = torch.nn.Module()
    m.fc1 = torch.nn.Linear(fc1_w.shape[1], fc1_w.shape[0])
    m.fc2 = torch.nn.Linear(fc1_w.shape[0], 10)
    m.load_state_dict(state_dict)
    return lambda x: m.fc2(torch.relu(m.fc1(x)))


def check_digits(ns):
    state = torch.load("digits_mlp.pt", weights_only=True)  # the file the notebook saved, read by PyTorch
    assert list(state) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    with webtorch.no_grad():
        close(ns["model"](ns["x_test"]), _torch_mlp(state)(_t(ns["x_test"])), tol=1e-4)


def check_from_pytorch(ns):
    x = _t(ns["x_test"])
    with torch.no_grad():
        close(ns["logits_from_pytorch"], _torch_mlp(torch.load("assets/digits_mlp_pytorch.pt"))(x), tol=1e-4)
        finetuned = _torch_mlp(torch.load("digits_mlp_finetuned.pt", weights_only=True))
        with webtorch.no_grad():
            close(ns["model"](ns["x_test"]), finetuned(x), tol=1e-4)
    assert ns["before"][5:] == [0.0] * 5 and min(ns["after"]) > 0.7


CHECKS = dict(zip(NAMES, [check_neural_networks, check_autograd, check_modules_r_style, check_modules_lua_style,
                          check_digits, check_from_pytorch]))


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_and_matches_torch(name, device, tmp_path, monkeypatch):
    ns = run_notebook(name, device, tmp_path, monkeypatch)
    CHECKS[name](ns)
