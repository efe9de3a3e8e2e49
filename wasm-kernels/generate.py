"""Emits the generated kernel C (build time, scripts/build_wasm_kernels.py): the strided cast/copy kernel of every
dtype pair and the elementwise kernel of every op of backends/op_facts.ELEMENTWISE_OPS for every compute type.

Names: ``cast_<src>_<dst>(dst, src, g)`` and ``ew_<op>_<ct>(out, a[, b[, c]], g) -> int`` (geometry ``g`` as
kernels.h; operand 0 the output). Elementwise kernels read and write their compute type ``ct`` (comparisons and
logic write bool; ``where`` reads a bool condition); float16/bfloat16 are computed in float32 by the host (cast in,
round back per op), int8/int16/uint8 in int32 and uint32 in int64. An integer division kernel scans its divisor first and returns 1 on a zero, writing nothing.
Each kernel has vectorizable loops for rows where every operand is contiguous, and where one is contiguous and the
others are single values (stride 0: a Python number beside a tensor).

``ew_chain_<ct>(prog, n)`` evaluates a fused chain of those ops (op_facts.CHAIN_OPS, backends/wasm/chain.py) over n
contiguous elements, block by block, with the same C expressions and SIMD forms as the per-op kernels.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "py"))
from webtorch.backends.op_facts import BOOL_RESULT, CHAIN_OPS, ELEMENTWISE_OPS, INT_DIVISIONS  # noqa: E402
from webtorch.backends.wasm.chain import BLOCK, CHAIN_TYPES, REGISTERS, SLOT_MEMORY, SLOT_NUMBER  # noqa: E402

# dtype name -> (C type, category: f float, i signed, u unsigned, b bool, h float16 bits, bf bfloat16 bits)
TYPES = {
    "bool": ("wt_bool", "b"), "uint8": ("uint8_t", "u"), "int8": ("int8_t", "i"), "int16": ("int16_t", "i"),
    "int32": ("int32_t", "i"), "int64": ("int64_t", "i"), "uint32": ("uint32_t", "u"),
    "float16": ("wt_half", "h"), "bfloat16": ("wt_bf16", "bf"), "float32": ("float", "f"), "float64": ("double", "f"),
}
# elementwise compute types: narrower integers compute in int32 (uint32 in int64) and wrap on the cast back, which
# gives their own type's results for every op (the host widens them: backends/wasm/elementwise.py)
COMPUTE = ("bool", "int32", "int64", "float32", "float64")
_BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint32": 32, "bool": 8}
_UNSIGNED = {"int8": "uint8_t", "int16": "uint16_t", "int32": "uint32_t", "int64": "uint64_t"}


# ---- casts ------------------------------------------------------------------------------------------------
def _to_wide(src, x):
    """C expression: value x of dtype src as double (floats) or int64 (integers)."""
    cat = TYPES[src][1]
    if cat == "h":
        return f"(double)wt_half_to_f32({x})"
    if cat == "bf":
        return f"(double)wt_bf16_to_f32({x})"
    return x


def _convert(src, dst, x):
    """C expression converting x (dtype src) to dtype dst with PyTorch's CPU rules."""
    s, d = TYPES[src][1], TYPES[dst][1]
    ctype = TYPES[dst][0]
    if src == dst:
        return x
    if d == "b":
        return f"(wt_bool)({_to_wide(src, x)} != 0)"
    if d == "h":
        return f"wt_f32_to_half((float){_to_wide(src, x)})"
    if d == "bf":
        return f"wt_f32_to_bf16((float){_to_wide(src, x)})"
    if d == "f":
        return f"({ctype}){_to_wide(src, x)}"
    if s in ("f", "h", "bf"):  # float -> integer through 32 or 64 bits (x86's truncating conversions)
        via = "wt_f2i64" if dst in ("int64", "uint32") else "wt_f2i32"
        return f"({ctype}){via}({_to_wide(src, x)})"
    return f"({ctype}){x}"


def cast_kernel(src, dst):
    sc, dc = TYPES[src][0], TYPES[dst][0]
    conv = _convert(src, dst, "s[i * ss]")
    fast = _convert(src, dst, "s[i]")
    return f"""EXPORT(cast_{src}_{dst}) void cast_{src}_{dst}({dc} *out, const {sc} *in, const int32_t *g) {{
  wt_iter it;
  wt_iter_init(&it, g, 2);
  for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it)) {{
    {dc} *o = out + it.off[0];
    const {sc} *s = in + it.off[1];
    int32_t so = it.inner[0], ss = it.inner[1], n = it.n;
    if (so == 1 && ss == 1) {{
      for (int32_t i = 0; i < n; i++) o[i] = {fast};
    }} else {{
      for (int32_t i = 0; i < n; i++) o[i * so] = {conv};
    }}
  }}
}}
"""


