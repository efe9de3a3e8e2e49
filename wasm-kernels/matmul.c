// matmul.c -- GEMM: C (M x N, row stride ldc) = A (M x K) B (K x N), or C += A B when accumulate; operands by
// (pointer, row stride, column stride) in elements, so a transposed operand needs no copy. wt_gemm_f32/_f64/_i64
// are C entry points (conv.c calls them per sample and group); gemm_* the exports the host calls per batch entry.
#include "kernels.h"

#define WT_GEMM(T, S)                                                                                          \
  void wt_gemm_##S(int M, int N, int K, const T *A, int sa_row, int sa_col, const T *B, int sb_row, int sb_col, \
                   T *C, int ldc, int accumulate) {                                                            \
    for (int i = 0; i < M; i++) {                                                                              \
      T *c = C + (int64_t)i * ldc;                                                                             \
      if (!accumulate)                                                                                         \
        for (int j = 0; j < N; j++) c[j] = 0;                                                                  \
      for (int k = 0; k < K; k++) {                                                                            \
        T a = A[(int64_t)i * sa_row + (int64_t)k * sa_col];                                                    \
        const T *b = B + (int64_t)k * sb_row;                                                                  \
        if (sb_col == 1)                                                                                       \
          for (int j = 0; j < N; j++) c[j] += a * b[j];                                                        \
        else                                                                                                   \
          for (int j = 0; j < N; j++) c[j] += a * b[(int64_t)j * sb_col];                                      \
      }                                                                                                        \
    }                                                                                                          \
  }                                                                                                            \
  EXPORT(gemm_##S)                                                                                             \
  void gemm_##S(int M, int N, int K, const T *A, int sa_row, int sa_col, const T *B, int sb_row, int sb_col,    \
                T *C, int ldc, int accumulate) {                                                               \
    wt_gemm_##S(M, N, K, A, sa_row, sa_col, B, sb_row, sb_col, C, ldc, accumulate);                            \
  }

WT_GEMM(float, f32)
WT_GEMM(double, f64)
WT_GEMM(int64_t, i64)
WT_GEMM(int32_t, i32)
