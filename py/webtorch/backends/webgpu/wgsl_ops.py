"""WGSL for each elementwise op of op_facts.ELEMENTWISE_OPS, and the helper functions they use.

``expr(op, args, ct, need)`` returns a WGSL expression: ``args`` are WGSL expressions already in the
compute type ``ct`` ("f32", "i32", "u32", "bool", or int64's ``vec2<u32>`` (wgsl_int64.py); None for a missing
clamp bound); ``need(name)`` asks for a helper function of HELPERS to be emitted into the kernel. Each op is
one row of the table ``OPS``; where and clamp, whose operands may be missing, are written out.
Comparison/logic ops give bool.
PyTorch semantics that WGSL leaves undefined (NaN through max/min, pow of negative bases, integer
floor division and modulo signs) are spelled out here.
"""
import re

from . import wgsl_int64
from . import wgsl_select

HELPERS = {
    # inf/NaN from their bits through a function call: a const-expression that evaluates to inf/NaN is a
    # shader-creation error in Tint (Chromium), though naga accepts it
    "wt_f32_bits": "fn wt_f32_bits(b: u32) -> f32 { return bitcast<f32>(b); }",
    "wt_isnan": "fn wt_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }",
    "wt_isinf": "fn wt_isinf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }",
    "wt_signbit": "fn wt_signbit(x: f32) -> bool { return (bitcast<u32>(x) >> 31u) != 0u; }",
    # C's pow edge values (PyTorch's): pow(x, 0) = pow(1, y) = 1 even for NaN, pow(+-1, +-inf) = 1, and a -inf
    # base gives +-0 or +-inf (the sign from an odd integer exponent) where exp2(b * log2|a|) gives NaN
    "wt_pow": """fn wt_pow(a: f32, b: f32) -> f32 {
  if (b == 0.0 || a == 1.0) { return 1.0; }
  if (b == 1.0) { return a; }
  if (b == 2.0) { return a * a; }
  if (wt_isnan(a) || wt_isnan(b)) { return a + b; }
  let odd = trunc(b) == b && (abs(b) % 2.0) == 1.0;
  if (wt_isinf(b)) {
    if (abs(a) == 1.0) { return 1.0; }
    return select(0.0, wt_f32_bits(0x7f800000u), (abs(a) > 1.0) == (b > 0.0));
  }
  if (a == 0.0 || (wt_isinf(a) && a < 0.0)) {
    let m = select(0.0, wt_f32_bits(0x7f800000u), (b > 0.0) == (a != 0.0));
    return select(m, -m, odd && wt_signbit(a));
  }
  if (b == 0.5) { return sqrt(a); }
  let r = exp2(b * log2(abs(a)));
  if (a > 0.0) { return r; }
  if (trunc(b) != b) { return wt_f32_bits(0x7fc00000u); }
  return select(r, -r, odd);
}""",
    "wt_ipow": """fn wt_ipow(a: i32, b: i32) -> i32 {
  var r = 1; var x = a; var e = b;
  if (e < 0) { return select(0, select(-1 + 2 * i32((e & 1) == 0), 1, a == 1), a == 1 || a == -1); }
  loop { if (e == 0) { break; } if ((e & 1) == 1) { r = r * x; } x = x * x; e = e >> 1u; }
  return r;
}""",
    # C's truncated a % b written as a - (a / b) * b: WGSL's signed % through wgpu-native on NVIDIA's Vulkan driver
    # (H200) gave -1 % 3 == 0 and -1 % 7 == -4, so // and % of negative integers were off (lavapipe: right)
    "wt_itrem": "fn wt_itrem(a: i32, b: i32) -> i32 { return a - (a / b) * b; }",
    "wt_ifloordiv": """fn wt_ifloordiv(a: i32, b: i32) -> i32 {
  let q = a / b;
  let r = a - q * b;
  return select(q, q - 1, (r != 0) && ((r ^ b) < 0));
}""",
    "wt_irem": """fn wt_irem(a: i32, b: i32) -> i32 {
  let r = wt_itrem(a, b);
  return select(r, r + b, (r != 0) && ((r ^ b) < 0));
}""",
    "wt_erf": """fn wt_erf(x: f32) -> f32 {
  let ax = abs(x);
  if (ax < 0.5) {
    let x2 = x * x;
    return x * (1.1283791670955126 + x2 * (-0.37612638903183754 + x2 * (0.11283791670955126 + x2 * (
      -0.026866170645131252 + x2 * (0.005223977625442188 + x2 * -0.0008548327023450852)))));
  }
  return sign(x) * (1.0 - wt_erfc_pos(ax));
}""",
    "wt_erfc_pos": """fn wt_erfc_pos(ax: f32) -> f32 {
  // Numerical Recipes' erfcc (fractional error < 1.2e-7), for ax >= 0
  let t = 1.0 / (1.0 + 0.5 * ax);
  return t * exp(-ax * ax - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
    -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
}""",
    "wt_erfc": """fn wt_erfc(x: f32) -> f32 {
  if (abs(x) < 0.5) { return 1.0 - wt_erf(x); }
  return select(2.0 - wt_erfc_pos(-x), wt_erfc_pos(x), x >= 0.0);
}""",
    "wt_erfinv": """fn wt_erfinv(y: f32) -> f32 {
  // Giles' single-precision approximation, then two Newton steps against wt_erf
  if (y <= -1.0) { return select(wt_f32_bits(0x7fc00000u), wt_f32_bits(0xff800000u), y == -1.0); }
  if (y >= 1.0) { return select(wt_f32_bits(0x7fc00000u), wt_f32_bits(0x7f800000u), y == 1.0); }
  var w = -log((1.0 - y) * (1.0 + y));
  var p: f32;
  if (w < 5.0) {
    w = w - 2.5;
    p = 2.81022636e-08; p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w; p = -0.00125372503 + p * w; p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w; p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3.0;
    p = -0.000200214257; p = 0.000100950558 + p * w; p = 0.00134934322 + p * w; p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w; p = -0.0076224613 + p * w; p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w; p = 2.83297682 + p * w;
  }
  var x = p * y;
  for (var k = 0; k < 2; k++) { x = x - (wt_erf(x) - y) / (1.1283791670955126 * exp(-x * x)); }
  return x;
}""",
    "wt_expm1": """fn wt_expm1(x: f32) -> f32 {
  if (abs(x) < 1e-2) { return x * (1.0 + x * (0.5 + x * (0.16666667 + x * 0.041666668))); }
  return exp(x) - 1.0;
}""",
    "wt_log1p": """fn wt_log1p(x: f32) -> f32 {
  if (!(x < 3.4e38)) { return x; }  // inf (and NaN) would meet inf / inf below
  if (x < -1.0) { return wt_f32_bits(0x7fc00000u); }  // SwiftShader's log(-inf) is 88.7
  let u = 1.0 + x;
  if (u == 1.0) { return x; }
  return wt_log(u) * x / (u - 1.0);
}""",
    "wt_logaddexp": """fn wt_logaddexp(a: f32, b: f32) -> f32 {
  if (wt_isnan(a) || wt_isnan(b)) { return a + b; }
  if (a == b) { return a + 0.6931471805599453; }
  let m = max(a, b);
  return m + wt_log1p(exp(-abs(a - b)));
}""",
    # sin/cos with their own range reduction: the WGSL builtins need only an absolute error of 2^-11 on
    # [-pi, pi], and some adapters use all of it (SwiftShader: ~1.5e-4 at |x| < 1, where PyTorch is exact).
    # Cody-Waite reduction by pi/2 with a three-part constant, then Cephes' sinf/cosf polynomials on
    # [-pi/4, pi/4] (~1e-7); past |x| = 65536 the reduction loses bits, so the builtin takes over there.
    "wt_trig": """fn wt_trig(x: f32, cosine: bool) -> f32 {
  if (!(abs(x) < 65536.0)) {  // large, inf or NaN (sin/cos of inf: NaN, which WGSL leaves undefined)
    return select(select(sin(x), cos(x), cosine), wt_f32_bits(0x7fc00000u),
                  (bitcast<u32>(x) & 0x7fffffffu) >= 0x7f800000u);
  }
  let j = round(x * 0.63661977236758134);
  let r = ((x - j * 1.5703125) - j * 4.837512969970703125e-4) - j * 7.54978995489188216e-8;
  let z = r * r;
  let s = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
  let c = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
  let q = (i32(j) + select(0, 1, cosine)) & 3;
  if (q == 0) { return s; }
  if (q == 1) { return c; }
  if (q == 2) { return -s; }
  return -c;
}""",
    # log2 with PyTorch's edge values spelled out: WGSL leaves log of 0 and of negatives undefined
    # (SwiftShader gives log(0) = -88.03, the log of the smallest normal, where PyTorch gives -inf)
    "wt_log2": """fn wt_log2(x: f32) -> f32 {
  if (x == 0.0) { return wt_f32_bits(0xff800000u); }
  if (!(x >= 0.0)) { return wt_f32_bits(0x7fc00000u); }
  return log2(x);
}""",
    # C's fmod: a finite dividend over an infinite divisor is the dividend (a - b * trunc(a / b) gives NaN there)
    "wt_fmod": """fn wt_fmod(a: f32, b: f32) -> f32 {
  if (wt_isinf(b) && !wt_isinf(a) && !wt_isnan(a)) { return a; }
  return a - b * trunc(a / b);
}""",
    # PyTorch's floor division of floats (c10 div_floor_floating): from fmod, so inf // x is NaN and a
    # finite x // -inf is -1 where floor(a / b) would give inf and -0
    "wt_floordiv": """fn wt_floordiv(a: f32, b: f32) -> f32 {
  if (b == 0.0) { return a / b; }
  let md = wt_fmod(a, b);
  var q = (a - md) / b;
  if (md != 0.0 && (b < 0.0) != (md < 0.0)) { q = q - 1.0; }
  if (q == 0.0) { return select(0.0, -0.0, wt_signbit(a) != wt_signbit(b)); }
  let f = floor(q);
  return select(f, f + 1.0, q - f > 0.5);
}""",
    # PyTorch's remainder of floats: fmod's result moved to the divisor's sign
    "wt_remainder": """fn wt_remainder(a: f32, b: f32) -> f32 {
  let md = wt_fmod(a, b);
  return select(md, md + b, md != 0.0 && (b < 0.0) != (md < 0.0));
}""",
    # atan2 with C's values where WGSL leaves them to the adapter: NaN in, NaN out; the infinities; a +-0 numerator
    # (SwiftShader's atan2(-0, 1) is pi)
    "wt_atan2": """fn wt_atan2(a: f32, b: f32) -> f32 {
  if (wt_isnan(a) || wt_isnan(b)) { return a + b; }
  let pi = 3.14159265358979;
  if (wt_isinf(a)) {
    var q = 0.5 * pi;
    if (wt_isinf(b)) { q = select(0.75 * pi, 0.25 * pi, b > 0.0); }
    return select(q, -q, a < 0.0);
  }
  if (wt_isinf(b) || a == 0.0) {
    let z = select(abs(a) * 0.0, pi, wt_signbit(b));
    return select(z, -z, wt_signbit(a));
  }
  return atan2(a, b);
}""",
    # asin/acos through atan2 of the exact complement: some adapters' builtins are 4e-4 off (lavapipe)
    "wt_asin": """fn wt_asin(x: f32) -> f32 {
  if (!(abs(x) <= 1.0)) { return wt_f32_bits(0x7fc00000u); }
  return wt_atan2(x, sqrt((1.0 - x) * (1.0 + x)));
}""",
    "wt_acos": """fn wt_acos(x: f32) -> f32 {
  if (!(abs(x) <= 1.0)) { return wt_f32_bits(0x7fc00000u); }
  return wt_atan2(sqrt((1.0 - x) * (1.0 + x)), x);
}""",
    # the inverse hyperbolics at their domain edges, which WGSL leaves to the adapter (SwiftShader: asinh(-inf) and
    # acosh(0.5) are 89.1, atanh(inf) 44.6)
    "wt_asinh": """fn wt_asinh(x: f32) -> f32 {
  if (wt_isinf(x)) { return x; }
  return asinh(x);
}""",
    "wt_acosh": """fn wt_acosh(x: f32) -> f32 {
  if (x < 1.0) { return wt_f32_bits(0x7fc00000u); }
  if (wt_isinf(x)) { return x; }
  return acosh(x);
}""",
    "wt_atanh": """fn wt_atanh(x: f32) -> f32 {
  if (abs(x) > 1.0) { return wt_f32_bits(0x7fc00000u); }
  if (abs(x) == 1.0) { return x * wt_f32_bits(0x7f800000u); }
  return atanh(x);
}""",
    "wt_log": """fn wt_log(x: f32) -> f32 {
  if (x == 0.0) { return wt_f32_bits(0xff800000u); }
  if (!(x >= 0.0)) { return wt_f32_bits(0x7fc00000u); }
  return log(x);
}""",
}

