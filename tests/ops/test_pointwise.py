"""Pointwise math beyond the core arithmetic: values, gradients, node names, integer semantics, promotion."""
import math

import numpy as np
import pytest
import torch

import webtorch
from optest import check, check_error, rand, randint, webgpu_dtype_error

F64 = np.float64


def pos(*shape, dtype=np.float32):
    return rand(*shape, low=0.2, high=2.0, dtype=dtype)


# ---- binary / ternary math with gradients --------------------------------------------------------------

BINARY = ["atan2", "remainder", "fmod", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign", "fmax", "fmin",
          "float_power"]


@pytest.mark.parametrize("op", BINARY)
def test_binary_tensor_tensor(op, device):
    with webgpu_dtype_error(device, when=op == "float_power"):
        check(lambda m, x, y: getattr(m, op)(x, y), pos(3, 4), pos(4), device=device)


@pytest.mark.parametrize("op", BINARY)
def test_binary_float64_grads(op, device):
    with webgpu_dtype_error(device):
        check(lambda m, x, y: getattr(m, op)(x, y), pos(2, 3, dtype=F64), rand(2, 3, dtype=F64) + 2.5,
              device=device, atol=1e-12, rtol=1e-10)


@pytest.mark.parametrize("op,scalar", [("atan2", 0.7), ("remainder", 0.3), ("remainder", -0.7), ("fmod", 0.3),
                                       ("fmod", -0.7), ("hypot", 1.5), ("logaddexp", 0.5), ("xlogy", 3.0),
                                       ("xlogy", 0.0), ("copysign", -1.0), ("copysign", 2), ("float_power", 2),
                                       ("float_power", 0.5)])
def test_binary_tensor_scalar(op, scalar, device):
    with webgpu_dtype_error(device, when=op == "float_power"):
        if op in ("atan2", "hypot", "logaddexp"):
            other = webtorch.tensor(scalar)  # PyTorch takes only tensors here; a 0-dim cpu tensor joins any device
            check(lambda m, x: getattr(m, op)(x, m.tensor(scalar)), pos(3, 2), device=device)
            assert other.dim() == 0
        else:
            check(lambda m, x: getattr(m, op)(x, scalar), rand(3, 2) * 3, device=device)


def test_xlogy_scalar_first_and_zeros(device):
    x = np.array([0.0, 0.0, 1.0, 2.0, 0.0], dtype=np.float32)
    y = np.array([0.0, 2.0, 0.0, 3.0, np.nan], dtype=np.float32)
    check(lambda m, a, b: m.xlogy(a, b), x, y, device=device, grad=False)
    check(lambda m, b: (m.xlogy(2.0, b), m.xlogy(0, b)), pos(4), device=device)


def test_binary_node_names(device):
    x = webtorch.rand(3, device=device, requires_grad=True) + 0.5
    y = webtorch.rand(3, device=device, requires_grad=True) + 0.5
    names = {
        "Atan2Backward0": webtorch.atan2(x, y), "RemainderBackward1": webtorch.remainder(x, y),
        "RemainderBackward0": x % 2.0, "FmodBackward1": webtorch.fmod(x, y), "FmodBackward0": x.fmod(2),
        "HypotBackward0": x.hypot(y), "LogaddexpBackward0": x.logaddexp(y),
        "Logaddexp2Backward0": x.logaddexp2(y), "XlogyBackward0": x.xlogy(y), "XlogyBackward1": webtorch.xlogy(2, y),
        "XlogyBackward2": x.xlogy(2), "CopysignBackward0": x.copysign(y), "CopysignBackward1": x.copysign(-1),
        "FmaxBackward0": x.fmax(y),
        "FminBackward0": x.fmin(y), "AddcmulBackward0": x.addcmul(x, y), "AddcdivBackward0": x.addcdiv(x, y),
        "LerpBackward0": x.lerp(y, 0.3), "LerpBackward1": x.lerp(y, y), "SincBackward0": x.sinc(),
        "Deg2RadBackward0": x.deg2rad(), "Rad2DegBackward0": x.rad2deg(), "SgnBackward0": x.sgn(),
        "LogitBackward0": x.logit(), "NanToNumBackward0": x.nan_to_num(),
    }
    if device == "cpu":  # float_power computes in float64
        names.update({"PowBackward1": x.float_power(y), "PowBackward0": x.float_power(2)})
    for name, r in names.items():
        assert r.grad_fn.name() == name, (name, r.grad_fn.name())
    assert x.heaviside(y).grad_fn.name() == "torch::autograd::NotImplemented"


