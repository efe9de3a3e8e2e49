"""The webgpu kernels of the optimizer updates, indexing, scans and sorting: they compile, run with no host
fallback, stay lazy (one submit per flush) and an optimizer step is a bounded number of dispatches."""
import math

import numpy as np
import pytest

import webtorch
import webtorch.nn as nn
from webtorch.backends import webgpu as wg

from devices import adapter_kind
from webgpu_counts import DEFAULT, counted

FAMILY_SHADERS = ("optim_multi_tensor", "index_take", "index_scatter", "index_nonzero", "scan_cumulative",
                  "sort_bitonic", "sort_searchsorted")


def _delta(fn):
    return counted(fn, DEFAULT + ("ops",))


def test_family_shaders_compile_with_their_specializations():
    from webtorch.backends.webgpu import optim_kernels, wgsl_loader
    rt = wg.get_backend().rt
    names = set(wgsl_loader.names())
    assert set(FAMILY_SHADERS) <= names
    for name in FAMILY_SHADERS:
        rt.compile(name, wgsl_loader.template(name))
    for rule in range(8):
        for nslot in (1, 3):
            for has in ((True, False, False), (True, True, True), (True, True, True, True)):
                for vec in (True, False):
                    rt.compile("optim", optim_kernels.optim_source(rule, nslot, has, vec))
    for nslot in (1, 3):
        src = wgsl_loader.specialize("optim_step_count", NSLOT=f"{nslot}u")
        rt.compile("count", optim_kernels.expand_slots(src, nslot, {}))
    for t, fl in (("f32", True), ("i32", False), ("u32", False)):
        for op in range(5):
            for seq in (True, False):
                rt.compile("scan", wgsl_loader.specialize("scan_cumulative", T=t, FLOAT=fl, OP=f"{op}u", SEQUENTIAL=seq))
        for b in (True, False):
            rt.compile("sort", wgsl_loader.specialize("sort_bitonic", T=t, FLOAT=fl, DESCENDING=b))
            rt.compile("search", wgsl_loader.specialize("sort_searchsorted", T=t, RIGHT=b))
            rt.compile("take", wgsl_loader.specialize("index_take", T=t))
    for mode in range(5):
        for kind in range(3):
            rt.compile("scatter", wgsl_loader.specialize("index_scatter", MODE=f"{mode}u", KIND=f"{kind}u", SCALAR=True))


def test_expand_slots_numbers_bindings_and_drops_absent_state():
    from webtorch.backends.webgpu import optim_kernels
    src = optim_kernels.optim_source(1, 3, (True, True, False))
    assert "c_s0" not in src and "b_s2" in src and "slot == 2u" in src
    bindings = [int(b) for b in __import__("re").findall(r"@binding\((\d+)\)", src)]
    assert bindings == list(range(3 * 4 + 1))  # 4 storage buffers per slot, then the uniform
    src = optim_kernels.optim_source(1, 2, (True, True, False, True))  # Adam capturable: + the step tensor
    assert "step_s1" in src and "c_s0" not in src
    assert [int(b) for b in __import__("re").findall(r"@binding\((\d+)\)", src)] == list(range(2 * 5 + 1))


def _mlp():
    webtorch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))


@pytest.mark.parametrize("make_opt, per_tensor", [
    (lambda ps: webtorch.optim.Adam(ps, lr=1e-2), 4),
    (lambda ps: webtorch.optim.AdamW(ps, lr=1e-2, amsgrad=True), 5),
    (lambda ps: webtorch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True), 3),
    (lambda ps: webtorch.optim.RMSprop(ps, lr=1e-2, centered=True, momentum=0.5), 5),
])
@pytest.mark.parametrize("cpu", [False, True])
def test_optimizer_step_is_a_bounded_number_of_dispatches(make_opt, per_tensor, cpu):
    with adapter_kind(cpu):
        _bounded_dispatches(make_opt, per_tensor, 1 if cpu else min(16, wg.get_backend().planner.max_buffers //
                                                                    per_tensor))


def _bounded_dispatches(make_opt, per_tensor, slots):
    model = _mlp().to("webgpu")
    params = list(model.parameters())
    assert len(params) == 6
    opt = make_opt(params)
    x = webtorch.randn(32, 8, device="webgpu")
    y = webtorch.randint(0, 3, (32,), device="webgpu")

    def train_step():
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    train_step()  # first step creates the state
    _, full = _delta(train_step)
    assert full["host_fallbacks"] == 0, full["ops"]
    assert full["submits"] == 1
    ref = [p.detach().cpu().numpy().copy() for p in params]
    _, step_only = _delta(opt.step)
    assert step_only == {"dispatches": math.ceil(6 / slots), "submits": 1, "host_fallbacks": 0, "ops": {}}
    assert any(not np.array_equal(r, p.detach().cpu().numpy()) for r, p in zip(ref, params))


def test_adam_matches_torch_over_steps_with_a_non_contiguous_parameter():
    import torch
    w0 = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    ours = webtorch.tensor(w0, device="webgpu").t().requires_grad_()  # a transposed (strided) leaf
    ref = torch.tensor(w0).t().requires_grad_()
    opt_o = webtorch.optim.Adam([ours], lr=0.1, weight_decay=0.1)
    opt_r = torch.optim.Adam([ref], lr=0.1, weight_decay=0.1)
    for step in range(5):
        g = np.random.default_rng(step).standard_normal((4, 5)).astype(np.float32)
        ours.grad = webtorch.tensor(g, device="webgpu")
        ref.grad = torch.tensor(g)
        _, d = _delta(opt_o.step)
        opt_r.step()
        assert d["host_fallbacks"] == 0
    np.testing.assert_allclose(ours.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,kw", [("Adam", {"amsgrad": True}), ("SGD", {"momentum": 0.9}), ("Adamax", {}),
                                     ("RMSprop", {"centered": True, "momentum": 0.5})])
