"""Assigning through duplicate indices on webgpu: the last duplicate wins, as on PyTorch's CPU when it runs the
writes in order -- not whichever invocation a GPU happens to run last (NVIDIA's H200 picked others). Large index
spaces spread each target's writers over many workgroups."""
import numpy as np
import pytest

import webtorch
from webtorch.backends.webgpu import get_backend

DEV = "webgpu"
N, SLOTS = 200_000, 50


def last_wins(target, flat_idx, vals):
    out = target.copy()
    for i, j in enumerate(flat_idx):
        out[j] = vals[i]
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_index_put_last_duplicate_wins(dtype):
    rng = np.random.default_rng(0)
    idx, vals = rng.integers(0, SLOTS, N), rng.permutation(N).astype(dtype)
    x = webtorch.zeros(SLOTS, dtype=getattr(webtorch, np.dtype(dtype).name), device=DEV)
    x[webtorch.tensor(idx, device=DEV)] = webtorch.tensor(vals, device=DEV)
    np.testing.assert_array_equal(x.cpu().numpy(), last_wins(np.zeros(SLOTS, dtype), idx, vals))


def test_scatter_and_put_last_duplicate_wins():
    rng = np.random.default_rng(1)
    idx, vals = rng.integers(0, SLOTS, (4, N // 4)), rng.standard_normal((4, N // 4)).astype(np.float32)
    x = webtorch.zeros(4, SLOTS, device=DEV).scatter_(1, webtorch.tensor(idx, device=DEV),
                                                      webtorch.tensor(vals, device=DEV))
    want = np.stack([last_wins(np.zeros(SLOTS, np.float32), idx[r], vals[r]) for r in range(4)])
    np.testing.assert_array_equal(x.cpu().numpy(), want)
    flat = rng.integers(0, 4 * SLOTS, N)
    y = webtorch.zeros(4, SLOTS, device=DEV).put_(webtorch.tensor(flat, device=DEV),
                                                   webtorch.tensor(vals.ravel(), device=DEV))
    np.testing.assert_array_equal(y.cpu().numpy().ravel(), last_wins(np.zeros(4 * SLOTS, np.float32), flat, vals.ravel()))


def test_last_duplicate_wins_in_a_target_past_one_binding():
    rng = np.random.default_rng(2)
    idx, vals = rng.integers(0, 4096, 20_000), rng.standard_normal(20_000).astype(np.float32)
    with get_backend().limits.forced(binding=4096):  # the target (16 KiB) in four windows
        x = webtorch.zeros(4096, device=DEV)
        x[webtorch.tensor(idx, device=DEV)] = webtorch.tensor(vals, device=DEV)
        got = x.cpu().numpy()
    np.testing.assert_array_equal(got, last_wins(np.zeros(4096, np.float32), idx, vals))


@pytest.mark.parametrize("target", [4096, 512])
def test_last_duplicate_wins_with_the_index_space_past_one_binding(target):
    """Indices and a strided src past one binding (scattered a run at a time) into a target in several windows or
    one: every run claims in one table before any run resolves, so a duplicate's last writer wins across runs and
    across the workgroups of one run (a run's own writes used to race: right only while the adapter happened to
    run its workgroups in order)."""
    rng = np.random.default_rng(3)
    idx = rng.integers(0, target, 20_000)
    vals = rng.standard_normal((20_000, 2)).astype(np.float32)
    with get_backend().limits.forced(binding=4096):
        x = webtorch.zeros(target, device=DEV)
        x.index_put_((webtorch.tensor(idx, device=DEV),), webtorch.tensor(vals, device=DEV)[:, 1])
        got = x.cpu().numpy()
    np.testing.assert_array_equal(got, last_wins(np.zeros(target, np.float32), idx, vals[:, 1]))