# ---- elementwise ops ---------------------------------------------------------------------------------------
# op -> {category or "*": C expression over a, b, c of the compute type}; {F} is the libm suffix ("f" for
# float32), {T} the C type, {U} its unsigned type, {W} its width in bits. A category missing from an op's row
# (and no "*") means the op has no kernel for that compute type (the op layer never asks for one).
OPS = {
    "add": {"b": "(a | b)", "*": "({T})(a + b)"},
    "sub": {"i": "({T})(({U})a - ({U})b)", "*": "({T})(a - b)"},
    "mul": {"b": "(a & b)", "i": "({T})(({U})a * ({U})b)", "*": "({T})(a * b)"},
    "div": {"f": "(a / b)"},  # the op layer divides integers through floor_divide and fmod
    "floor_divide": {"f": "wt_floordiv{F}(a, b)", "i": "wt_ifloordiv_{T_}(a, b)", "u": "({T})(a / b)"},
    "remainder": {"f": "wt_remainder{F}(a, b)", "i": "wt_iremainder_{T_}(a, b)", "u": "({T})(a % b)"},
    "fmod": {"f": "fmod{F}(a, b)", "i": "wt_ifmod_{T_}(a, b)", "u": "({T})(a % b)"},
    "pow": {"f": "pow{F}(a, b)", "i": "({T})wt_ipow((int64_t)a, (int64_t)b)", "u": "({T})wt_ipow((int64_t)a, (int64_t)b)",
            "b": "(a | !b)"},
    "maximum": {"f": "wt_max{F}(a, b)", "b": "(a | b)", "*": "(a > b ? a : b)"},
    "minimum": {"f": "wt_min{F}(a, b)", "b": "(a & b)", "*": "(a < b ? a : b)"},
    "atan2": {"f": "atan2{F}(a, b)"},
    "copysign": {"f": "copysign{F}(a, b)"},
    "hypot": {"f": "hypot{F}(a, b)"},
    "logaddexp": {"f": "wt_logaddexp{F}(a, b)"},
    "eq": "(a == b)", "ne": "(a != b)", "lt": "(a < b)", "le": "(a <= b)", "gt": "(a > b)", "ge": "(a >= b)",
    "logical_and": "(a != 0 && b != 0)", "logical_or": "(a != 0 || b != 0)", "logical_xor": "((a != 0) != (b != 0))",
    "logical_not": "(a == 0)",
    "bitwise_and": {"f": None, "*": "({T})(a & b)"},
    "bitwise_or": {"f": None, "*": "({T})(a | b)"},
    "bitwise_xor": {"f": None, "*": "({T})(a ^ b)"},
    "bitwise_not": {"b": "(wt_bool)!a", "f": None, "*": "({T})~a"},
    "bitwise_left_shift": {"i": "((b < 0 || b >= {W}) ? 0 : ({T})(({U})a << b))",
                           "u": "((b >= {W}) ? 0 : ({T})(a << b))"},
    "bitwise_right_shift": {"i": "((b < 0 || b >= {W}) ? (a < 0 ? -1 : 0) : ({T})(a >> b))",
                            "u": "((b >= {W}) ? 0 : ({T})(a >> b))"},
    "isnan": {"f": "(a != a)", "*": "0"},
    "isinf": {"f": "(fabs{F}(a) == INFINITY)", "*": "0"},
    "isfinite": {"f": "(a - a == 0)", "*": "1"},
    "signbit": {"f": "(signbit(a) != 0)", "i": "(a < 0)", "*": "0"},
    "neg": {"i": "({T})(-({U})a)", "b": None, "*": "({T})(-a)"},
    "abs": {"f": "fabs{F}(a)", "i": "({T})(a < 0 ? -({U})a : a)", "*": "a"},
    "sign": {"f": "({T})((a > 0) - (a < 0))", "i": "({T})((a > 0) - (a < 0))", "*": "({T})(a > 0)"},
    "reciprocal": {"f": "(1 / a)"},
    "square": {"b": "a", "i": "({T})(({U})a * ({U})a)", "*": "({T})(a * a)"},
    "sqrt": {"f": "sqrt{F}(a)"},
    "rsqrt": {"f": "(1 / sqrt{F}(a))"},
    "sigmoid": {"f": "(1 / (1 + exp{F}(-a)))"},
    "relu": {"b": "a", "u": "a", "*": "(a < 0 ? 0 : a)"},
    "erfinv": {"f": "({T})wt_erfinv((double)a)"},
    "floor": {"f": "floor{F}(a)", "*": "a"}, "ceil": {"f": "ceil{F}(a)", "*": "a"},
    "round": {"f": "rint{F}(a)", "*": "a"}, "trunc": {"f": "trunc{F}(a)", "*": "a"},
    "frac": {"f": "(a - trunc{F}(a))"},
    "where": "(c0 ? a : b)",
    "clamp": {"f": "wt_min{F}(wt_max{F}(a, b), c)", "*": "(a < b ? b : (a > c ? c : a))"},
}
for _op in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
            "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc"):
    OPS[_op] = {"f": f"{_op}{{F}}(a)"}
