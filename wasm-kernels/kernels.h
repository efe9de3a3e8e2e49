// kernels.h -- what every kernel file shares: the export macro, the element types, the strided iterator and
// the float16/bfloat16 conversions (round to nearest even, as PyTorch's c10::Half / c10::BFloat16).
//
// Calling convention (backends/wasm/runtime.py): pointers are byte addresses in the linear memory, already
// moved to each operand's first element; a geometry block ``g`` (int32) is [nd, shape[nd], strides of operand 0
// [nd], strides of operand 1 [nd], ...] with strides in elements. The host coalesces dims first, so nd >= 1.
#pragma once
#include <stdint.h>

#define EXPORT(name) __attribute__((export_name(#name)))
#define WT_MAXD 16

typedef uint8_t wt_bool;
typedef uint16_t wt_half;  // float16 bits
typedef uint16_t wt_bf16;  // bfloat16 bits

// dst[i] = src[j] for elements of esize bytes (1, 2, 4 or 8): the kernels that move elements of any dtype
static inline void put_element(void *dst, int i, const void *src, int j, int esize) {
  switch (esize) {
  case 1: ((uint8_t *)dst)[i] = ((const uint8_t *)src)[j]; break;
  case 2: ((uint16_t *)dst)[i] = ((const uint16_t *)src)[j]; break;
  case 4: ((uint32_t *)dst)[i] = ((const uint32_t *)src)[j]; break;
  default: ((uint64_t *)dst)[i] = ((const uint64_t *)src)[j]; break;
  }
}

// Walks the rows (all dims but the last) of an nd index space for k operands: off[j] is operand j's element
// offset of the row's first element, inner[j] its stride along the last dim, n the row length.
typedef struct {
  int32_t nd, n, rows, k;
  const int32_t *shape, *st;
  int32_t idx[WT_MAXD], off[4], inner[4];
} wt_iter;

static inline void wt_iter_init(wt_iter *it, const int32_t *g, int k) {
  int32_t nd = g[0];
  it->nd = nd;
  it->k = k;
  it->shape = g + 1;
  it->st = g + 1 + nd;
  it->n = it->shape[nd - 1];
  it->rows = 1;
  for (int d = 0; d < nd - 1; d++) {
    it->rows *= it->shape[d];
    it->idx[d] = 0;
  }
  for (int j = 0; j < k; j++) {
    it->off[j] = 0;
    it->inner[j] = it->st[j * nd + nd - 1];
  }
}

static inline void wt_iter_next(wt_iter *it) {
  int32_t nd = it->nd;
  for (int d = nd - 2; d >= 0; d--) {
    it->idx[d]++;
    for (int j = 0; j < it->k; j++) it->off[j] += it->st[j * nd + d];
    if (it->idx[d] < it->shape[d]) return;
    for (int j = 0; j < it->k; j++) it->off[j] -= it->st[j * nd + d] * it->shape[d];
    it->idx[d] = 0;
  }
}

static inline uint32_t wt_f32_bits(float x) {
  union { float f; uint32_t u; } v = {x};
  return v.u;
}

static inline float wt_bits_f32(uint32_t u) {
  union { uint32_t u; float f; } v = {u};
  return v.f;
}

static inline float wt_half_to_f32(wt_half h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return wt_bits_f32(sign | 0x7f800000u | (man << 13));  // inf / NaN
  if (exp == 0) {  // zero or subnormal: man * 2^-24
    float f = (float)man * 5.9604644775390625e-08f;
    return sign ? -f : f;
  }
  return wt_bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

static inline wt_half wt_f32_to_half(float f) {
  uint32_t u = wt_f32_bits(f), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return (wt_half)(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u));
  if (a >= 0x477ff000u) return (wt_half)(sign | 0x7c00u);  // rounds past 65504: inf
  if (a < 0x38800000u) {  // below the smallest normal half: a multiple of 2^-24, rounded to nearest even
    float m = wt_bits_f32(a) * 16777216.0f;  // exact scaling
    uint32_t q = (uint32_t)m;
    float rest = m - (float)q;
    if (rest > 0.5f || (rest == 0.5f && (q & 1u))) q++;
    return (wt_half)(sign | q);
  }
  uint32_t r = a + 0xfffu + ((a >> 13) & 1u) - 0x38000000u;  // round to nearest even, rebias 127 -> 15
  return (wt_half)(sign | (r >> 13));
}

static inline float wt_bf16_to_f32(wt_bf16 h) { return wt_bits_f32((uint32_t)h << 16); }

static inline wt_bf16 wt_f32_to_bf16(float f) {
  uint32_t u = wt_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (wt_bf16)((u >> 16) | 0x40u);  // quiet NaN
  return (wt_bf16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// float -> integer as x86's cvttss2si/cvttsd2si (PyTorch's CPU casts): truncation, and the "integer indefinite"
// value (the most negative one) for NaN and out-of-range values; narrower integers wrap from 32/64 bits.
static inline int32_t wt_f2i32(double x) {
  return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}

static inline int64_t wt_f2i64(double x) {
  return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}
