// index.c -- the indexing family's data movement, by element size (1, 2, 4, 8 bytes) where only bytes move and by
// dtype where values combine. Every kernel walks a geometry g (kernels.h) over three operands whose third is an
// int64 array of element offsets (already range-checked and scaled by the host):
//   take_<n>:  out[o] = src[s + offs[t]]                    (index, gather)
//   put_<n>:   dst[d + offs[t]] = vals[v]                   (index_put_, scatter_: the last duplicate wins)
//   put_<op>_<dtype>: dst[d + offs[t]] = dst[..] op vals[v] (accumulate / scatter reductions, in index order)
// check_range: the first index outside [lo, hi) in the walk order (its value to *bad), 1 when there is one.
// nonzero_bool: the coordinates (n x nd, int64) of the true elements of a contiguous bool array.
#include "kernels.h"
#include "math_ops.h"

#define WT_MOVE(N, T)                                                                                         \
  EXPORT(take_##N) void take_##N(T *out, const T *src, const int64_t *offs, const int32_t *g) {               \
    wt_iter it;                                                                                               \
    wt_iter_init(&it, g, 3);                                                                                  \
    for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it))                                                  \
      for (int32_t i = 0; i < it.n; i++)                                                                      \
        out[it.off[0] + i * it.inner[0]] = src[it.off[1] + i * it.inner[1] + offs[it.off[2] + i * it.inner[2]]]; \
  }                                                                                                           \
  EXPORT(put_##N) void put_##N(T *dst, const T *vals, const int64_t *offs, const int32_t *g) {               \
    wt_iter it;                                                                                               \
    wt_iter_init(&it, g, 3);                                                                                  \
    for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it))                                                  \
      for (int32_t i = 0; i < it.n; i++)                                                                      \
        dst[it.off[0] + i * it.inner[0] + offs[it.off[2] + i * it.inner[2]]] = vals[it.off[1] + i * it.inner[1]]; \
  }
WT_MOVE(1, uint8_t)
WT_MOVE(2, uint16_t)
WT_MOVE(4, uint32_t)
WT_MOVE(8, uint64_t)

#define WT_PUT_OP(OP, T, S, EXPR)                                                                             \
  EXPORT(put_##OP##_##S) void put_##OP##_##S(T *dst, const T *vals, const int64_t *offs, const int32_t *g) { \
    wt_iter it;                                                                                               \
    wt_iter_init(&it, g, 3);                                                                                  \
    for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it))                                                  \
      for (int32_t i = 0; i < it.n; i++) {                                                                    \
        T *p = dst + it.off[0] + i * it.inner[0] + offs[it.off[2] + i * it.inner[2]];                         \
        T a = *p, b = vals[it.off[1] + i * it.inner[1]];                                                      \
        *p = (T)(EXPR);                                                                                       \
      }                                                                                                       \
  }
#define WT_PUT_FLOAT(T, S, F)                                                                                 \
  WT_PUT_OP(sum, T, S, a + b)                                                                                 \
  WT_PUT_OP(prod, T, S, a * b)                                                                                \
  WT_PUT_OP(amax, T, S, wt_max##F(a, b))                                                                      \
  WT_PUT_OP(amin, T, S, wt_min##F(a, b))
WT_PUT_FLOAT(float, float32, f)
WT_PUT_FLOAT(double, float64, )
#define WT_PUT_INT(T, S, U)                                                                                   \
  WT_PUT_OP(sum, T, S, (U)a + (U)b)                                                                           \
  WT_PUT_OP(prod, T, S, (U)a * (U)b)                                                                          \
  WT_PUT_OP(amax, T, S, a > b ? a : b)                                                                        \
  WT_PUT_OP(amin, T, S, a < b ? a : b)
WT_PUT_INT(int64_t, int64, uint64_t)
WT_PUT_INT(int32_t, int32, uint32_t)
WT_PUT_INT(int16_t, int16, uint16_t)
WT_PUT_INT(int8_t, int8, uint8_t)
WT_PUT_INT(uint8_t, uint8, uint8_t)
WT_PUT_INT(uint32_t, uint32, uint32_t)
WT_PUT_OP(sum, wt_bool, bool, a | b)
WT_PUT_OP(prod, wt_bool, bool, a & b)
WT_PUT_OP(amax, wt_bool, bool, a | b)
WT_PUT_OP(amin, wt_bool, bool, a & b)

EXPORT(check_range) int check_range(const int64_t *idx, const int32_t *g, int64_t lo, int64_t hi, int64_t *bad) {
  wt_iter it;
  wt_iter_init(&it, g, 1);
  for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it))
    for (int32_t i = 0; i < it.n; i++) {
      int64_t v = idx[it.off[0] + i * it.inner[0]];
      if (v < lo || v >= hi) {
        *bad = v;
        return 1;
      }
    }
  return 0;
}

EXPORT(count_true) int32_t count_true(const wt_bool *m, int32_t n) {
  int32_t c = 0;
  for (int32_t i = 0; i < n; i++) c += m[i] != 0;
  return c;
}

EXPORT(nonzero_bool) void nonzero_bool(int64_t *out, const wt_bool *m, int32_t n, int32_t nd, const int32_t *shape) {
  int64_t idx[WT_MAXD] = {0};
  for (int32_t i = 0; i < n; i++) {
    if (m[i]) {
      for (int d = 0; d < nd; d++) *out++ = idx[d];
    }
    for (int d = nd - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}