def test_parameters_sharing_one_storage_at_any_offset(name, kw):
    # views of one flat storage (as legacy nn's getParameters makes them): offsets that are multiples of 4
    # take the vec4 kernel, whose last vec4 must leave the neighbours' elements alone; offset 31 takes the
    # one-element kernel
    import torch
    flat0 = np.random.default_rng(1).standard_normal(41).astype(np.float32)
    spans = ((0, 10), (12, 30), (31, 41))
    flat_o = webtorch.tensor(flat0, device="webgpu")
    flat_r = torch.tensor(flat0)
    ours = [flat_o[a:b].requires_grad_() for a, b in spans]
    refs = [flat_r[a:b].requires_grad_() for a, b in spans]
    opt_o = getattr(webtorch.optim, name)(ours, lr=0.05, **kw)
    opt_r = getattr(torch.optim, name)(refs, lr=0.05, **kw)
    for step in range(3):
        for k, (o, r) in enumerate(zip(ours, refs)):
            g = np.random.default_rng(10 * step + k).standard_normal(o.shape).astype(np.float32)
            o.grad, r.grad = webtorch.tensor(g, device="webgpu"), torch.tensor(g)
        opt_o.step()
        opt_r.step()
    np.testing.assert_allclose(flat_o.cpu().numpy(), flat_r.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert flat_o[10:12].cpu().numpy().tolist() == flat0[10:12].tolist()  # between the spans: untouched


def test_indexing_scans_and_sorts_run_without_host_fallback_forward_and_backward():
    rng = np.random.default_rng(0)
    x = webtorch.tensor(rng.standard_normal((6, 7)).astype(np.float32), device="webgpu", requires_grad=True)
    idx = webtorch.tensor(rng.integers(0, 6, (3, 7)), device="webgpu")

    def work():
        a = x.gather(0, idx).sum()
        b = x[webtorch.tensor([0, -1, 2], device="webgpu")].pow(2).sum()
        c = x.cumsum(1).sum() + x.cummax(0).values.sum() + x.flip(1)[0].sum()
        d = x.sort(1, descending=True).values[:, 0].sum() + x.topk(3, dim=1).values.sum()
        e = webtorch.zeros(6, 7, device="webgpu").scatter_add(0, idx, x[:3]).sum()
        loss = a + b + c + d + e
        loss.backward()
        nz = webtorch.nonzero(x > 0)
        pos = webtorch.searchsorted(webtorch.arange(0.0, 10.0, device="webgpu"),
                                    webtorch.tensor([0.5, 3.0, 11.0], device="webgpu"))
        return loss, nz, pos

    (loss, nz, pos), d = _delta(work)
    assert d["host_fallbacks"] == 0, d["ops"]
    xn = x.detach().cpu().numpy()
    np.testing.assert_array_equal(nz.cpu().numpy(), np.argwhere(xn > 0))
    assert pos.tolist() == [1, 3, 10]
    assert x.grad is not None and np.isfinite(x.grad.cpu().numpy()).all()


def test_primitives_stay_lazy_until_read():
    x = webtorch.rand(4, 300, device="webgpu")
    idx = webtorch.tensor([[0, 1, 2]] * 4, device="webgpu")
    _, d = _delta(lambda: (x.cumsum(1), x.sort(1), x.flip(0)))
    assert d["submits"] == 1 and d["host_fallbacks"] == 0
    webtorch.webgpu.synchronize()
    flushes = webtorch.webgpu.stats()["flushes"]
    y = x.cumsum(1)
    v, i = x.sort(1)
    z = x.flip(0)
    assert webtorch.webgpu.stats()["flushes"] == flushes  # nothing ran yet
    xn = x.cpu().numpy()
    np.testing.assert_allclose(y.cpu().numpy(), np.cumsum(xn, 1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(i.cpu().numpy(), np.argsort(xn, 1, kind="stable"))
    np.testing.assert_array_equal(z.cpu().numpy(), xn[::-1])
    # gather needs its index range checked first: one flush, then it is recorded like the rest
    g = x.gather(1, idx)
    np.testing.assert_array_equal(g.cpu().numpy(), xn[:, :3])


def test_long_rows_scan_in_chunks_and_index_errors_raise_before_writing():
    x = webtorch.tensor(np.arange(1000, dtype=np.float32) % 7 - 3, device="webgpu")
    np.testing.assert_allclose(x.cumsum(0).cpu().numpy(), np.cumsum(np.arange(1000) % 7 - 3.0), rtol=0, atol=1e-3)
    v, i = x.cummin(0)
    ref = np.minimum.accumulate(np.arange(1000) % 7 - 3.0)
    np.testing.assert_array_equal(v.cpu().numpy(), ref)
    import torch
    np.testing.assert_array_equal(i.cpu().numpy(), torch.tensor(np.arange(1000) % 7 - 3.0).cummin(0).indices.numpy())
    assert i.tolist()[-1] == 994  # the latest index on ties
    t = webtorch.zeros(3, device="webgpu")
    with pytest.raises(RuntimeError, match="index 5 is out of bounds"):
        t.scatter_(0, webtorch.tensor([0, 5], device="webgpu"), 1.0)
    assert t.tolist() == [0.0, 0.0, 0.0]
