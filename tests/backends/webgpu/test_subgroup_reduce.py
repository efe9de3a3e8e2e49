"""The row reductions (softmax / log_softmax / layer_norm / batch_norm kernels and the generated reductions) in
both variants on one adapter: subgroup operations and the shared-memory tree, each forced in turn. Row lengths
cover every reduction shape of the subgroup variant: rows inside a subgroup (butterfly, no shared memory),
rows over several subgroups (butterfly + shared memory), rows of whole subgroups (subgroupAdd/subgroupMax)."""
import numpy as np
import pytest
import torch

import webtorch
from webtorch.backends import webgpu as wg
from webtorch.backends.webgpu import subgroup_reduce, wgsl_loader

from devices import adapter_kind
from optest import check, rand
from webgpu_variants import row_kernel_variants

DEV = "webgpu"


def _be():
    return wg.get_backend()


def _has_subgroups():
    return "subgroups" in _be().rt.features


def test_adapter_subgroups_are_requested_and_on_by_default():
    # lavapipe (this project's CI adapter) has them: the native runtime must request the feature
    assert _has_subgroups(), _be().rt.description
    assert _be().recorder.features.subgroups


def test_every_row_kernel_variant_compiles_on_naga_both_ways():
    rt = _be().rt
    for name, spec in row_kernel_variants():
        src = wgsl_loader.specialize(name, **spec)
        rt.compile(name, src)
        sg = subgroup_reduce.specialize(src)
        assert sg.startswith(subgroup_reduce.ENABLE) and "subgroupExclusiveAdd" in sg
        rt.compile(name + "_subgroups", sg)


def test_specialize_rejects_a_kernel_without_row_helpers():
    with pytest.raises(KeyError, match="slot"):
        subgroup_reduce.specialize(wgsl_loader.template("matmul_naive"))


@pytest.mark.parametrize("subgroups", [False, True])
def test_softmax_and_layer_norm_every_row_shape(subgroups):
    # RT = 1, 2, 4 (inside any subgroup), 8 .. 128 (butterfly + shared memory), 256 (whole subgroups)
    before = webtorch.webgpu.stats()["host_fallbacks"]
    with subgroup_reduce.forced(_be(), subgroups):
        for rows, length in ((5, 3), (7, 12), (3, 30), (9, 70), (2, 300), (3, 900), (2, 2100)):
            x = rand(rows, length, low=-5, high=5)
            check(lambda m, x: (m.softmax(x, 1), m.log_softmax(x, 1)), x, device=DEV)
            check(lambda m, x, w, b: m.nn.functional.layer_norm(x, (length,), w, b), x, rand(length), rand(length),
                  device=DEV)
        assert webtorch.webgpu.stats()["host_fallbacks"] == before


@pytest.mark.parametrize("subgroups", [False, True])
def test_softmax_inf_rows_both_ways(subgroups):
    ninf = float("-inf")
    xs = np.array([[ninf] * 300, [0.0] * 299 + [ninf], [ninf, 1.0] + [ninf] * 298], np.float32)
    with subgroup_reduce.forced(_be(), subgroups):
        for length in (3, 40, 300):
            x = webtorch.tensor(xs[:, :length], device=DEV)
            for fn in ("softmax", "log_softmax"):
                ours = getattr(x, fn)(1).cpu().numpy()
                ref = getattr(torch.tensor(xs[:, :length]), fn)(1).numpy()
                np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("subgroups,cpu", [(False, False), (True, False), (False, True)])
def test_generated_reductions_every_way(subgroups, cpu):
    # a GPU reduces in a workgroup (shared-memory tree or subgroups), a CPU adapter one output per invocation
    rng = np.random.default_rng(3)
    with adapter_kind(cpu), subgroup_reduce.forced(_be(), subgroups):
        for shape, dim in (((3, 500), 1), ((2, 40000), 1), ((4, 6, 300), (0, 2))):
            xs = rng.standard_normal(shape).astype(np.float32)
            xs.flat[11] = np.nan if shape == (3, 500) else xs.flat[11]
            x, tx = webtorch.tensor(xs, device=DEV), torch.tensor(xs)
            for op in ("sum", "mean", "amax", "amin"):
                np.testing.assert_allclose(getattr(x, op)(dim).cpu().numpy(), getattr(tx, op)(dim).numpy(),
                                           rtol=1e-4, atol=1e-3, equal_nan=True)
            if type(dim) is int:
                np.testing.assert_allclose(x.prod(dim).cpu().numpy(), tx.prod(dim).numpy(), rtol=1e-4,
                                           equal_nan=True)
            xi, ti = (x > 0).int() * 3, (tx > 0).int() * 3
            for op in ("sum", "amax", "amin"):
                assert np.array_equal(getattr(xi, op)(dim).cpu().numpy(), getattr(ti, op)(dim).numpy())
            assert np.array_equal((x > 0).all(dim).cpu().numpy(), (tx > 0).all(dim).numpy())
            assert np.array_equal((x > 0).any(dim).cpu().numpy(), (tx > 0).any(dim).numpy())


def test_subgroup_variant_is_what_runs():
    compiled = []
    be = _be()
    orig = be.planner.pipeline

    def spy(name, source):
        compiled.append(source)
        return orig(name, source)
    be.planner.pipeline = spy
    try:
        with adapter_kind(False), subgroup_reduce.forced(be, True):
            x = webtorch.randn(3, 1000, device=DEV)
            x.softmax(1).sum(1).cpu()
    finally:
        del be.planner.pipeline
    assert sum("subgroupAdd" in s for s in compiled) == 2  # the softmax kernel and the generated row sum


def test_forcing_subgroups_on_an_adapter_without_them_is_a_clear_error():
    be = _be()
    saved = be.rt.features
    be.rt.features = frozenset(saved - {"subgroups"})
    try:
        with pytest.raises(RuntimeError, match="no 'subgroups' feature"):
            with subgroup_reduce.forced(be, True):
                pass
    finally:
        be.rt.features = saved