assert set(OPS) == set(ELEMENTWISE_OPS), set(OPS) ^ set(ELEMENTWISE_OPS)


# float32 ops with a SIMD128 form (wasm-kernels/simd_math.h: e^x within 2 ulp, tanh 3), for contiguous operands
_ONE = "wasm_f32x4_splat(1.0f)"
SIMD_F32 = {
    "exp": "wt_exp_f32x4(a)",
    "tanh": "wt_tanh_f32x4(a)",
    "sigmoid": f"wasm_f32x4_div({_ONE}, wasm_f32x4_add({_ONE}, wt_exp_f32x4(wasm_f32x4_neg(a))))",
}


def _expr(op, ct):
    row = OPS[op]
    cat = TYPES[ct][1]
    if isinstance(row, dict):
        row = row[cat] if cat in row else row.get("*")
    if row is None:
        return None
    return (row.replace("{F}", "f" if ct == "float32" else "").replace("{T_}", ct).replace("{T}", TYPES[ct][0])
            .replace("{U}", _UNSIGNED.get(ct, TYPES[ct][0])).replace("{W}", str(_BITS.get(ct, 0))))


def ew_kernel(op, ct):
    e = _expr(op, ct)
    if e is None:
        return ""
    n_in = ELEMENTWISE_OPS[op]
    t = TYPES[ct][0]
    ot = "wt_bool" if op in BOOL_RESULT else t
    names = ("a", "b", "c")[:n_in]
    params = [f"{ot} *out"] + [f"const {'wt_bool' if (op == 'where' and k == 0) else t} *{n}_p"
                               for k, n in enumerate(names)]
    k = n_in + 1
    if op == "where":  # where(cond, a, b): the condition is operand a
        e = "(a ? b : c)"
    check = ""
    if op in INT_DIVISIONS and TYPES[ct][1] in "iu":
        check = f"""  {{
    wt_iter z;
    wt_iter_init(&z, g, {k});
    for (int32_t r = 0; r < z.rows; r++, wt_iter_next(&z))
      for (int32_t i = 0; i < z.n; i++)
        if (b_p[z.off[2] + i * z.inner[2]] == 0) return 1;
  }}
"""
    loads = "".join(f"      {'wt_bool' if (op == 'where' and j == 0) else t} {n} = {n}_p[it.off[{j + 1}] + i * it.inner[{j + 1}]];\n"
                    for j, n in enumerate(names))
    fast_loads = "".join(f"        {'wt_bool' if (op == 'where' and j == 0) else t} {n} = {n}_p[it.off[{j + 1}] + i];\n"
                         for j, n in enumerate(names))
    contiguous = " && ".join(f"it.inner[{j}] == 1" for j in range(k))
    # a tensor with Python numbers (stride 0) beside it -- x * 0.5, clamp(x, lo, hi), 1 - x: the numbers read once
    # per row, so the loop vectorizes as the all-contiguous one does
    splats = []
    for j in range(n_in if n_in == 2 else 1):
        cond = " && ".join(f"it.inner[{i}] == {1 if i in (0, j + 1) else 0}" for i in range(k))
        ty = ["wt_bool" if (op == "where" and i == 0) else t for i in range(n_in)]
        once = "".join(f"      const {ty[i]} {n} = {n}_p[it.off[{i + 1}]];\n" for i, n in enumerate(names) if i != j)
        splats.append(f"""    }} else if ({cond}) {{
{once}      for (int32_t i = 0; i < it.n; i++) {{
        {ty[j]} {names[j]} = {names[j]}_p[it.off[{j + 1}] + i];
        o[i] = ({ot})({e});
      }}
""")
    simd = ""
    if ct == "float32" and op in SIMD_F32:  # whole vectors first (libm's scalar expf would not vectorize)
        simd = f"""      for (; i + 4 <= it.n; i += 4) {{
        v128_t a = wasm_v128_load(a_p + it.off[1] + i);
        wasm_v128_store(o + i, {SIMD_F32[op]});
      }}
"""
    return f"""EXPORT(ew_{op}_{ct}) int ew_{op}_{ct}({", ".join(params)}, const int32_t *g) {{
{check}  wt_iter it;
  wt_iter_init(&it, g, {k});
  for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it)) {{
    {ot} *o = out + it.off[0];
    if ({contiguous}) {{
      int32_t i = 0;
{simd}      for (; i < it.n; i++) {{
{fast_loads}        o[i] = ({ot})({e});
      }}
{"".join(splats) if n_in > 1 else ""}    }} else {{
      for (int32_t i = 0; i < it.n; i++) {{
{loads}        o[i * it.inner[0]] = ({ot})({e});
      }}
    }}
  }}
  return 0;
}}
"""


