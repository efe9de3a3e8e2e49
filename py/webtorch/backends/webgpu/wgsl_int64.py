"""int64 on the webgpu device: two 32-bit words per element, ``vec2<u32>`` (x: low word, y: high word, two's
complement), and the WGSL helpers that give PyTorch's 64-bit integer semantics on them.

Arithmetic wraps modulo 2^64 as PyTorch's does (add/sub/mul/neg/pow); comparisons are signed; division and
remainder go through an unsigned 64-bit long division on the magnitudes (one u32 division when both fit in 32
bits), with a zero divisor answered as WGSL answers it for i32 (quotient = dividend, remainder 0), as the i32
kernels do; conversions to f32 round to nearest even (as PyTorch's int64 -> float32), from f32 truncate toward
zero and give INT64_MIN for NaN, infinities and values outside the range (PyTorch's CPU: cvttss2si).
"""
from . import wgsl_select

TYPE = "vec2<u32>"  # storage and compute type of int64 in generated WGSL
MIN_WORDS = (0, 0x80000000)
MAX_WORDS = (0xFFFFFFFF, 0x7FFFFFFF)

HELPERS = {
    "wt_i64_add": """fn wt_i64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}""",
    "wt_i64_sub": """fn wt_i64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}""",
    "wt_i64_neg": "fn wt_i64_neg(a: vec2<u32>) -> vec2<u32> { return wt_i64_sub(vec2<u32>(0u), a); }",
    "wt_i64_isneg": "fn wt_i64_isneg(a: vec2<u32>) -> bool { return (a.y >> 31u) != 0u; }",
    "wt_i64_abs": "fn wt_i64_abs(a: vec2<u32>) -> vec2<u32> { return select(a, wt_i64_neg(a), wt_i64_isneg(a)); }",
    "wt_u32_mulhi": """fn wt_u32_mulhi(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let mid = a1 * b0;
  let cross = ((a0 * b0) >> 16u) + (mid & 0xffffu) + a0 * b1;
  return a1 * b1 + (mid >> 16u) + (cross >> 16u);
}""",
    "wt_i64_mul": """fn wt_i64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x * b.x, wt_u32_mulhi(a.x, b.x) + a.x * b.y + a.y * b.x);
}""",
    "wt_i64_lt": """fn wt_i64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
  let ah = bitcast<i32>(a.y); let bh = bitcast<i32>(b.y);
  return ah < bh || (ah == bh && a.x < b.x);
}""",
    "wt_i64_eq": "fn wt_i64_eq(a: vec2<u32>, b: vec2<u32>) -> bool { return a.x == b.x && a.y == b.y; }",
    "wt_i64_nz": "fn wt_i64_nz(a: vec2<u32>) -> bool { return (a.x | a.y) != 0u; }",
    "wt_i64_from_i32": """fn wt_i64_from_i32(v: i32) -> vec2<u32> {
  return vec2<u32>(bitcast<u32>(v), select(0u, 0xffffffffu, v < 0));
}""",
    # an int64 index as i32 for a range check: a value past int32 saturates (so the check fails), never wraps
    "wt_i64_sat_i32": """fn wt_i64_sat_i32(a: vec2<u32>) -> i32 {
  let v = bitcast<i32>(a.x);
  if (a.y == select(0u, 0xffffffffu, v < 0)) { return v; }
  return select(2147483647, -2147483647 - 1, (a.y >> 31u) != 0u);
}""",
    "wt_i64_from_f32": """fn wt_i64_from_f32(v: f32) -> vec2<u32> {
  let t = trunc(v);
  let m = abs(t);
  if (!(m < 9223372036854775808.0)) { return vec2<u32>(0u, 0x80000000u); }
  let hi = floor(m * 2.3283064365386963e-10);
  let w = vec2<u32>(u32(m - hi * 4294967296.0), u32(hi));
  return select(w, wt_i64_neg(w), t < 0.0);
}""",
    # correctly rounded (to nearest even): the top 24 significant bits, then the rest decides the rounding
    "wt_i64_to_f32": """fn wt_i64_to_f32(a: vec2<u32>) -> f32 {
  let neg = wt_i64_isneg(a);
  let m = select(a, wt_i64_neg(a), neg);
  if (m.y == 0u && m.x < 16777216u) { return select(f32(m.x), -f32(m.x), neg); }
  var top = m.y;
  var rest = m.x;
  var lz = countLeadingZeros(m.y);
  if (m.y == 0u) {
    lz = 32u + countLeadingZeros(m.x);
    top = m.x << (lz - 32u);
    rest = 0u;
  } else if (lz > 0u) {
    top = (m.y << lz) | (m.x >> (32u - lz));
    rest = m.x << lz;
  }
  var mant = top >> 8u;
  var e = 63u - lz;
  let low = top & 0xffu;
  if (low > 0x80u || (low == 0x80u && (rest != 0u || (mant & 1u) == 1u))) {
    mant = mant + 1u;
    if (mant == 0x1000000u) { mant = 0x800000u; e = e + 1u; }
  }
  return bitcast<f32>(((e + 127u) << 23u) | (mant & 0x7fffffu) | select(0u, 0x80000000u, neg));
}""",
    # unsigned n / d for d != 0 and n, d <= 2^63 (magnitudes): (quotient, remainder) as vec4 (q.xy, r.zw)
    "wt_u64_divmod": """fn wt_u64_divmod(n: vec2<u32>, d: vec2<u32>) -> vec4<u32> {
  if (n.y == 0u && d.y == 0u) { return vec4<u32>(n.x / d.x, 0u, n.x % d.x, 0u); }
  var q = vec2<u32>(0u);
  var r = vec2<u32>(0u);
  for (var k = 63u; k < 64u; k = k - 1u) {
    let bit = select((n.x >> k) & 1u, (n.y >> (k - 32u)) & 1u, k >= 32u);
    r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
    if (r.y > d.y || (r.y == d.y && r.x >= d.x)) {
      r = wt_i64_sub(r, d);
      if (k >= 32u) { q.y = q.y | (1u << (k - 32u)); } else { q.x = q.x | (1u << k); }
    }
  }
  return vec4<u32>(q, r);
}""",
    # signed division truncating toward zero: (quotient, remainder with the dividend's sign); b == 0: (a, 0)
    "wt_i64_divmod": """fn wt_i64_divmod(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
  if (!wt_i64_nz(b)) { return vec4<u32>(a, 0u, 0u); }
  let na = wt_i64_isneg(a);
  let nb = wt_i64_isneg(b);
  let qr = wt_u64_divmod(wt_i64_abs(a), wt_i64_abs(b));
  return vec4<u32>(select(qr.xy, wt_i64_neg(qr.xy), na != nb), select(qr.zw, wt_i64_neg(qr.zw), na));
}""",
    "wt_i64_floordiv": """fn wt_i64_floordiv(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let qr = wt_i64_divmod(a, b);
  let fix = wt_i64_nz(qr.zw) && (wt_i64_isneg(a) != wt_i64_isneg(b));
  return select(qr.xy, wt_i64_sub(qr.xy, vec2<u32>(1u, 0u)), fix);
}""",
    "wt_i64_rem": """fn wt_i64_rem(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let r = wt_i64_divmod(a, b).zw;
  let fix = wt_i64_nz(r) && (wt_i64_isneg(r) != wt_i64_isneg(b));
  return select(r, wt_i64_add(r, b), fix);
}""",
    # a ** b wrapping modulo 2^64; a negative exponent gives 0 unless |a| == 1 (PyTorch's integer pow)
    "wt_i64_pow": """fn wt_i64_pow(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let one = vec2<u32>(1u, 0u);
  if (wt_i64_isneg(b)) {
    if (wt_i64_eq(a, one)) { return one; }
    if (wt_i64_eq(a, vec2<u32>(0xffffffffu))) { return select(a, one, (b.x & 1u) == 0u); }
    return vec2<u32>(0u);
  }
  var r = one;
  var x = a;
  var e = b;
  loop {
    if (!wt_i64_nz(e)) { break; }
    if ((e.x & 1u) == 1u) { r = wt_i64_mul(r, x); }
    x = wt_i64_mul(x, x);
    e = vec2<u32>((e.x >> 1u) | (e.y << 31u), e.y >> 1u);
  }
  return r;
}""",
    # shifts by < 0 or >= 64 give 0 (left) or the sign (right), as PyTorch's
    "wt_i64_shl": """fn wt_i64_shl(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let s = b.x;
  if (b.y != 0u || s >= 64u) { return vec2<u32>(0u); }
  if (s == 0u) { return a; }
  if (s >= 32u) { return vec2<u32>(0u, a.x << (s - 32u)); }
  return vec2<u32>(a.x << s, (a.y << s) | (a.x >> (32u - s)));
}""",
    "wt_i64_shr": """fn wt_i64_shr(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let s = b.x;
  let fill = select(0u, 0xffffffffu, wt_i64_isneg(a));
  if (b.y != 0u || s >= 64u) { return vec2<u32>(fill); }
  if (s == 0u) { return a; }
  if (s >= 32u) { return vec2<u32>(bitcast<u32>(bitcast<i32>(a.y) >> (s - 32u)), fill); }
  return vec2<u32>((a.x >> s) | (a.y << (32u - s)), bitcast<u32>(bitcast<i32>(a.y) >> s));
}""",
}

