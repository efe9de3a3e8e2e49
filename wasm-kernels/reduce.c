// reduce.c -- reductions of a contiguous (outer, red, inner) block into (outer, inner): sum, prod, amax, amin
// (NaN propagates), all/any (bool), argmax/argmin (int64, first occurrence; NaN counts as the extreme, its first
// occurrence wins, as PyTorch). Float sums along a contiguous row (inner == 1) are pairwise: 8 running sums per
// 128-element block, blocks added as a binary tree (NumPy's scheme, so float32 sums keep its accuracy); across rows
// (inner > 1) each output accumulates its column in order, in double for float32.
#include <math.h>

#include "kernels.h"

#define WT_PAIRWISE(T, A)                                                                   \
  static A pairwise_##T(const T *x, int32_t n) {                                            \
    if (n <= 128) {                                                                         \
      A s[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                    \
      int32_t i = 0;                                                                        \
      for (; i + 8 <= n; i += 8)                                                            \
        for (int j = 0; j < 8; j++) s[j] += x[i + j];                                       \
      A r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));              \
      for (; i < n; i++) r += x[i];                                                         \
      return r;                                                                             \
    }                                                                                       \
    int32_t h = n / 2;                                                                      \
    h -= h % 8;                                                                             \
    return pairwise_##T(x, h) + pairwise_##T(x + h, n - h);                                 \
  }
WT_PAIRWISE(float, float)
WT_PAIRWISE(double, double)

#define WT_SUM_FLOAT(T, S, A)                                                               \
  EXPORT(reduce_sum_##S) void reduce_sum_##S(T *out, const T *in, int32_t outer, int32_t red, int32_t inner) { \
    for (int32_t o = 0; o < outer; o++) {                                                   \
      const T *x = in + (int64_t)o * red * inner;                                           \
      if (inner == 1) {                                                                     \
        out[o] = (T)pairwise_##T(x, red);                                                   \
        continue;                                                                           \
      }                                                                                     \
      for (int32_t i = 0; i < inner; i++) {                                                 \
        A s = 0;                                                                            \
        for (int32_t r = 0; r < red; r++) s += x[(int64_t)r * inner + i];                   \
        out[(int64_t)o * inner + i] = (T)s;                                                 \
      }                                                                                     \
    }                                                                                       \
  }
WT_SUM_FLOAT(float, float32, double)
WT_SUM_FLOAT(double, float64, double)

// a generic fold: acc starts at INIT, takes each x through STEP(acc, x)
#define WT_FOLD(NAME, T, S, RT, INIT, STEP)                                                 \
  EXPORT(reduce_##NAME##_##S) void reduce_##NAME##_##S(RT *out, const T *in, int32_t outer, int32_t red, int32_t inner) { \
    for (int32_t o = 0; o < outer; o++) {                                                   \
      const T *x = in + (int64_t)o * red * inner;                                           \
      RT *y = out + (int64_t)o * inner;                                                     \
      for (int32_t i = 0; i < inner; i++) y[i] = (RT)(INIT);                                \
      for (int32_t r = 0; r < red; r++) {                                                   \
        const T *row = x + (int64_t)r * inner;                                              \
        for (int32_t i = 0; i < inner; i++) {                                               \
          RT acc = y[i];                                                                    \
          T v = row[i];                                                                     \
          y[i] = (RT)(STEP);                                                                \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }

#define WT_NANMAX_STEP ((acc != acc || v != v) ? acc + v : (v > acc ? v : acc))
#define WT_NANMIN_STEP ((acc != acc || v != v) ? acc + v : (v < acc ? v : acc))
#define WT_FLOAT_FOLDS(T, S)                                                                \
  WT_FOLD(prod, T, S, T, 1, acc * v)                                                        \
  WT_FOLD(amax, T, S, T, -INFINITY, WT_NANMAX_STEP)                                         \
  WT_FOLD(amin, T, S, T, INFINITY, WT_NANMIN_STEP)
WT_FLOAT_FOLDS(float, float32)
WT_FLOAT_FOLDS(double, float64)

// integers wrap as their own type's arithmetic (the op layer asks for int64 sums of narrower integers)
#define WT_INT_FOLDS(T, S, U, LO, HI)                                                       \
  WT_FOLD(sum, T, S, T, 0, (U)acc + (U)v)                                                   \
  WT_FOLD(prod, T, S, T, 1, (U)acc * (U)v)                                                  \
  WT_FOLD(amax, T, S, T, LO, (v > acc ? v : acc))                                           \
  WT_FOLD(amin, T, S, T, HI, (v < acc ? v : acc))
WT_INT_FOLDS(int64_t, int64, uint64_t, INT64_MIN, INT64_MAX)
WT_INT_FOLDS(int32_t, int32, uint32_t, INT32_MIN, INT32_MAX)
WT_INT_FOLDS(int16_t, int16, uint16_t, INT16_MIN, INT16_MAX)
WT_INT_FOLDS(int8_t, int8, uint8_t, INT8_MIN, INT8_MAX)
WT_INT_FOLDS(uint8_t, uint8, uint8_t, 0, UINT8_MAX)
WT_INT_FOLDS(uint32_t, uint32, uint32_t, 0, UINT32_MAX)
WT_FOLD(all, wt_bool, bool, wt_bool, 1, acc & v)
WT_FOLD(any, wt_bool, bool, wt_bool, 0, acc | v)
WT_FOLD(sum, wt_bool, bool, wt_bool, 0, acc | v)
WT_FOLD(prod, wt_bool, bool, wt_bool, 1, acc & v)
WT_FOLD(amax, wt_bool, bool, wt_bool, 0, acc | v)
WT_FOLD(amin, wt_bool, bool, wt_bool, 1, acc & v)

// argmax/argmin: the first extreme along red; a NaN beats every number and the first NaN wins
#define WT_ARG(NAME, T, S, BETTER)                                                          \
  EXPORT(arg##NAME##_##S) void arg##NAME##_##S(int64_t *out, const T *in, int32_t outer, int32_t red, int32_t inner) { \
    for (int32_t o = 0; o < outer; o++) {                                                   \
      const T *x = in + (int64_t)o * red * inner;                                           \
      for (int32_t i = 0; i < inner; i++) {                                                 \
        T best = x[i];                                                                      \
        int64_t at = 0;                                                                     \
        for (int32_t r = 1; r < red && best == best; r++) {                                 \
          T v = x[(int64_t)r * inner + i];                                                  \
          if (BETTER) {                                                                     \
            best = v;                                                                       \
            at = r;                                                                         \
          }                                                                                 \
        }                                                                                   \
        out[(int64_t)o * inner + i] = at;                                                   \
      }                                                                                     \
    }                                                                                       \
  }
#define WT_ARGS(T, S)                                                                       \
  WT_ARG(max, T, S, (v > best || v != v))                                                   \
  WT_ARG(min, T, S, (v < best || v != v))
WT_ARGS(float, float32)
WT_ARGS(double, float64)
WT_ARGS(int64_t, int64)
WT_ARGS(int32_t, int32)
WT_ARGS(int16_t, int16)
WT_ARGS(int8_t, int8)
WT_ARGS(uint8_t, uint8)
WT_ARGS(uint32_t, uint32)
WT_ARGS(wt_bool, bool)
