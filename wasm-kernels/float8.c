/* float8 <-> float32 casts of strided views, as c10 converts (PyTorch's CPU): into a format, round to nearest even
 * on float32's bits (e4m3fn saturates to +-448, keeping NaN; e5m2 overflows to inf; the fnuz formats have one NaN,
 * 0x80, and no -0; e8m0fnu keeps the exponent, rounding up from half its mantissa); out of a format, exact (NaN
 * payloads as c10's). The format is a runtime argument, its index in webtorch's _dtype.FLOAT8 (0 e4m3fn, 1 e4m3fnuz,
 * 2 e5m2, 3 e5m2fnuz, 4 e8m0fnu): two kernels serve the five formats. Every other conversion of a float8 goes
 * through float32 on the host (backends/wasm/copies.py); a float8 copy onto its own format is cast_uint8_uint8.
 * Geometry g as kernels.h. */
#include "kernels.h"

typedef uint8_t wt_f8;  // float8 bits, any format

// the IEEE-like formats: m mantissa bits, exponent bias, fnuz (0x80 is the NaN), has_inf (e5m2)
static inline wt_f8 wt_f8_from_f32(float f, uint32_t m, uint32_t bias, int fnuz, int has_inf) {
  uint32_t u = wt_f32_bits(f), sign = u & 0x80000000u, a = u ^ sign;
  uint32_t shift = 23u - m, normal_exp = 128u - bias;  // float32 exponent field of the smallest normal
  uint32_t limit = ((normal_exp + (1u << (7u - m)) - (fnuz ? 1u : 2u)) << 23) + (fnuz || has_inf ? 0u : 0x700000u);
  wt_f8 s = (wt_f8)(sign >> 24), r;
  if (a >= limit) {  // past the largest finite value once rounded, or inf / NaN
    if (fnuz) return 0x80;
    return (wt_f8)((a > 0x7f800000u ? 0x7fu : has_inf ? 0x7cu : 0x7eu) | s);
  }
  if (a < (normal_exp << 23)) {  // subnormal: float32's own addition rounds the mantissa
    uint32_t denorm = (normal_exp + shift) << 23;
    r = (wt_f8)(wt_f32_bits(wt_bits_f32(a) + wt_bits_f32(denorm)) - denorm);
    if (fnuz && r == 0) return 0;
  } else {
    r = (wt_f8)((a + ((bias - 127u) << 23) + (1u << (shift - 1u)) - 1u + ((a >> shift) & 1u)) >> shift);
    if (!fnuz && !has_inf && r == 0x7f) r = 0x7e;  // e4m3fn: rounding onto the NaN pattern saturates
  }
  return r | s;
}

static inline float wt_f8_to_f32(wt_f8 b, uint32_t m, uint32_t bias, int fnuz, int has_inf) {
  uint32_t sign = (uint32_t)(b & 0x80u) << 24, top = (1u << (7u - m)) - 1u;
  uint32_t e = ((uint32_t)b >> m) & top, man = b & ((1u << m) - 1u);
  if (fnuz && b == 0x80) return wt_bits_f32(0x7f800001u);
  if (has_inf && e == top) return wt_bits_f32(sign | 0x7f800000u | (man ? 0x400000u | man << 21 : 0u));
  if (!fnuz && !has_inf && (b & 0x7f) == 0x7f) return wt_bits_f32(sign | 0x7ff00000u);
  float v = e == 0 ? (float)man * wt_bits_f32((128u - bias - m) << 23)
                   : wt_bits_f32(((e + 127u - bias) << 23) | (man << (23u - m)));
  return sign ? -v : v;
}

// e8m0fnu: 2^(b - 127), 0xff the NaN (b = 0 is float32's subnormal 2^-127)
static inline float wt_e8m0_to_f32(wt_f8 b) {
  return wt_bits_f32(b == 0xffu ? 0x7f800001u : b == 0 ? 0x400000u : (uint32_t)b << 23);
}

static inline wt_f8 wt_e8m0_from_f32(float f) {
  uint32_t u = wt_f32_bits(f), e = (u >> 23) & 0xffu;
  if (e == 0xffu) return 0xff;
  return (wt_f8)(e + ((u & 0x400000u) && ((u & 0x3fffffu) || e > 0)));
}

static float to_f32(wt_f8 b, int32_t fmt) {
  switch (fmt) {
    case 0: return wt_f8_to_f32(b, 3, 7, 0, 0);
    case 1: return wt_f8_to_f32(b, 3, 8, 1, 0);
    case 2: return wt_f8_to_f32(b, 2, 15, 0, 1);
    case 3: return wt_f8_to_f32(b, 2, 16, 1, 0);
    default: return wt_e8m0_to_f32(b);
  }
}

static wt_f8 from_f32(float f, int32_t fmt) {
  switch (fmt) {
    case 0: return wt_f8_from_f32(f, 3, 7, 0, 0);
    case 1: return wt_f8_from_f32(f, 3, 8, 1, 0);
    case 2: return wt_f8_from_f32(f, 2, 15, 0, 1);
    case 3: return wt_f8_from_f32(f, 2, 16, 1, 0);
    default: return wt_e8m0_from_f32(f);
  }
}

EXPORT(float8_to_f32) void float8_to_f32(float *out, const wt_f8 *in, const int32_t *g, int32_t fmt) {
  wt_iter it;
  wt_iter_init(&it, g, 2);
  for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it)) {
    float *o = out + it.off[0];
    const wt_f8 *s = in + it.off[1];
    for (int32_t i = 0; i < it.n; i++) o[i * it.inner[0]] = to_f32(s[i * it.inner[1]], fmt);
  }
}

EXPORT(float8_from_f32) void float8_from_f32(wt_f8 *out, const float *in, const int32_t *g, int32_t fmt) {
  wt_iter it;
  wt_iter_init(&it, g, 2);
  for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it)) {
    wt_f8 *o = out + it.off[0];
    const float *s = in + it.off[1];
    for (int32_t i = 0; i < it.n; i++) o[i * it.inner[0]] = from_f32(s[i * it.inner[1]], fmt);
  }
}