DEPS = {
    "wt_i64_shr": ("wt_i64_isneg",),
    "wt_i64_neg": ("wt_i64_sub",), "wt_i64_abs": ("wt_i64_neg", "wt_i64_isneg"),
    "wt_i64_mul": ("wt_u32_mulhi",), "wt_i64_from_f32": ("wt_i64_neg",),
    "wt_i64_to_f32": ("wt_i64_neg", "wt_i64_isneg"), "wt_u64_divmod": ("wt_i64_sub",),
    "wt_i64_divmod": ("wt_u64_divmod", "wt_i64_nz", "wt_i64_isneg", "wt_i64_abs", "wt_i64_neg"),
    "wt_i64_floordiv": ("wt_i64_divmod", "wt_i64_sub"), "wt_i64_rem": ("wt_i64_divmod", "wt_i64_add"),
    "wt_i64_pow": ("wt_i64_isneg", "wt_i64_eq", "wt_i64_mul", "wt_i64_nz"),
}


def words(v):
    """(low, high) 32-bit words of Python int v as int64 (two's complement)."""
    v &= (1 << 64) - 1
    return v & 0xFFFFFFFF, v >> 32


def from_ct(e, ct, need):
    """WGSL int64 of expression ``e`` of compute type ``ct`` (f32, i32, u32 or bool)."""
    if ct == "f32":
        need("wt_i64_from_f32")
        return f"wt_i64_from_f32({e})"
    if ct == "i32":
        need("wt_i64_from_i32")
        return f"wt_i64_from_i32({e})"
    if ct == "u32":
        return f"vec2<u32>({e}, 0u)"
    return f"vec2<u32>(select(0u, 1u, {e}), 0u)"