def chain_kernel(ct):
    """C of ew_chain_<ct>(prog, n): the program ``prog`` (int32 words, backends/wasm/chain.py) is [n_numbers, n_slots,
    n_ops, 0, the numbers' bytes (8 each), (kind, p, q) per slot, (opcode, dst, a, b) per op]; a slot is memory (kind 0:
    p the byte address of element 0), a scratch register (p its index) or a number filled into register p once (its
    bytes at word q). Each op runs over a block of BLOCK elements before the next: values stay in cache, and registers
    never reach memory. BLOCK is a multiple of 4, so the SIMD forms cover the same elements as the per-op kernels'
    (all but the last n % 4): the results are bit-identical to the per-op kernels'."""
    t = TYPES[ct][0]
    cases = []
    for code, op in enumerate(CHAIN_OPS):
        e = _expr(op, ct)
        if e is None or (op in INT_DIVISIONS and TYPES[ct][1] in "iu"):  # (integer divisions run per op: they raise)
            continue
        simd = ""
        if ct == "float32" and op in SIMD_F32:
            simd = (f"for (; i + 4 <= m; i += 4) {{ v128_t a = wasm_v128_load(A + i); "
                    f"wasm_v128_store(D + i, {SIMD_F32[op]}); }} ")
        load = f"{t} a = A[i]" + (", b = B[i]" if ELEMENTWISE_OPS[op] == 2 else "")
        cases.append(f"      case {code}: {{ int32_t i = 0; {simd}for (; i < m; i++) {{ {load}; D[i] = ({t})({e}); }} "
                     "} break;")
    cases = "\n".join(cases)
    return f"""EXPORT(ew_chain_{ct}) void ew_chain_{ct}(const int32_t *prog, int32_t n) {{
  {t} reg[{REGISTERS}][{BLOCK}] __attribute__((aligned(16)));
  int32_t n_slots = prog[1], n_ops = prog[2];
  const int32_t *slot = prog + 4 + 2 * prog[0], *ops = slot + 3 * n_slots;
  for (int32_t s = 0; s < n_slots; s++)
    if (slot[3 * s] == {SLOT_NUMBER}) {{
      {t} v;
      __builtin_memcpy(&v, prog + slot[3 * s + 2], sizeof v);
      for (int32_t i = 0; i < {BLOCK}; i++) reg[slot[3 * s + 1]][i] = v;
    }}
#define PTR(s) (slot[3 * (s)] != {SLOT_MEMORY} ? reg[slot[3 * (s) + 1]] : ({t} *)(intptr_t)slot[3 * (s) + 1] + base)
  for (int32_t base = 0; base < n; base += {BLOCK}) {{
    int32_t m = n - base < {BLOCK} ? n - base : {BLOCK};
    for (int32_t k = 0; k < n_ops; k++) {{
      const int32_t *o = ops + 4 * k;
      // never one another's memory (chain.py: a result's register or Storage is none of its operands'), so restrict
      {t} *restrict D = PTR(o[1]);
      const {t} *restrict A = PTR(o[2]), *restrict B = PTR(o[3]);
      switch (o[0]) {{
{cases}
      }}
    }}
  }}
#undef PTR
}}
"""


def generated_sources():
    """{file name: C text} of the generated kernel files."""
    head = "// generated by wasm-kernels/generate.py at build time: do not edit\n"
    casts = head + '#include "kernels.h"\n\n' + "".join(cast_kernel(s, d) for s in TYPES for d in TYPES)
    ew = head + '#include "kernels.h"\n#include "math_ops.h"\n#include "simd_math.h"\n\n' + "".join(
        ew_kernel(op, ct) for op in ELEMENTWISE_OPS for ct in COMPUTE) + "".join(chain_kernel(ct) for ct in CHAIN_TYPES)
    return {"casts.c": casts, "elementwise.c": ew}