def test_addcmul_addcdiv(device):
    check(lambda m, x, a, b: (m.addcmul(x, a, b), m.addcmul(x, a, b, value=-0.5), m.addcdiv(x, a, b),
                              x.addcdiv(a, b, value=2)), rand(3, 4), rand(4), pos(3, 1), device=device)


def test_addcdiv_integer_error(device):
    check_error(lambda m, x: m.addcdiv(x, x, x), randint(1, 4, 3), device=device,
                match="Integer division with addcdiv is no longer supported")


def test_lerp(device):
    check(lambda m, a, b: (m.lerp(a, b, 0.25), a.lerp(b, 1.5)), rand(3, 4), rand(4), device=device)
    check(lambda m, a, b, w: m.lerp(a, b, w), rand(3, 4), rand(3, 4), rand(4), device=device)


def test_lerp_dtype_error(device):
    if device != "cpu":  # the float64 operand cannot reach the device at all
        with pytest.raises(TypeError, match="float64"):
            webtorch.tensor(rand(3, dtype=F64), device=device)
        return
    check_error(lambda m, a, b: m.lerp(a, b, 0.5), rand(3), rand(3, dtype=F64), device=device,
                match="expected dtype float for `end` but got dtype double")


def test_unary_extras(device):
    x = np.array([-2.5, -0.5, 0.0, 0.25, 1.0, 3.0], dtype=np.float32)
    check(lambda m, t: (m.sinc(t), m.deg2rad(t), m.rad2deg(t), m.sgn(t)), x, device=device)
    check(lambda m, t: (m.sinc(t), m.deg2rad(t), m.rad2deg(t)), rand(5, dtype=F64) * 3,
          device="cpu", atol=1e-12, rtol=1e-10)


def test_logit(device):
    x = np.array([0.0, 0.0005, 0.2, 0.5, 0.9, 0.9999, 1.0], dtype=np.float32)
    check(lambda m, t: (m.logit(t, 1e-3), t.logit(0.1)), x, device=device)
    check(lambda m, t: m.logit(t), rand(5, low=0.05, high=0.95), device=device)


def test_nan_to_num(device):
    x = np.array([np.nan, np.inf, -np.inf, 1.5, -2.0], dtype=np.float32)
    check(lambda m, t: (m.nan_to_num(t), t.nan_to_num(nan=1.0, posinf=9.0), m.nan_to_num(t, neginf=-7.0)), x,
          device=device)
    check(lambda m, t: m.nan_to_num(t), randint(-3, 3, 4), device=device)


def test_fmax_fmin_nan(device):
    a = np.array([np.nan, 1.0, np.nan, 2.0, 3.0], dtype=np.float32)
    b = np.array([1.0, np.nan, np.nan, 5.0, 3.0], dtype=np.float32)
    check(lambda m, x, y: (m.fmax(x, y), m.fmin(x, y), m.maximum(x, y)), a, b, device=device)