def to_ct(e, ct, need):
    """WGSL value of compute type ``ct`` of int64 expression ``e`` (integers keep the low word, as PyTorch's
    narrowing casts)."""
    if ct == "f32":
        need("wt_i64_to_f32")
        return f"wt_i64_to_f32({e})"
    if ct == "i32":
        return f"bitcast<i32>(({e}).x)"
    if ct == "u32":
        return f"({e}).x"
    need("wt_i64_nz")
    return f"wt_i64_nz({e})"


def expr(op, args, need):
    """WGSL for elementwise ``op`` of op_facts.ELEMENTWISE_OPS over int64 argument expressions ``args``, or None
    when the op has no int64 form (the float ops compute in float32: the op layer promotes)."""
    a = args[0] if args else None
    b = args[1] if len(args) > 1 else None

    def h(name, *xs):
        need(name)
        return f"{name}({', '.join(xs)})"

    binary = {"add": "wt_i64_add", "sub": "wt_i64_sub", "mul": "wt_i64_mul", "floor_divide": "wt_i64_floordiv",
              "remainder": "wt_i64_rem", "pow": "wt_i64_pow"}
    if op == "copy":
        return a
    if op in binary:
        return h(binary[op], a, b)
    if op == "fmod":
        need("wt_i64_divmod")
        return f"wt_i64_divmod({a}, {b}).zw"
    if op == "square":
        return h("wt_i64_mul", a, a)
    if op == "neg":
        return h("wt_i64_neg", a)
    if op == "abs":
        return h("wt_i64_abs", a)
    if op == "sign":
        return f"select(vec2<u32>(select(0u, 1u, {h('wt_i64_nz', a)}), 0u), vec2<u32>(0xffffffffu), " \
               f"{h('wt_i64_isneg', a)})"
    if op == "relu":
        return f"select({a}, vec2<u32>(0u), {h('wt_i64_isneg', a)})"
    if op in ("maximum", "minimum"):
        return f"select({a}, {b}, {h('wt_i64_lt', a, b) if op == 'maximum' else h('wt_i64_lt', b, a)})"
    if op in ("eq", "ne"):
        e = h("wt_i64_eq", a, b)
        return e if op == "eq" else f"!{e}"
    if op in ("lt", "gt"):
        return h("wt_i64_lt", a, b) if op == "lt" else h("wt_i64_lt", b, a)
    if op in ("le", "ge"):
        return f"!{h('wt_i64_lt', b, a)}" if op == "le" else f"!{h('wt_i64_lt', a, b)}"
    if op in ("logical_and", "logical_or", "logical_xor", "logical_not"):
        ba = h("wt_i64_nz", a)
        if op == "logical_not":
            return f"!{ba}"
        bb = h("wt_i64_nz", b)
        return {"logical_and": f"({ba} && {bb})", "logical_or": f"({ba} || {bb})",
                "logical_xor": f"({ba} != {bb})"}[op]
    if op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        return f"({a} {dict(bitwise_and='&', bitwise_or='|', bitwise_xor='^')[op]} {b})"
    if op == "bitwise_not":
        return f"(~{a})"
    if op == "bitwise_left_shift":
        return h("wt_i64_shl", a, b)
    if op == "bitwise_right_shift":
        return h("wt_i64_shr", a, b)
    if op in ("isnan", "isinf"):
        return "false"
    if op == "isfinite":
        return "true"
    if op == "signbit":
        return h("wt_i64_isneg", a)
    if op in ("floor", "ceil", "round", "trunc"):  # integral already
        return a
    if op == "where":
        return wgsl_select.where(args)
    if op == "clamp":
        return wgsl_select.clamp(a, b, args[2], lambda p, q: h("wt_i64_lt", p, q))
    return None

