/* float8 <-> float32 as c10 converts (PyTorch's CPU): into a format, round to nearest even on float32's bits
 * (e4m3fn saturates to +-448, keeping NaN; e5m2 overflows to inf; the fnuz formats have one NaN, 0x80, and no -0;
 * e8m0fnu keeps the exponent, rounding up from half its mantissa); out of a format, exact (NaN payloads as c10's).
 * The cast kernels of wasm-kernels/generate.py call wt_f32_to_<format> and wt_<format>_to_f32. */
#ifndef WASM_KERNELS_FLOAT8_H
#define WASM_KERNELS_FLOAT8_H

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

static inline wt_f8 wt_f32_to_float8_e4m3fn(float f) { return wt_f8_from_f32(f, 3, 7, 0, 0); }
static inline wt_f8 wt_f32_to_float8_e4m3fnuz(float f) { return wt_f8_from_f32(f, 3, 8, 1, 0); }
static inline wt_f8 wt_f32_to_float8_e5m2(float f) { return wt_f8_from_f32(f, 2, 15, 0, 1); }
static inline wt_f8 wt_f32_to_float8_e5m2fnuz(float f) { return wt_f8_from_f32(f, 2, 16, 1, 0); }
static inline float wt_float8_e4m3fn_to_f32(wt_f8 b) { return wt_f8_to_f32(b, 3, 7, 0, 0); }
static inline float wt_float8_e4m3fnuz_to_f32(wt_f8 b) { return wt_f8_to_f32(b, 3, 8, 1, 0); }
static inline float wt_float8_e5m2_to_f32(wt_f8 b) { return wt_f8_to_f32(b, 2, 15, 0, 1); }
static inline float wt_float8_e5m2fnuz_to_f32(wt_f8 b) { return wt_f8_to_f32(b, 2, 16, 1, 0); }

// e8m0fnu: 2^(b - 127), 0xff the NaN (b = 0 is float32's subnormal 2^-127)
static inline float wt_float8_e8m0fnu_to_f32(wt_f8 b) {
  return wt_bits_f32(b == 0xffu ? 0x7f800001u : b == 0 ? 0x400000u : (uint32_t)b << 23);
}

static inline wt_f8 wt_f32_to_float8_e8m0fnu(float f) {
  uint32_t u = wt_f32_bits(f), e = (u >> 23) & 0xffu;
  if (e == 0xffu) return 0xff;
  return (wt_f8)(e + ((u & 0x400000u) && ((u & 0x3fffffu) || e > 0)));
}

#endif