# helpers that call other helpers
_DEPS = {"wt_pow": ("wt_f32_bits", "wt_isnan", "wt_isinf", "wt_signbit"), "wt_irem": ("wt_itrem",),
         "wt_erfinv": ("wt_erf", "wt_erfc_pos", "wt_f32_bits"),
         "wt_erf": ("wt_erfc_pos",), "wt_erfc": ("wt_erf", "wt_erfc_pos"),
         "wt_logaddexp": ("wt_log1p", "wt_isnan"), "wt_log1p": ("wt_f32_bits", "wt_log"), "wt_asinh": ("wt_isinf",),
         "wt_acosh": ("wt_f32_bits", "wt_isinf"), "wt_atanh": ("wt_f32_bits",), "wt_trig": ("wt_f32_bits",), "wt_log2": ("wt_f32_bits",),
         "wt_log": ("wt_f32_bits",), "wt_fmod": ("wt_isinf", "wt_isnan"), "wt_floordiv": ("wt_fmod", "wt_signbit"),
         "wt_remainder": ("wt_fmod",), "wt_atan2": ("wt_isnan", "wt_isinf", "wt_signbit"),
         "wt_asin": ("wt_f32_bits", "wt_atan2"), "wt_acos": ("wt_f32_bits", "wt_atan2"), **wgsl_int64.DEPS}
