"""float32 cumsum on webgpu equals the cpu device's (PyTorch's CPU accumulates a float32 scan in double): the
kernel carries each partial sum as a float-float pair, also across the segments a long row is scanned in."""
import pytest
import torch

import webtorch
from webtorch.backends.webgpu import get_backend

def _ulps(got, want):
    """Largest distance in float32 units in the last place between two float32 torch tensors."""
    g, w = got.view(torch.int32).long(), want.view(torch.int32).long()
    return int((g - w).abs().max())


def test_a_million_tenths_sum_to_a_hundred_thousand():
    c = webtorch.full((1_000_000,), 0.1, device="webgpu").cumsum(0)
    want = torch.full((1_000_000,), 0.1).cumsum(0)
    assert c[-1].item() == want[-1].item() == 100000.0
    assert c[[999, 99_999, 500_000]].tolist() == want[[999, 99_999, 500_000]].tolist()


@pytest.mark.parametrize("loop_trips", [None, 2560])  # 2560: rows scanned in 256-element segments with carries
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_within_one_ulp_of_cpu(loop_trips, reverse):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(3, 4100, generator=g) * 100 + 0.1
    x = x.flip(1) if reverse else x
    with get_backend().limits.forced(loop_trips=loop_trips):
        got = webtorch.tensor(x.numpy(), device="webgpu").cumsum(1)
        got_t = torch.tensor(got.tolist())
    assert _ulps(got_t, x.cumsum(1)) <= 1
    col = webtorch.tensor(x.t().contiguous().numpy(), device="webgpu").cumsum(0)
    assert _ulps(torch.tensor(col.tolist()), x.t().contiguous().cumsum(0)) <= 1


def test_other_scans_and_dtypes_unchanged():
    x = torch.randint(-5, 6, (2, 700))
    w = webtorch.tensor(x.numpy(), device="webgpu")
    assert w.cumsum(1).tolist() == x.cumsum(1).tolist()
    v, i = webtorch.tensor(x.float().numpy(), device="webgpu").cummax(1)
    tv, ti = x.float().cummax(1)
    assert v.tolist() == tv.tolist() and i.tolist() == ti.tolist()
