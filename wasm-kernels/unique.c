// unique.c -- torch.unique's grouping. unique_sorted_<t>: from values sorted stably (v) and the positions they came
// from (idx), the distinct values (a NaN is never equal to anything: each is its own value, as PyTorch), each
// element's group (inverse, at its original position) and the group sizes; returns the number of groups.
// sort_rows_<t> orders the row numbers of a (rows x cols) array lexicographically (stable merge sort),
// group_rows_<t> then gives each row's group, the group sizes and each group's first row; returns the group count.
#include "kernels.h"

#define WT_UNIQUE(T, S)                                                                                       \
  EXPORT(unique_sorted_##S) int32_t unique_sorted_##S(const T *v, const int64_t *idx, int32_t n, T *uvals,    \
                                                      int64_t *inverse, int64_t *counts) {                    \
    int32_t g = -1;                                                                                           \
    for (int32_t i = 0; i < n; i++) {                                                                         \
      if (i == 0 || !(v[i] == v[i - 1])) {                                                                    \
        g++;                                                                                                  \
        uvals[g] = v[i];                                                                                      \
        counts[g] = 0;                                                                                        \
      }                                                                                                       \
      counts[g]++;                                                                                            \
      inverse[idx[i]] = g;                                                                                    \
    }                                                                                                         \
    return g + 1;                                                                                             \
  }                                                                                                           \
  static int rowcmp_##S(const T *x, int32_t cols, int32_t a, int32_t b) {                                     \
    const T *p = x + (int64_t)a * cols, *q = x + (int64_t)b * cols;                                           \
    for (int32_t j = 0; j < cols; j++) {                                                                      \
      if (p[j] < q[j]) return -1;                                                                             \
      if (p[j] > q[j]) return 1;                                                                              \
    }                                                                                                         \
    return 0;                                                                                                 \
  }                                                                                                           \
  EXPORT(sort_rows_##S) void sort_rows_##S(const T *x, int32_t rows, int32_t cols, int32_t *perm,           \
                                           int32_t *tmp) {                                                    \
    for (int32_t i = 0; i < rows; i++) perm[i] = i;                                                           \
    int32_t *a = perm, *b = tmp;                                                                              \
    for (int32_t w = 1; w < rows; w *= 2) {                                                                   \
      for (int32_t lo = 0; lo < rows; lo += 2 * w) {                                                          \
        int32_t mid = lo + w < rows ? lo + w : rows, hi = lo + 2 * w < rows ? lo + 2 * w : rows;              \
        int32_t i = lo, j = mid, k = lo;                                                                      \
        while (i < mid && j < hi) b[k++] = rowcmp_##S(x, cols, a[j], a[i]) < 0 ? a[j++] : a[i++];             \
        while (i < mid) b[k++] = a[i++];                                                                      \
        while (j < hi) b[k++] = a[j++];                                                                       \
      }                                                                                                       \
      int32_t *t = a;                                                                                         \
      a = b;                                                                                                  \
      b = t;                                                                                                  \
    }                                                                                                         \
    if (a != perm)                                                                                            \
      for (int32_t i = 0; i < rows; i++) perm[i] = a[i];                                                      \
  }                                                                                                           \
  EXPORT(group_rows_##S) int32_t group_rows_##S(const T *x, int32_t rows, int32_t cols, const int32_t *perm,  \
                                                int64_t *inverse, int64_t *counts, int64_t *firsts) {         \
    int32_t g = -1;                                                                                           \
    for (int32_t i = 0; i < rows; i++) {                                                                      \
      if (i == 0 || rowcmp_##S(x, cols, perm[i], perm[i - 1]) != 0) {                                         \
        g++;                                                                                                  \
        firsts[g] = perm[i];                                                                                  \
        counts[g] = 0;                                                                                        \
      }                                                                                                       \
      counts[g]++;                                                                                            \
      inverse[perm[i]] = g;                                                                                   \
    }                                                                                                         \
    return g + 1;                                                                                             \
  }
WT_UNIQUE(float, float32)
WT_UNIQUE(double, float64)
WT_UNIQUE(int64_t, int64)
