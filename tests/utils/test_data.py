"""utils.data against torch.utils.data: the same batches in the same order, the same errors."""
import warnings
from collections import namedtuple

import numpy as np
import pytest
import torch

import webtorch
from webtorch.utils import data as wdata
from torch.utils import data as tdata

from devices import DEVICES


def _as_list(x):
    if isinstance(x, (webtorch.Tensor, torch.Tensor)):
        return (str(x.dtype), x.tolist())
    if isinstance(x, dict):
        return {k: _as_list(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_as_list(v) for v in x]
    return x


def _both(make):
    return make(webtorch, wdata), make(torch, tdata)


@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (3, False), (3, True), (10, False), (None, False)])
def test_tensor_dataset_batches(batch_size, drop_last):
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10)

    def make(lib, data):
        ds = data.TensorDataset(lib.tensor(x), lib.tensor(y))
        return data.DataLoader(ds, batch_size=batch_size, drop_last=drop_last)
    ours, ref = _both(make)
    assert len(ours) == len(ref)
    assert [_as_list(b) for b in ours] == [_as_list(b) for b in ref]


def test_default_collate_structures():
    Point = namedtuple("Point", "a b")
    samples = [{"x": [1.5, 2], "p": Point(1, True), "s": "hi", "n": np.float32(3)} for _ in range(3)]
    ours = wdata.default_collate(samples)
    ref = tdata.default_collate(samples)
    assert _as_list(ours["x"]) == _as_list(ref["x"])
    assert _as_list(list(ours["p"])) == _as_list(list(ref["p"]))
    assert type(ours["p"]).__name__ == "Point"
    assert ours["s"] == ref["s"]
    assert _as_list(ours["n"]) == _as_list(ref["n"])


def test_collate_unequal_lists_error():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        wdata.default_collate([[1, 2], [1]])


def test_shuffle_is_a_permutation_and_reproducible():
    ds = wdata.TensorDataset(webtorch.arange(50))
    g1 = webtorch.Generator().manual_seed(3)
    g2 = webtorch.Generator().manual_seed(3)
    a = [b[0].tolist() for b in wdata.DataLoader(ds, batch_size=7, shuffle=True, generator=g1)]
    b = [b[0].tolist() for b in wdata.DataLoader(ds, batch_size=7, shuffle=True, generator=g2)]
    assert a == b
    flat = sorted(v for batch in a for v in batch)
    assert flat == list(range(50)) and [v for batch in a for v in batch] != list(range(50))


def test_random_split_fractions_and_lengths():
    ds = wdata.TensorDataset(webtorch.arange(10))
    parts = wdata.random_split(ds, [0.5, 0.3, 0.2], generator=webtorch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [len(p) for p in tdata.random_split(range(10), [0.5, 0.3, 0.2])]
    seen = sorted(int(p[i][0]) for p in parts for i in range(len(p)))
    assert seen == list(range(10))
    with pytest.raises(ValueError, match="Sum of input lengths"):
        wdata.random_split(ds, [3, 3])


def test_subset_concat():
    def make(lib, data):
        a = data.TensorDataset(lib.arange(5))
        b = data.TensorDataset(lib.arange(10, 13))
        cat = data.ConcatDataset([a, b])
        sub = data.Subset(cat, [0, 6, 7, -1])
        return [_as_list(sub[i]) for i in range(len(sub))], cat.cumulative_sizes, _as_list(cat[-2])
    ours, ref = _both(make)
    assert ours == ref


def test_samplers_and_batch_sampler():
    bs = wdata.BatchSampler(wdata.SequentialSampler(range(10)), batch_size=4, drop_last=False)
    assert list(bs) == list(tdata.BatchSampler(tdata.SequentialSampler(range(10)), 4, False))
    assert len(bs) == 3
    rs = wdata.RandomSampler(range(10), replacement=True, num_samples=40,
                             generator=webtorch.Generator().manual_seed(1))
    vals = list(rs)
    assert len(vals) == 40 and all(0 <= v < 10 for v in vals)
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        wdata.BatchSampler(range(3), 0, False)


def test_weighted_sampler_never_picks_zero_weight():
    s = wdata.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], num_samples=50,
                                    generator=webtorch.Generator().manual_seed(0))
    vals = list(s)
    assert len(vals) == 50 and set(vals) <= {1, 3}


