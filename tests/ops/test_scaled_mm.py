"""torch.nn.functional.scaled_mm, torch._scaled_mm, scaled_grouped_mm and the ScalingType / SwizzleType enums
against PyTorch 2.13's CPU: TensorWise and RowWise float32 scales over every pair of float8 formats, bias, each
output dtype, the checks' error types and words; scaled_grouped_mm has no CPU kernel in PyTorch and is refused.
(Float8 operands exist on the cpu device only: webgpu refuses the dtype, tests/ops/test_float8.py.)"""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import webtorch
import webtorch.nn.functional as WF

RNG = np.random.default_rng(5)
FORMATS = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]


def _pair(values, name):
    """(webtorch, torch) tensors holding float32 values rounded to the float8 format name (or float32)."""
    return (webtorch.tensor(values.tolist()).to(getattr(webtorch, name)),
            torch.from_numpy(values).to(getattr(torch, name)))


def _close(got, want):
    g, w = np.array(got.to(webtorch.float32).tolist(), np.float32), want.float().numpy()
    # a float32 matmul whose summation order may differ in the last bits (more where terms cancel), then the output
    # dtype's rounding: one unit of the output's precision apart at most
    eps = max(torch.finfo(want.dtype).eps, 2e-6)
    np.testing.assert_allclose(g, w, rtol=eps, atol=1e-4)


@pytest.mark.parametrize("fa,fb", [(a, b) for a in FORMATS for b in FORMATS[:2]])
@pytest.mark.parametrize("recipe", ["TensorWise", "RowWise"])
def test_scaled_mm_equals_pytorch_on_cpu(fa, fb, recipe):
    m, k, n = 5, 24, 7
    aw, at = _pair((RNG.standard_normal((m, k)) * 4).astype(np.float32), fa)
    bw, bt = _pair((RNG.standard_normal((k, n)) * 4).astype(np.float32), fb)
    shapes = ((), ()) if recipe == "TensorWise" else ((m, 1), (1, n))
    sa = np.asarray(RNG.random(shapes[0]) + 0.5, dtype=np.float32)
    sb = np.asarray(RNG.random(shapes[1]) + 0.5, dtype=np.float32)
    bias = RNG.standard_normal(n).astype(np.float32)
    for out in ["float32", "float16", "float64", "float8_e4m3fn", None]:
        od = (lambda lib: None if out is None else getattr(lib, out))
        got = WF.scaled_mm(aw, bw, webtorch.tensor(sa), getattr(WF.ScalingType, recipe), webtorch.tensor(sb),
                           getattr(WF.ScalingType, recipe), bias=webtorch.tensor(bias), output_dtype=od(webtorch))
        want = TF.scaled_mm(at, bt, torch.from_numpy(sa), getattr(TF.ScalingType, recipe), torch.from_numpy(sb),
                            getattr(TF.ScalingType, recipe), bias=torch.from_numpy(bias), output_dtype=od(torch))
        assert repr(got.dtype) == repr(want.dtype) and tuple(got.shape) == tuple(want.shape)
        _close(got, want)
    got = webtorch._scaled_mm(aw, bw, webtorch.tensor(sa), webtorch.tensor(sb), out_dtype=webtorch.float32)
    _close(got, torch._scaled_mm(at, bt, torch.from_numpy(sa), torch.from_numpy(sb), out_dtype=torch.float32))


def test_options_that_do_not_change_the_result_on_cpu():
    aw, at = _pair(RNG.standard_normal((4, 8)).astype(np.float32), "float8_e4m3fn")
    bw, bt = _pair(RNG.standard_normal((8, 3)).astype(np.float32), "float8_e4m3fn")
    kw = dict(swizzle_a=WF.SwizzleType.SWIZZLE_32_4_4, contraction_dim=(1, 0), use_fast_accum=True,
              output_dtype=webtorch.float32)
    kt = dict(swizzle_a=TF.SwizzleType.SWIZZLE_32_4_4, contraction_dim=(1, 0), use_fast_accum=True,
              output_dtype=torch.float32)
    one_w, one_t = webtorch.tensor(1.5), torch.tensor(1.5)
    got = WF.scaled_mm(aw, bw, [one_w], [WF.ScalingType.TensorWise], one_w, WF.ScalingType.TensorWise, **kw)
    _close(got, TF.scaled_mm(at, bt, [one_t], [TF.ScalingType.TensorWise], one_t, TF.ScalingType.TensorWise, **kt))


