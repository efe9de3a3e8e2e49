// random.c -- Philox4x32-10 draws, the same stream as webgpu-shaders/random_philox.wgsl (block b of a draw starting
// at counter block ``base`` is philox((base + b) low word, base high word + carry, 0, 0) under key = seed; its four
// words give values 4b .. 4b+3). Float math in float32 as the shader's, so uniform and integer draws are
// bit-identical to webgpu and normal draws equal up to the GPU's log/sin/cos rounding.
// kind 0: uniform lo + (hi - lo) * u24; 1: normal (Box-Muller) lo + hi * z; 2: int32 lo + word % range (or uint32
// when lo = 0); 3: the raw words. randperm_sort: sorts (key, index) pairs packed in int64 (an epoch shuffle).
#include <math.h>

#include "kernels.h"

static inline uint32_t mulhi32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }

static void philox(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; r++) {
    uint32_t hi0 = mulhi32(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0];
    uint32_t hi1 = mulhi32(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2];
    uint32_t n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

static inline float unit24(uint32_t u) { return (float)(u >> 8) * 5.9604644775390625e-08f; }

EXPORT(philox_draw) void philox_draw(void *out, int32_t n, int32_t kind, uint32_t seed_lo, uint32_t seed_hi,
                                     uint32_t base_lo, uint32_t base_hi, float lo, float hi, int32_t ilo,
                                     uint32_t range) {
  float *f = (float *)out;
  uint32_t *u = (uint32_t *)out;
  for (int32_t inv = 0; inv * 4 < n; inv++) {
    uint32_t b = base_lo + (uint32_t)inv;
    uint32_t c[4] = {b, base_hi + (b < (uint32_t)inv ? 1u : 0u), 0u, 0u};
    philox(c, seed_lo, seed_hi);
    for (int q = 0; q < 4; q++) {
      int32_t e = inv * 4 + q;
      if (e >= n) break;
      if (kind == 0) {
        f[e] = lo + (hi - lo) * unit24(c[q]);
      } else if (kind == 1) {
        int pair = q / 2;
        float u1 = 1.0f - unit24(c[2 * pair]), u2 = unit24(c[2 * pair + 1]);
        float rad = sqrtf(-2.0f * logf(u1)), th = 6.283185307179586f * u2;
        f[e] = lo + hi * (q % 2 == 0 ? rad * cosf(th) : rad * sinf(th));
      } else if (kind == 2) {
        u[e] = (uint32_t)ilo + c[q] % range;
      } else {
        u[e] = c[q];
      }
    }
  }
}

// bottom-up merge sort of n int64 (tmp: n more); the keys are unique, so the order is the only one
EXPORT(randperm_sort) void randperm_sort(int64_t *x, int64_t *tmp, int32_t n) {
  int64_t *a = x, *b = tmp;
  for (int32_t w = 1; w < n; w *= 2) {
    for (int32_t lo = 0; lo < n; lo += 2 * w) {
      int32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
      while (i < mid && j < hi) b[k++] = a[i] <= a[j] ? a[i++] : a[j++];
      while (i < mid) b[k++] = a[i++];
      while (j < hi) b[k++] = a[j++];
    }
    int64_t *t = a;
    a = b;
    b = t;
  }
  if (a != x)
    for (int32_t i = 0; i < n; i++) x[i] = a[i];
}

// pairs (key << 32 | index) of n int32 keys, and the indices back out of the sorted pairs
EXPORT(randperm_pack) void randperm_pack(int64_t *pairs, const int32_t *keys, int32_t n) {
  for (int32_t i = 0; i < n; i++) pairs[i] = ((int64_t)keys[i] << 32) | (uint32_t)i;
}

EXPORT(randperm_unpack) void randperm_unpack(int64_t *out, const int64_t *pairs, int32_t n) {
  for (int32_t i = 0; i < n; i++) out[i] = pairs[i] & 0xffffffff;
}