def test_iterable_dataset_batches():
    class Count(wdata.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    class TCount(tdata.IterableDataset):
        def __iter__(self):
            return iter(range(7))
    ours = [_as_list(b) for b in wdata.DataLoader(Count(), batch_size=3)]
    ref = [_as_list(b) for b in tdata.DataLoader(TCount(), batch_size=3)]
    assert ours == ref
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        wdata.DataLoader(Count(), shuffle=True)


def test_batches_are_lists_as_pytorch_collates_them():
    def make(lib, data):
        return next(iter(data.DataLoader(data.TensorDataset(lib.arange(6), lib.arange(6) * 2), batch_size=4)))
    ours, ref = _both(make)
    assert type(ours) is type(ref) is list
    assert _as_list(ours) == _as_list(ref)


def test_subset_batches_gather_through_the_subset(device):
    ds = wdata.TensorDataset(webtorch.arange(10, device=device), webtorch.arange(10, device=device) * 10)
    sub = wdata.Subset(ds, [9, 3, 5, 1])
    assert [_as_list(b) for b in wdata.DataLoader(sub, batch_size=3)] == \
        [_as_list([webtorch.tensor([9, 3, 5]), webtorch.tensor([90, 30, 50])]),
         _as_list([webtorch.tensor([1]), webtorch.tensor([10])])]
    assert sub.__getitems__([0, 2]) == [ds[9], ds[5]] or _as_list(sub.__getitems__([0, 2])) == _as_list([ds[9], ds[5]])


def test_tensor_dataset_batch_is_one_gather_per_tensor_on_webgpu():
    from webgpu_counts import counted
    if "webgpu" not in DEVICES:
        pytest.fail("needs the webgpu device (WEBTORCH_REQUIRE_WEBGPU=1 makes a missing adapter an error)")
    x = webtorch.randn(256, 12, device="webgpu")
    y = webtorch.randint(0, 10, (256,), device="webgpu")
    dl = wdata.DataLoader(wdata.TensorDataset(x, y), batch_size=64, shuffle=True,
                          generator=webtorch.Generator().manual_seed(0))

    def all_batches():
        return [(xb.sum(), yb.sum()) for xb, yb in dl]
    sums, cost = counted(all_batches)
    assert len(sums) == 4
    # per batch of 64: a gather per tensor and the sums' reductions (a few kernels), not a copy per sample
    assert cost["dispatches"] <= 4 * 8, cost
    order = [i for b in wdata.DataLoader(wdata.TensorDataset(webtorch.arange(256)), batch_size=64, shuffle=True,
                                         generator=webtorch.Generator().manual_seed(0)) for i in b[0].tolist()]
    assert sum(s.item() for s, _ in sums) == pytest.approx(x[order].sum().item(), rel=1e-4)


def test_shuffle_works_with_default_device_webgpu():
    if "webgpu" not in DEVICES:
        pytest.fail("needs the webgpu device")
    prev = webtorch.get_default_device()
    webtorch.set_default_device("webgpu")
    try:
        webtorch.manual_seed(0)
        ds = wdata.TensorDataset(webtorch.arange(20))
        first = [b[0].tolist() for b in wdata.DataLoader(ds, batch_size=8, shuffle=True)]
        webtorch.manual_seed(0)
        again = [b[0].tolist() for b in wdata.DataLoader(ds, batch_size=8, shuffle=True)]
        assert first == again and sorted(sum(first, [])) == list(range(20))
        g = webtorch.Generator().manual_seed(1)
        a, b = wdata.random_split(ds, [15, 5], generator=g)
        assert sorted(a.indices + b.indices) == list(range(20))
        assert len(list(wdata.WeightedRandomSampler([0.0, 1.0, 2.0], 10))) == 10
        assert sorted(wdata.SubsetRandomSampler([4, 5, 6], generator=webtorch.Generator())) == [4, 5, 6]
        assert sum(1 for _ in wdata.RandomSampler(ds, replacement=True, num_samples=40)) == 40
    finally:
        webtorch.set_default_device(prev)


def test_generator_of_another_device_is_refused_as_pytorch_refuses_it_for_cuda():
    if "webgpu" not in DEVICES:
        pytest.fail("needs the webgpu device")
    for op in (lambda g: webtorch.randperm(4, generator=g, device="webgpu"),
               lambda g: webtorch.randint(0, 5, (3,), generator=g, device="webgpu"),
               lambda g: webtorch.rand(3, generator=g, device="webgpu")):
        with pytest.raises(RuntimeError, match="Expected a 'webgpu' device type for generator but found 'cpu'"):
            op(webtorch.Generator())
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'webgpu'"):
        webtorch.randn(2, generator=webtorch.Generator("webgpu"))
    assert webtorch.randperm(4, generator=webtorch.Generator("webgpu"), device="webgpu").device.type == "webgpu"


def test_num_workers_warns_and_runs_in_process():
    ds = wdata.TensorDataset(webtorch.arange(4))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        dl = wdata.DataLoader(ds, batch_size=2, num_workers=2)
    assert any("num_workers" in str(x.message) for x in w)
    assert [b[0].tolist() for b in dl] == [[0, 1], [2, 3]]


def test_mutually_exclusive_options():
    ds = wdata.TensorDataset(webtorch.arange(4))
    with pytest.raises(ValueError, match="mutually exclusive"):
        wdata.DataLoader(ds, sampler=wdata.SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        wdata.DataLoader(ds, batch_size=2, batch_sampler=wdata.BatchSampler(range(4), 2, False))
