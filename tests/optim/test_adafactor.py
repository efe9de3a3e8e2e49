"""optim.Adafactor against PyTorch 2.13: the same parameters after several steps (matrix, vector and 3-D
parameters; weight decay, maximize, eps, d, beta2_decay), the same state keys, PyTorch's option errors."""
import pytest
import torch

import webtorch

OPTIONS = [{}, {"weight_decay": 0.1, "maximize": True, "lr": 0.5}, {"eps": (1e-30, 1e-3), "d": 2.0,
                                                                    "beta2_decay": -0.5}]


@pytest.mark.parametrize("options", OPTIONS, ids=["defaults", "decay-maximize", "eps-d-beta2"])
def test_steps_match_pytorch(options, device):
    g = torch.Generator().manual_seed(7)
    tp = [torch.nn.Parameter(torch.randn(s, generator=g)) for s in ((5, 4), (3,), (2, 3, 4))]
    wp = [webtorch.nn.Parameter(webtorch.tensor(p.detach().numpy(), device=device)) for p in tp]
    topt, wopt = torch.optim.Adafactor(tp, **options), webtorch.optim.Adafactor(wp, **options)
    for _ in range(4):
        for t, w in zip(tp, wp):
            t.grad = torch.randn(t.shape, generator=g)
            w.grad = webtorch.tensor(t.grad.numpy(), device=device)
        topt.step()
        wopt.step()
    for t, w in zip(tp, wp):
        assert torch.allclose(torch.tensor(w.tolist()), t.detach(), atol=1e-6)
    want, got = topt.state_dict()["state"], wopt.state_dict()["state"]
    assert [list(s) for s in got.values()] == [list(s) for s in want.values()]
    assert got[0]["step"].item() == 4.0 and tuple(got[0]["row_var"].shape) == (5, 1)


@pytest.mark.parametrize("options,message", [
    ({"lr": -1.0}, "Learning rate should be >= 0 but is: -1.0"),
    ({"beta2_decay": 0.5}, "beta2_decay should be <= 0 but is: 0.5"),
    ({"eps": (-1.0, 1e-3)}, "epsilon1 should be >= 0 but is: -1.0"),
    ({"d": 0.5}, "Clipping threshold d should be >= 1 but is: 0.5"),
    ({"weight_decay": -0.1}, "weight_decay should be >= 0 but is: -0.1")])
def test_option_errors(options, message):
    with pytest.raises(ValueError, match=message):
        webtorch.optim.Adafactor([webtorch.nn.Parameter(webtorch.ones(2))], **options)