def test_enums_are_pytorchs():
    for name in ("ScalingType", "SwizzleType"):
        w, t = getattr(WF, name), getattr(TF, name)
        assert (w.__name__, w.__module__) == (t.__name__, t.__module__)
        assert [(k, v.value) for k, v in w.__members__.items()] == [(k, v.value) for k, v in t.__members__.items()]
        for k in t.__members__:
            assert repr(getattr(w, k)) == repr(getattr(t, k)) and str(getattr(w, k)) == str(getattr(t, k))


def _errors(call):
    """The exception of call on torch's and webtorch's modules (type and message must agree)."""
    with pytest.raises(Exception) as te:
        call(torch, TF)
    with pytest.raises(type(te.value)) as we:
        call(webtorch, WF)
    assert str(we.value) == str(te.value)


F8 = "float8_e4m3fn"
ERRORS = {
    "mat_a_3d": lambda m, F: F.scaled_mm(m.ones(1, 4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                         m.tensor(1.0), F.ScalingType.TensorWise, m.tensor(1.0),
                                         F.ScalingType.TensorWise, output_dtype=m.float32),
    "mat_b_1d": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8).to(getattr(m, F8)),
                                         m.tensor(1.0), F.ScalingType.TensorWise, m.tensor(1.0),
                                         F.ScalingType.TensorWise, output_dtype=m.float32),
    "shapes": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(7, 6).to(getattr(m, F8)),
                                       m.tensor(1.0), F.ScalingType.TensorWise, m.tensor(1.0),
                                       F.ScalingType.TensorWise, output_dtype=m.float32),
    "float32_b": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6), m.tensor(1.0),
                                          F.ScalingType.TensorWise, m.tensor(1.0), F.ScalingType.TensorWise,
                                          output_dtype=m.float32),
    "float64_scale": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                              m.tensor(1.0, dtype=m.float64), F.ScalingType.TensorWise,
                                              m.tensor(1.0), F.ScalingType.TensorWise, output_dtype=m.float32),
    "two_scales": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                           m.ones(2), F.ScalingType.TensorWise, m.tensor(1.0),
                                           F.ScalingType.TensorWise, output_dtype=m.float32),
    "mixed_recipes": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                              m.tensor(1.0), F.ScalingType.TensorWise, m.ones(1, 6),
                                              F.ScalingType.RowWise, output_dtype=m.float32),
    "blockwise": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                          m.ones(4, 1), F.ScalingType.BlockWise1x32, m.ones(1, 6),
                                          F.ScalingType.BlockWise1x32, output_dtype=m.float32),
    "bias_size": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                          m.tensor(1.0), F.ScalingType.TensorWise, m.tensor(1.0),
                                          F.ScalingType.TensorWise, bias=m.ones(5), output_dtype=m.float32),
    "swizzled": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                         m.tensor(1.0), F.ScalingType.TensorWise, m.tensor(1.0),
                                         F.ScalingType.TensorWise, swizzle_a=F.SwizzleType.NO_SWIZZLE,
                                         swizzle_b=F.SwizzleType.SWIZZLE_32_4_4, output_dtype=m.float32),
    "contraction_len": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                                m.tensor(1.0), F.ScalingType.TensorWise, m.tensor(1.0),
                                                F.ScalingType.TensorWise, contraction_dim=(1,), output_dtype=m.float32),
    "contraction_dims": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                                 m.tensor(1.0), F.ScalingType.TensorWise, m.tensor(1.0),
                                                 F.ScalingType.TensorWise, contraction_dim=(0, 1),
                                                 output_dtype=m.float32),
    "contraction_transposed": lambda m, F: F.scaled_mm(m.ones(8, 4).to(getattr(m, F8)), m.ones(6, 8).to(getattr(m, F8)),
                                                       m.tensor(1.0), F.ScalingType.TensorWise, m.tensor(1.0),
                                                       F.ScalingType.TensorWise, contraction_dim=(0, 1),
                                                       output_dtype=m.float32),
    "int_recipe": lambda m, F: F.scaled_mm(m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)),
                                           m.tensor(1.0), 0, m.tensor(1.0), 0, output_dtype=m.float32),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_pytorchs_on_cpu(case):
    _errors(ERRORS[case])


def test_scaled_grouped_mm_is_refused_as_on_pytorchs_cpu():
    args = lambda m, F: (m.ones(4, 8).to(getattr(m, F8)), m.ones(8, 6).to(getattr(m, F8)), m.tensor(1.0),  # noqa: E731
                         F.ScalingType.TensorWise, m.tensor(1.0), F.ScalingType.TensorWise)
    with pytest.raises(NotImplementedError):
        TF.scaled_grouped_mm(*args(torch, TF), output_dtype=torch.float32)
    with pytest.raises(NotImplementedError, match="scaled_grouped_mm.*cpu.*grouped_mm"):
        WF.scaled_grouped_mm(*args(webtorch, WF), output_dtype=webtorch.float32)
