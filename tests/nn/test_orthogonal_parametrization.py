"""nn.utils.parametrizations.orthogonal against PyTorch: every map (matrix_exp, cayley, householder) with and
without trivialization, tall/square/wide and batched weights, the default map by shape, state_dict keys, gradients
of a loss through the parametrized weight, assignment (right_inverse) and the errors."""
import numpy as np
import pytest
import torch

import webtorch
from devices import DEVICES

MAPS = ["matrix_exp", "cayley", "householder"]


def _pair(shape, device, seed=0):
    torch.manual_seed(seed)
    lt = torch.nn.Linear(shape[1], shape[0])
    lw = webtorch.nn.Linear(shape[1], shape[0]).to(device)
    lw.load_state_dict({k: webtorch.tensor(v.numpy()) for k, v in lt.state_dict().items()})
    return lt, lw


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(5, 5), (6, 3), (3, 6)])
@pytest.mark.parametrize("orthogonal_map", MAPS)
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_matches_torch(device, shape, orthogonal_map, use_trivialization):
    lt, lw = _pair(shape, device)
    torch.nn.utils.parametrizations.orthogonal(lt, orthogonal_map=orthogonal_map,
                                               use_trivialization=use_trivialization)
    webtorch.nn.utils.parametrizations.orthogonal(lw, orthogonal_map=orthogonal_map,
                                                  use_trivialization=use_trivialization)
    assert list(lw.state_dict()) == list(lt.state_dict())
    if use_trivialization and shape[0] != shape[1]:
        # the base completes the weight's columns with random ones (webtorch's stream): those must be orthogonal
        # to the rest; then take torch's to compare the values and gradients that depend on them
        base = lw.parametrizations.weight[0].base
        np.testing.assert_allclose(_np(base.mT @ base), np.eye(max(shape)), atol=2e-6)
        k = min(shape)
        np.testing.assert_allclose(_np(base[:, :k]), lt.parametrizations.weight[0].base[:, :k].numpy(), atol=2e-6)
        lw.load_state_dict({k: webtorch.tensor(v.numpy()) for k, v in lt.state_dict().items()})
    for k, v in lt.state_dict().items():
        np.testing.assert_allclose(_np(lw.state_dict()[k]), v.numpy(), atol=2e-6, err_msg=k)
    np.testing.assert_allclose(_np(lw.weight), _np(lt.weight), atol=2e-6)
    q = lw.weight if shape[0] >= shape[1] else lw.weight.mT
    np.testing.assert_allclose(_np(q.mT @ q), np.eye(min(shape)), atol=2e-6)
    # a training step's gradient reaches the original through the map
    x = np.random.default_rng(1).standard_normal((4, shape[1])).astype(np.float32)
    lt(torch.tensor(x)).square().sum().backward()
    lw(webtorch.tensor(x, device=device)).square().sum().backward()
    gt = lt.parametrizations.weight.original.grad
    gw = lw.parametrizations.weight.original.grad
    np.testing.assert_allclose(_np(gw), gt.numpy(), atol=5e-5, rtol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_orthogonal_batched_weight_and_default_maps(device):
    for shape, default in [((4, 4), "matrix_exp"), ((5, 2), "householder"), ((2, 5), "householder")]:
        _, lw = _pair(shape, device)
        webtorch.nn.utils.parametrizations.orthogonal(lw)
        assert lw.parametrizations.weight[0].orthogonal_map == default
    torch.manual_seed(3)
    w = torch.randn(3, 5, 4)
    mt, mw = torch.nn.Module(), webtorch.nn.Module()
    mt.register_buffer("w", w.clone())
    mw.register_buffer("w", webtorch.tensor(w.numpy(), device=device))
    for lib, m in ((torch, mt), (webtorch, mw)):
        lib.nn.utils.parametrizations.orthogonal(m, "w", orthogonal_map="cayley")
    np.testing.assert_allclose(_np(mw.w), mt.w.numpy(), atol=2e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_orthogonal_assignment(device):
    lt, lw = _pair((4, 4), device)
    torch.nn.utils.parametrizations.orthogonal(lt, orthogonal_map="householder", use_trivialization=False)
    webtorch.nn.utils.parametrizations.orthogonal(lw, orthogonal_map="householder", use_trivialization=False)
    q, _ = np.linalg.qr(np.random.default_rng(2).standard_normal((4, 4)))
    q = q.astype(np.float32)
    with torch.no_grad():
        lt.weight = torch.tensor(q)
    with webtorch.no_grad():
        lw.weight = webtorch.tensor(q, device=device)
    np.testing.assert_allclose(_np(lw.parametrizations.weight.original), _np(lt.parametrizations.weight.original),
                               atol=2e-6)
    np.testing.assert_allclose(_np(lw.weight), q, atol=2e-6)
    with pytest.raises(ValueError, match=r"Expected a matrix or batch of matrices of shape"):
        lw.parametrizations.weight[0].right_inverse(webtorch.ones(3, 4, device=device))
    _, lw = _pair((4, 4), device)
    webtorch.nn.utils.parametrizations.orthogonal(lw, use_trivialization=False)
    with pytest.raises(NotImplementedError, match="use_trivialization=False"), webtorch.no_grad():
        lw.weight = webtorch.tensor(q, device=device)


def test_orthogonal_errors_as_torch():
    for lib in (torch, webtorch):
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions"):
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), "bias")
        with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", '
                                             '"householder". Got: qr'):
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), orthogonal_map="qr")
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'w'"):
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), "w")