HELPERS.update(wgsl_int64.HELPERS)


def helper_sources(names):
    """WGSL text of the helpers in ``names`` and their dependencies, each once."""
    seen, order = set(), []

    def add(n):
        if n in seen:
            return
        seen.add(n)
        for d in _DEPS.get(n, ()):
            add(d)
        order.append(n)

    for n in sorted(names):
        add(n)
    return "\n".join(HELPERS[n] for n in order)


F32, I32, U32, BOOL = "f32", "i32", "u32", "bool"
_NAN_EITHER = "wt_isnan({a}) || wt_isnan({b})"


def _keep_nan(template):
    """A unary float template whose NaN input gives NaN: some adapters' builtins do not (SwiftShader: exp(NaN) is
    inf, asinh(NaN) 89.1)."""
    return {F32: f"select({template}, {{a}}, wt_isnan({{a}}))", "*": template}


# op -> WGSL expression template over the operands {a}, {b} (WGSL expressions in the compute type {ct}) and
# their truth values {ta}, {tb}: one template for every compute type, or {compute type: template} with "*" for
# the others. The wt_* helpers a template calls are emitted with it (HELPERS). int64 has its own table
# (wgsl_int64.py); where and clamp are written out in ``_irregular`` below.
OPS = {
    "copy": "{a}",
    "add": {BOOL: "({a} || {b})", "*": "({a} + {b})"},
    "sub": "({a} - {b})",
    "mul": {BOOL: "({a} && {b})", "*": "({a} * {b})"},
    "div": "({a} / {b})",
    "floor_divide": {F32: "wt_floordiv({a}, {b})", I32: "wt_ifloordiv({a}, {b})", "*": "({a} / {b})"},
    "remainder": {F32: "wt_remainder({a}, {b})", I32: "wt_irem({a}, {b})", "*": "({a} % {b})"},
    "fmod": {F32: "wt_fmod({a}, {b})", I32: "wt_itrem({a}, {b})", "*": "({a} % {b})"},
    # bool: 0 ** 0 = 1 ** x = 1
    "pow": {BOOL: "({a} || !{b})", F32: "wt_pow({a}, {b})", I32: "wt_ipow({a}, {b})",
            "*": "u32(wt_ipow(i32({a}), i32({b})))"},
    "maximum": {BOOL: "({a} || {b})", F32: f"select(max({{a}}, {{b}}), {{a}} + {{b}}, {_NAN_EITHER})",
                "*": "max({a}, {b})"},
    "minimum": {BOOL: "({a} && {b})", F32: f"select(min({{a}}, {{b}}), {{a}} + {{b}}, {_NAN_EITHER})",
                "*": "min({a}, {b})"},
    "atan2": "wt_atan2({a}, {b})",
    "copysign": "select(abs({a}), -abs({a}), wt_signbit({b}))",
    "hypot": "select(sqrt({a} * {a} + {b} * {b}), wt_f32_bits(0x7f800000u), wt_isinf({a}) || wt_isinf({b}))",
    "logaddexp": "wt_logaddexp({a}, {b})",
    # ordered comparisons false, != true, with a NaN operand, tested on the bits: NVIDIA's Vulkan driver (H200)
    # assumes no NaN in float compares, so relu(NaN) came out 0 there
    "eq": {F32: f"(({{a}} == {{b}}) && !({_NAN_EITHER}))", "*": "({a} == {b})"},
    # WGSL's float != may be an ordered compare (false for NaN: naga on lavapipe); PyTorch's NaN != x is true
    "ne": {F32: f"(({{a}} != {{b}}) || {_NAN_EITHER})", "*": "({a} != {b})"},
    # WGSL orders no bools: compare them as 0/1
    "lt": {BOOL: "(u32({a}) < u32({b}))", F32: f"(({{a}} < {{b}}) && !({_NAN_EITHER}))", "*": "({a} < {b})"},
    "le": {BOOL: "(u32({a}) <= u32({b}))", F32: f"(({{a}} <= {{b}}) && !({_NAN_EITHER}))", "*": "({a} <= {b})"},
    "gt": {BOOL: "(u32({a}) > u32({b}))", F32: f"(({{a}} > {{b}}) && !({_NAN_EITHER}))", "*": "({a} > {b})"},
    "ge": {BOOL: "(u32({a}) >= u32({b}))", F32: f"(({{a}} >= {{b}}) && !({_NAN_EITHER}))", "*": "({a} >= {b})"},
    "logical_and": "({ta} && {tb})",
    "logical_or": "({ta} || {tb})",
    "logical_xor": "({ta} != {tb})",
    "logical_not": "!{ta}",
    "bitwise_and": {BOOL: "({a} && {b})", "*": "({a} & {b})"},
    "bitwise_or": {BOOL: "({a} || {b})", "*": "({a} | {b})"},
    "bitwise_xor": {BOOL: "({a} != {b})", "*": "({a} ^ {b})"},
    "bitwise_not": {BOOL: "!{a}", "*": "(~{a})"},
    # a shift by < 0 or >= 32: 0, or the sign (PyTorch)
    "bitwise_left_shift": "select({ct}(0), ({a} << u32({b})), u32({b}) < 32u)",
    "bitwise_right_shift": {I32: "select(select(0, -1, {a} < 0), ({a} >> u32({b})), u32({b}) < 32u)",
                            "*": "select({ct}(0), ({a} >> u32({b})), u32({b}) < 32u)"},
    "isnan": {F32: "wt_isnan({a})", "*": "false"},
    "isinf": {F32: "wt_isinf({a})", "*": "false"},
    "isfinite": {F32: "!(wt_isnan({a}) || wt_isinf({a}))", "*": "true"},
    "signbit": {F32: "wt_signbit({a})", I32: "({a} < 0)", "*": "false"},
    "neg": "(-{a})",
    "abs": "abs({a})",
    "sign": {U32: "min({a}, 1u)", "*": "sign({a})"},
    "reciprocal": "(1.0 / {a})",
    "square": "({a} * {a})",
    # f32: negative by the bits (sign set, not -0, not NaN), so NaN and -0 pass through as PyTorch's
    "relu": {F32: "select({a}, 0.0, bitcast<u32>({a}) > 0x80000000u && bitcast<u32>({a}) <= 0xff800000u)",
             "*": "select({a}, {ct}(0), {a} < {ct}(0))"},
    "sigmoid": _keep_nan("(1.0 / (1.0 + exp(-{a})))"),
    "rsqrt": "(1.0 / sqrt({a}))",
    "log": "wt_log({a})",
    "log2": "wt_log2({a})",
    "log10": "(wt_log2({a}) * 0.30102999566398120)",
    "sin": "wt_trig({a}, false)",
    "cos": "wt_trig({a}, true)",
    # |x| > 10 rounds to +-1 in f32; some adapters' tanh overflows to NaN there (SwiftShader)
    "tanh": "select(tanh({a}), sign({a}), abs({a}) > 10.0)",
    "frac": "({a} - trunc({a}))",
    "expm1": _keep_nan("wt_expm1({a})"),
    **{op: f"wt_{op}({{a}})" for op in ("log1p", "erf", "erfc", "erfinv")},
    "atan": "select(atan({a}), {a}, wt_isnan({a}))",
    "asin": "wt_asin({a})",
    "acos": "wt_acos({a})",
    **{op: _keep_nan(f"{op}({{a}})") for op in ("exp", "exp2", "sqrt", "tan", "sinh", "cosh")},
    **{op: _keep_nan(f"wt_{op}({{a}})") for op in ("asinh", "acosh", "atanh")},
    **{op: f"{op}({{a}})" for op in ("floor", "ceil", "round", "trunc")},
}
# an operand's truth value; a float's from its bits, so NaN is true (an ordered x != 0.0 gives false for NaN)
_TRUTH = {BOOL: lambda x: x, F32: lambda x: f"((bitcast<u32>({x}) & 0x7fffffffu) != 0u)"}
_HELPER_CALL = re.compile(r"\b(wt_\w+)\(")
# (op, compute type) -> (template, the helpers it calls), filled on first use
_ROWS = {}