def test_isclose_allclose(device):
    a = np.array([1.0, 1.0 + 1e-6, np.nan, np.inf, -np.inf, 2.0], dtype=np.float32)
    b = np.array([1.0, 1.0, np.nan, np.inf, np.inf, 2.1], dtype=np.float32)
    check(lambda m, x, y: (m.isclose(x, y), m.isclose(x, y, equal_nan=True), x.isclose(y, rtol=0.1, atol=0.0)),
          a, b, device=device, grad=False)
    for args in ((a, b), (a[:2], b[:2])):
        ta, tb = (torch.tensor(v) for v in args)
        wa, wb = (webtorch.tensor(v, device=device) for v in args)
        assert webtorch.allclose(wa, wb) == torch.allclose(ta, tb)
        assert wa.allclose(wb, equal_nan=True) == ta.allclose(tb, equal_nan=True)
    check(lambda m, x, y: m.isclose(x, y), randint(0, 3, 5), randint(0, 3, 5), device=device)
    check_error(lambda m, x, y: m.isclose(x, y), randint(0, 3, 5), rand(5), device=device,
                match="Long did not match Float")


def test_heaviside(device):
    x = np.array([-1.0, 0.0, 2.0, 0.0], dtype=np.float32)
    check(lambda m, t, v: (m.heaviside(t, v), t.heaviside(m.tensor(0.5))), x, rand(4), device=device, grad=False)
    check_error(lambda m, t: m.heaviside(t, m.tensor(1)), x, device=device,
                match="heaviside is not yet implemented for tensors with different dtypes.")
    t = webtorch.tensor(x, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        t.heaviside(t).sum().backward()


def test_float_power_dtype(device):
    with webgpu_dtype_error(device):
        check(lambda m, x: (m.float_power(x, 2), m.float_power(2, x), x.float_power(x)), randint(1, 4, 3),
              device=device)
        check_error(lambda m, x: x.float_power_(2), rand(3), device=device,
                    match="the base given to float_power_ has dtype Float but the operation's result requires dtype "
                          "Double")
        check(lambda m, x: x.clone().float_power_(2), rand(3, dtype=F64), device=device)


# ---- in-place forms ---------------------------------------------------------------------------------------

INPLACE_BINARY = ["atan2", "arctan2", "remainder", "fmod", "hypot", "xlogy", "copysign"]


@pytest.mark.parametrize("op", INPLACE_BINARY)
def test_inplace_binary(op, device):
    check(lambda m, x, y: getattr(x.clone(), op + "_")(y), pos(3, 4), pos(4), device=device)


@pytest.mark.parametrize("op", ["sinc", "deg2rad", "rad2deg", "logit", "nan_to_num", "exp", "sigmoid", "relu",
                                "sqrt", "tanh", "abs", "neg", "square", "log1p", "erf", "reciprocal", "floor",
                                "frac", "sin", "log"])
def test_inplace_unary(op, device):
    check(lambda m, x: getattr(x.clone(), op + "_")(), pos(3, 4) / 2.5, device=device)


@pytest.mark.parametrize("op", ["exp", "sigmoid", "relu", "sqrt", "tanh", "xlogy", "sinc", "deg2rad", "logit",
                                "nan_to_num", "clamp", "round", "neg", "abs"])
def test_torch_level_inplace_functions(op, device):
    args = {"xlogy": (2.0,), "clamp": (0.3, 0.6)}.get(op, ())
    check(lambda m, x: getattr(m, op + "_")(x.clone(), *args), pos(2, 3) / 2.5, device=device)


def test_inplace_sgn(device):
    # torch's gradient here is a ZeroTensor (not comparable); values and dtype only
    check(lambda m, x: x.clone().sgn_(), rand(5), device=device, grad=False)


def test_inplace_keeps_original_self_for_backward(device):
    # mul_ saves self for the other operand's gradient: backward must see the value before the write
    check(lambda m, x, y: x.clone().mul_(y), rand(3), rand(3), device=device)
    check(lambda m, x, y: x.clone().atan2_(y).clone().hypot_(y), pos(3), pos(3), device=device)


def test_inplace_ternary(device):
    check(lambda m, x, a, b: (x.clone().addcmul_(a, b, value=2), x.clone().addcdiv_(a, b), x.clone().lerp_(a, 0.3),
                              x.clone().lerp_(a, b)), rand(3, 4), rand(3, 4), pos(3, 4), device=device)


def test_inplace_int_result_error(device):
    check_error(lambda m, x: x.atan2_(x), randint(1, 4, 3), device=device,
                match="result type Float can't be cast to the desired output type Long")


def test_int_math_not_implemented(device):
    check_error(lambda m, x: m.hypot(x, x), randint(1, 4, 3), device=device, match="not implemented for 'Long'")
    check_error(lambda m, x: m.logaddexp(x, x), randint(1, 4, 3), device=device, match="not implemented for 'Long'")


# ---- integer semantics -------------------------------------------------------------------------------------

INT_A = np.array([-7, 7, -7, 7, 0, -1, 5], dtype=np.int64)
INT_B = np.array([2, 2, -2, -2, 3, 3, -3], dtype=np.int64)


def test_integer_division_family(device):
    check(lambda m, a, b: (a // b, m.floor_divide(a, b), m.remainder(a, b), a % b, m.fmod(a, b),
                           m.div(a, b, rounding_mode="trunc"), m.div(a, b, rounding_mode="floor"), a / b,
                           a % 3, -7 % b, a // -2, m.fmod(a, -3)), INT_A, INT_B, device=device)


def test_large_int_trunc_division(device):
    big = np.array([2 ** 40 + 1, -(2 ** 41) - 3], dtype=np.int64)
    check(lambda m, a: (m.div(a, 3, rounding_mode="trunc"), a // 7), big, device=device)


def test_integer_zero_division(device):
    for fn in (lambda m, a: a // 0, lambda m, a: m.remainder(a, 0), lambda m, a: m.fmod(a, m.zeros_like(a)),
               lambda m, a: m.div(a, m.zeros_like(a), rounding_mode="trunc")):
        if device == "cpu":
            check_error(fn, INT_A, device=device, match="ZeroDivisionError")
        else:  # the kernel reports it (device_checks.py): raised by the next read, as PyTorch's CPU error
            r = fn(webtorch, webtorch.tensor(INT_A, device=device))
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                r.tolist()
            assert (webtorch.tensor(INT_A, device=device) // 1).tolist() == list(INT_A)  # later work unaffected


def test_float_division_by_zero(device):
    x = np.array([5.0, -5.0, 0.0], dtype=np.float32)
    check(lambda m, a: (m.div(a, 0.0, rounding_mode="floor"), m.remainder(a, 0.0), m.fmod(a, 0.0), a / 0),
          x, device=device, grad=False)


def test_int_pow(device):
    check(lambda m, a, b: (a ** 2, a ** b, 2 ** b, m.pow(a, 3)), randint(-4, 5, 6), randint(0, 4, 6),
          device=device)
    base = np.array([2, 1, -1, -1, 0, -3], dtype=np.int64)
    exp = np.array([-1, -3, -3, -2, -1, -2], dtype=np.int64)
    check(lambda m, a, b: a ** b, base, exp, device=device)
    check_error(lambda m, a: a ** -1, base, device=device, match="Integers to negative integer powers are not allowed.")


def test_uint8_wraparound(device):
    u = np.array([0, 1, 200, 255], dtype=np.uint8)
    check(lambda m, x: (x > -1, x == 256, x < 2.5, x + 300, x - 5, x * 2, x + 1.5), u, device=device)
    check(lambda m, x: x * 100, np.array([3, -3, 1], dtype=np.int8), device=device)


# ---- comparisons with mixed dtypes and scalars ---------------------------------------------------------------

CMP = ["eq", "ne", "lt", "le", "gt", "ge"]


@pytest.mark.parametrize("op", CMP)
def test_comparisons_mixed(op, device):
    i = randint(-2, 3, 5)
    f = np.array([-1.5, 0.0, 0.5, 1.0, 2.0], dtype=np.float32)
    b = np.array([True, False, True, False, True])
    check(lambda m, x, y, z: (getattr(m, op)(x, y), getattr(m, op)(y, x), getattr(m, op)(x, 1),
                              getattr(m, op)(x, 0.5), getattr(m, op)(y, True), getattr(m, op)(z, x),
                              getattr(m, op)(z, 0.5), getattr(m, op)(x, m.tensor(1.5))),
          i, f, b, device=device, grad=False)


def test_comparison_operators_scalar_first(device):
    check(lambda m, x: (1 < x, 0.5 >= x, 2 == x, x != 2.0), randint(0, 4, 6), device=device)


# ---- type promotion, table-driven against torch ---------------------------------------------------------

PROMO_DTYPES = [np.bool_, np.uint8, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]
PROMO_OPS = {
    "add": lambda m, a, b: m.add(a, b), "sub": lambda m, a, b: m.sub(a, b), "mul": lambda m, a, b: m.mul(a, b),
    "div": lambda m, a, b: m.div(a, b), "floor_divide": lambda m, a, b: m.floor_divide(a, b),
    "remainder": lambda m, a, b: m.remainder(a, b), "fmod": lambda m, a, b: m.fmod(a, b),
    "pow": lambda m, a, b: m.pow(a, b), "atan2": lambda m, a, b: m.atan2(a, b),
    "hypot": lambda m, a, b: m.hypot(a, b), "logaddexp": lambda m, a, b: m.logaddexp(a, b),
    "copysign": lambda m, a, b: m.copysign(a, b), "xlogy": lambda m, a, b: m.xlogy(a, b),
    "maximum": lambda m, a, b: m.maximum(a, b), "minimum": lambda m, a, b: m.minimum(a, b),
    "fmax": lambda m, a, b: m.fmax(a, b), "fmin": lambda m, a, b: m.fmin(a, b),
    "float_power": lambda m, a, b: m.float_power(a, b), "eq": lambda m, a, b: m.eq(a, b),
    "lt": lambda m, a, b: m.lt(a, b), "logical_and": lambda m, a, b: m.logical_and(a, b),
    "bitwise_and": lambda m, a, b: m.bitwise_and(a, b), "bitwise_or": lambda m, a, b: m.bitwise_or(a, b),
    "bitwise_left_shift": lambda m, a, b: m.bitwise_left_shift(a, b), "shift_left_op": lambda m, a, b: a << b,
    "bitwise_right_shift": lambda m, a, b: m.bitwise_right_shift(a, b), "shift_right_op": lambda m, a, b: a >> b,
    "rlshift": lambda m, a, b: b << a, "rrshift": lambda m, a, b: b >> a,
    "radd": lambda m, a, b: b + a, "rsub": lambda m, a, b: b - a, "rmul": lambda m, a, b: b * a,
    "rtruediv": lambda m, a, b: b / a, "rpow": lambda m, a, b: b ** a, "rmod": lambda m, a, b: b % a,
    "rfloordiv": lambda m, a, b: b // a,
}
NEEDS_TENSOR_OTHER = {"atan2", "hypot", "logaddexp", "maximum", "minimum", "fmax", "fmin"}


def _operands():
    """(label, value): dim>0 and 0-dim arrays of every dtype, and Python scalars."""
    out = []
    for dt in PROMO_DTYPES:
        out.append((f"{np.dtype(dt).name}[2]", np.array([1, 2], dtype=dt)))
        out.append((f"{np.dtype(dt).name}[]", np.array(2, dtype=dt)))
    out += [("True", True), ("int 2", 2), ("float 2.5", 2.5)]
    return out


def _run(lib, fn, a, b, device="cpu"):
    def mk(v):
        return (lib.tensor(v) if lib is torch else lib.tensor(v, device=device)) if isinstance(v, np.ndarray) else v
    try:
        return fn(lib, mk(a), mk(b)), None
    except Exception as e:  # noqa: BLE001
        return None, e


@pytest.mark.parametrize("op", sorted(PROMO_OPS))
def test_type_promotion_table(op, device):
    fn = PROMO_OPS[op]
    reversed_op = op.startswith("r") and op not in ("remainder",)
    mismatches = []
    for la, a in _operands():
        if not isinstance(a, np.ndarray):
            continue
        for lb, b in _operands():
            if device != "cpu" and "float64" in la + lb:  # float64 cannot reach the device
                continue
            if reversed_op and isinstance(b, np.ndarray):
                continue
            if op in NEEDS_TENSOR_OTHER and not isinstance(b, np.ndarray):
                continue
            t, te = _run(torch, fn, a, b)
            w, we = _run(webtorch, fn, a, b, device)
            case = f"{op}({la}, {lb})"
            if device != "cpu" and te is None and t.dtype == torch.float64:  # float_power: no float64 on webgpu
                if not (isinstance(we, TypeError) and "float64" in str(we)):
                    mismatches.append(f"{case}: webtorch gave {we!r} where torch gives float64")
                continue
            if te is not None:
                if we is None:
                    mismatches.append(f"{case}: torch raised {type(te).__name__}: {te}; webtorch gave {w.dtype}")
                elif not isinstance(we, type(te)):
                    mismatches.append(f"{case}: torch raised {type(te).__name__}, webtorch {type(we).__name__}: {we}")
                continue
            if we is not None:
                mismatches.append(f"{case}: webtorch raised {type(we).__name__}: {we}; torch gave {t.dtype}")
                continue
            if str(w.dtype) != str(t.dtype) or tuple(w.shape) != tuple(t.shape):
                mismatches.append(f"{case}: webtorch {w.dtype}{list(w.shape)} != torch {t.dtype}{list(t.shape)}")
                continue
            ref = t.double().numpy() if t.dtype != torch.bool else t.numpy()
            w = w.cpu()
            if not np.allclose(np.asarray(w.double().numpy() if w.dtype.is_floating_point or w.dtype != webtorch.bool
                                          else w.numpy(), dtype=ref.dtype), ref, rtol=2e-3, atol=2e-3,
                               equal_nan=True):
                mismatches.append(f"{case}: values {w.tolist()} != torch {t.tolist()}")
    assert not mismatches, "\n".join(mismatches[:20]) + f"\n({len(mismatches)} mismatches)"


def test_promotion_zero_dim_vs_dim():
    # a 0-dim tensor of a higher category wins; of the same category it does not
    for a, b, expect in ((np.array([1], np.int32), np.array(2.0, np.float64), "torch.float64"),
                         (np.array([1], np.int32), np.array(2, np.int64), "torch.int32"),
                         (np.array([1], np.float16), np.array(2.0, np.float64), "torch.float16"),
                         (np.array([True]), np.array(2, np.int64), "torch.int64")):
        r = webtorch.tensor(a) + webtorch.tensor(b)
        assert str(r.dtype) == expect == str((torch.tensor(a) + torch.tensor(b)).dtype)
    assert math.isclose((webtorch.tensor([1], dtype=webtorch.uint8) + 1.5).item(), 2.5)


@pytest.mark.parametrize("eps", [None, -0.1, 0.0, 0.2, 0.5, 0.7, 1.0, 1.5])
def test_logit_eps_bounds(eps, device):
    # PyTorch tests x < eps before x > 1 - eps (eps > 0.5 maps everything below eps to eps); a negative eps is none
    x = np.array([0.0, 0.1, 0.5, 0.9, 1.0, np.nan, 2.0, -1.0, np.inf], np.float32)
    check(lambda m, x: m.logit(x, eps), x, device=device)


def test_copy_from_a_number(device):
    for dt in ("float32", "int32", "uint8", "bool"):
        check(lambda m, x: x.to(getattr(m, dt)).clone().copy_(3), rand(2, 3), device=device, grad=False)
        check(lambda m, x: x.to(getattr(m, dt)).clone().copy_(2.5), rand(2, 3), device=device, grad=False)
