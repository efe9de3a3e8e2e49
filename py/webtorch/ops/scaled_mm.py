"""scaled_mm (torch.nn.functional.scaled_mm, torch._scaled_mm): a float8 matrix product with decoding scales, as
PyTorch's CPU runs it: each operand converted to float32 and multiplied by its scale (one number: TensorWise; one
per row of mat_a and per column of mat_b: RowWise), a float32 matmul, the bias added, the result converted to the
output dtype. scaled_grouped_mm has no CPU kernel in PyTorch; it is refused the same way."""
import enum

from .. import _dtype as D
from .linalg import matmul


class _ScalingType(enum.Enum):
    """How a float8 operand was scaled (torch.nn.functional.ScalingType)."""
    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5


class _SwizzleType(enum.Enum):
    """The layout of a block scale tensor (torch.nn.functional.SwizzleType)."""
    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1


_ScalingType.__module__ = _SwizzleType.__module__ = "torch.nn.functional"


def _as_list(v):
    return [] if v is None else (list(v) if isinstance(v, list) else [v])


def _recipes(v):
    return [r.value for r in _as_list(v)]  # (PyTorch reads .value: a bare int is refused the same way)


def _size(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _scaling_error(a, b, sa, sb):
    m, n = a.shape[0], b.shape[1]
    got = []
    for name, mat, s in (("a", a, sa), ("b", b, sb)):
        got.append(f"mat_{name}.dtype()={D.scalar_type_name(mat.dtype)}, scale_{name}.dtype()="
                   f"{D.scalar_type_name(s.dtype)}, scale_{name}.size()={_size(s)}"
                   + (f" and scale_{name}.stride()=" if name == "b" else f", scale_{name}.stride()=")
                   + "[" + ", ".join(str(x) for x in s.stride()) + "]")
    return ValueError("Invalid scaling configuration.\n- For TensorWise scaling, a and b should be float8, scales "
                      "should be float and singletons.\n- For RowWise scaling, a and b should be float8, scales "
                      f"should be float, scale_a should be ({m}, 1) and scale_b should be (1, {n}), and both should "
                      f"be contiguous.\nGot {got[0]}, {got[1]}")


def _scaling(a, b, sa, recipe_a, sb, recipe_b):
    """'tensor' or 'row' when the scales fit one of PyTorch's CPU recipes, else its ValueError."""
    ok = (a.dtype in D.FLOAT8 and b.dtype in D.FLOAT8 and len(sa) == len(sb) == 1
          and sa[0].dtype is D.float32 and sb[0].dtype is D.float32 and recipe_a == recipe_b and len(recipe_a) == 1)
    s_a, s_b = (sa[0] if sa else None), (sb[0] if sb else None)
    if ok and recipe_a[0] == _ScalingType.TensorWise.value:
        for name, s in (("scale_a", s_a), ("scale_b", s_b)):
            if s.numel() != 1:
                raise ValueError(f"{name} must have 1 Float element")
        return "tensor"
    if ok and recipe_a[0] == _ScalingType.RowWise.value and tuple(s_a.shape) == (a.shape[0], 1) \
            and tuple(s_b.shape) == (1, b.shape[1]) and s_a.is_contiguous() and s_b.is_contiguous():
        return "row"
    if s_a is None or s_b is None:
        raise ValueError("scaled_mm: one scale tensor per operand is needed")
    raise _scaling_error(a, b, s_a, s_b)


def _scaled_product(mat_a, mat_b, scale_a, scale_b, bias, out_dtype):
    out = matmul(mat_a.to(D.float32) * scale_a, mat_b.to(D.float32) * scale_b)
    if bias is not None:
        out = out + bias.to(D.float32)
    return out.to(out_dtype)


def _check_shapes(mat_a, mat_b, bias, contraction_dim=()):
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if m.dim() != 2:
            raise ValueError(f"{name} must be a matrix")
    shapes = f"{mat_a.shape[0]}x{mat_a.shape[1]} and {mat_b.shape[0]}x{mat_b.shape[1]}"
    if contraction_dim:
        if len(contraction_dim) != 2:
            raise ValueError("contraction_dim must have exactly 2 elements")
        da, db = contraction_dim
        if mat_a.shape[da] != mat_b.shape[db]:
            raise ValueError(f"mat_a and mat_b shapes cannot be multiplied ({shapes}) with contraction dims "
                             f"mat_a: {da}, mat_b: {db}")
    if mat_a.shape[1] != mat_b.shape[0]:  # (other contraction dims reach PyTorch's CPU matmul as they are)
        raise (RuntimeError if contraction_dim else ValueError)(f"mat_a and mat_b shapes cannot be multiplied "
                                                                f"({shapes})")
    if bias is not None and bias.numel() != mat_b.shape[1]:
        raise ValueError(f"Bias must be size {mat_b.shape[1]} but got {bias.numel()}")


def _check_swizzles(swizzle_a, swizzle_b):
    """PyTorch's CPU reads scales unswizzled: a swizzle named for both operands must be NO_SWIZZLE."""
    a, b = _recipes(swizzle_a), _recipes(swizzle_b)
    if a and b and any(v != _SwizzleType.NO_SWIZZLE.value for v in a + b):
        raise ValueError("CPU does not support swizzle.")


def scaled_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a=None, swizzle_b=None,
              bias=None, output_dtype=D.bfloat16, contraction_dim=(), use_fast_accum=False):
    """mat_a @ mat_b for float8 operands scaled as scale_recipe_a / scale_recipe_b describe (TensorWise or RowWise
    float32 scales on the cpu device, as PyTorch's CPU: contraction over mat_a's dim 1 and mat_b's dim 0, scales
    unswizzled); use_fast_accum does not change the result there."""
    _check_shapes(mat_a, mat_b, bias, tuple(contraction_dim))
    sa, sb = _as_list(scale_a), _as_list(scale_b)
    _scaling(mat_a, mat_b, sa, _recipes(scale_recipe_a), sb, _recipes(scale_recipe_b))
    _check_swizzles(swizzle_a, swizzle_b)
    return _scaled_product(mat_a, mat_b, sa[0], sb[0], bias, mat_a.dtype if output_dtype is None else output_dtype)


def _scaled_mm(self, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None, use_fast_accum=False):
    """torch._scaled_mm: scaled_mm with the recipe read from the scales' shapes (one number: TensorWise)."""
    _check_shapes(self, mat2, bias)
    recipe = [(_ScalingType.TensorWise if scale_a.numel() == 1 and scale_b.numel() == 1
               else _ScalingType.RowWise).value]
    _scaling(self, mat2, [scale_a], recipe, [scale_b], recipe)
    return _scaled_product(self, mat2, scale_a, scale_b, bias, self.dtype if out_dtype is None else out_dtype)


def scaled_grouped_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a=None,
                      swizzle_b=None, bias=None, offs=None, output_dtype=D.bfloat16, contraction_dim=(),
                      use_fast_accum=False):
    """Refused as PyTorch's CPU refuses it: it has no kernel outside CUDA."""
    raise NotImplementedError(f"Could not run 'aten::_scaled_grouped_mm_v2' on the '{mat_a.device.type}' device: "
                              "PyTorch implements scaled_grouped_mm for CUDA only; convert the operands with "
                              ".to(torch.float32), scale them and use torch.nn.functional.grouped_mm")