def _row(op, ct):
    row = _ROWS.get((op, ct))
    if row is None:
        t = OPS[op]
        if isinstance(t, dict):
            t = t.get(ct, t.get("*"))
        row = _ROWS[(op, ct)] = (t, tuple(sorted(set(_HELPER_CALL.findall(t)))))
    return row


def _irregular(op, args, ct, need):
    """where and clamp: a select chain over optional bounds (wgsl_select.py); clamp keeps a NaN input."""
    if op == "where":
        return wgsl_select.where(args)
    a, lo, hi = args
    x = wgsl_select.clamp(a, lo, hi, lambda p, q: f"{p} < {q}")
    if ct == F32 and (lo is not None or hi is not None):
        need("wt_isnan")
        x = f"select({x}, {a}, wt_isnan({a}))"
    return x


def expr(op, args, ct, need):
    """WGSL expression for ``op`` over compute-typed argument expressions ``args`` (None: no int64 form)."""
    if ct == wgsl_int64.TYPE:
        return wgsl_int64.expr(op, args, need)
    if op in ("where", "clamp"):
        return _irregular(op, args, ct, need)
    if op not in OPS:
        raise NotImplementedError(f"elementwise op '{op}' has no WGSL form")
    template, helpers = _row(op, ct)
    for name in helpers:
        need(name)
    a = args[0] if args else None
    b = args[1] if len(args) > 1 else None
    truth = _TRUTH.get(ct) or (lambda x: f"({x} != {ct}(0))")
    return template.format(a=a, b=b, ct=ct, ta=None if a is None else truth(a), tb=None if b is None else truth(b))
