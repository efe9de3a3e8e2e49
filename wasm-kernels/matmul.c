// matmul.c -- GEMM: C (M x N, row stride ldc) = A (M x K) B (K x N), or C += A B when accumulate; operands by
// (pointer, row stride, column stride) in elements, so a transposed operand needs no copy.
// wt_gemm_<t> are C entry points (conv.c calls them per sample and group); gemm_batched_<t> is the host's export.
//
// Floats: blocked for the caches (NC columns x KC depth of B packed into strips of NR = 2 vectors, zero-padded;
// MC rows of A against each strip), then an MR x NR micro-kernel: per k, MR broadcasts of A (strided scalar loads)
// times 2 vectors of the packed strip into 2 MR SIMD128 accumulators, C read/written once per KC block (6 x 8
// measured as fast as 4 x 8 here: 25 GFLOP/s at 256). Integers: a plain i-k-j loop.
#include <wasm_simd128.h>

#include "kernels.h"

#define KC 256
#define NC 512
#define MC 60
#define MR 6

// the packed block of B: KC x NC doubles, a heap block the host hands over once (gemm_set_workspace). Not a static
// array: with an imported memory wasm-ld stores zero-initialized data in the module (1.5 MB of zeros).
static void *wt_gemm_pack;

EXPORT(gemm_workspace_bytes) int32_t gemm_workspace_bytes(void) { return KC * NC * (int32_t)sizeof(double); }

EXPORT(gemm_set_workspace) void gemm_set_workspace(void *p) { wt_gemm_pack = p; }

#define WT_GEMM_FLOAT(T, S, L, SPLAT)                                                                               \
  typedef T S##_v __attribute__((vector_size(16), aligned(sizeof(T))));                                        \
  enum { S##_NR = 2 * L };                                                                                     \
                                                                                                               \
  /* rows i0 .. i0+mr-1 (mr <= MR) against strip s of the packed block: C[i, j0 .. j0+nr) (+)= A[i, k0..] B */  \
  static void S##_tile(int mr, int nr, int kc, const T *A, int sa_row, int sa_col, const T *bp, T *C, int ldc,   \
                       int add) {                                                                              \
    S##_v c[MR][2];                                                                                            \
    const T *ar[MR];                                                                                           \
    for (int r = 0; r < MR; r++) {                                                                             \
      c[r][0] = c[r][1] = (S##_v){0};                                                                          \
      ar[r] = A + (r < mr ? r * sa_row : 0);                                                                   \
    }                                                                                                          \
    for (int k = 0; k < kc; k++) {                                                                             \
      S##_v b0 = *(const S##_v *)(bp + k * S##_NR), b1 = *(const S##_v *)(bp + k * S##_NR + L);                 \
      int ka = k * sa_col;                                                                                     \
      for (int r = 0; r < MR; r++) {                                                                           \
        S##_v x = (S##_v)SPLAT(ar[r][ka]);                                                                     \
        c[r][0] += x * b0;                                                                                     \
        c[r][1] += x * b1;                                                                                     \
      }                                                                                                        \
    }                                                                                                          \
    for (int r = 0; r < mr; r++) {                                                                             \
      T *crow = C + (int64_t)r * ldc;                                                                          \
      if (nr == S##_NR) {                                                                                      \
        S##_v *cv = (S##_v *)crow;                                                                             \
        if (add) {                                                                                             \
          cv[0] += c[r][0];                                                                                    \
          cv[1] += c[r][1];                                                                                    \
        } else {                                                                                               \
          cv[0] = c[r][0];                                                                                     \
          cv[1] = c[r][1];                                                                                     \
        }                                                                                                      \
      } else {                                                                                                 \
        for (int j = 0; j < nr; j++) {                                                                         \
          T v = j < L ? c[r][0][j] : c[r][1][j - L];                                                           \
          crow[j] = add ? crow[j] + v : v;                                                                     \
        }                                                                                                      \
      }                                                                                                        \
    }                                                                                                          \
  }                                                                                                            \
                                                                                                               \
  void wt_gemm_##S(int M, int N, int K, const T *A, int sa_row, int sa_col, const T *B, int sb_row, int sb_col, \
                   T *C, int ldc, int accumulate) {                                                            \
    if (K == 0) {                                                                                              \
      if (!accumulate)                                                                                         \
        for (int i = 0; i < M; i++)                                                                            \
          for (int j = 0; j < N; j++) C[(int64_t)i * ldc + j] = 0;                                             \
      return;                                                                                                  \
    }                                                                                                          \
    for (int n0 = 0; n0 < N; n0 += NC) {                                                                       \
      int nc = N - n0 < NC ? N - n0 : NC;                                                                      \
      for (int k0 = 0; k0 < K; k0 += KC) {                                                                     \
        int kc = K - k0 < KC ? K - k0 : KC;                                                                    \
        for (int s = 0; s * S##_NR < nc; s++) { /* pack B[k0.., n0 + s*NR ..] as kc rows of NR, zero-padded */  \
          T *dst = (T *)wt_gemm_pack + s * S##_NR * kc;                                                                 \
          int nr = nc - s * S##_NR < S##_NR ? nc - s * S##_NR : S##_NR;                                        \
          const T *src = B + (int64_t)k0 * sb_row + (int64_t)(n0 + s * S##_NR) * sb_col;                       \
          for (int k = 0; k < kc; k++) {                                                                       \
            const T *row = src + (int64_t)k * sb_row;                                                          \
            int j = 0;                                                                                         \
            for (; j < nr; j++) dst[k * S##_NR + j] = row[(int64_t)j * sb_col];                                \
            for (; j < S##_NR; j++) dst[k * S##_NR + j] = 0;                                                   \
          }                                                                                                    \
        }                                                                                                      \
        int add = accumulate || k0 > 0;                                                                        \
        for (int i0 = 0; i0 < M; i0 += MC) {  /* MC rows of A (L2) against each L1-resident strip */           \
          int i1 = M - i0 < MC ? M : i0 + MC;                                                                  \
          for (int s = 0; s * S##_NR < nc; s++) {                                                              \
            int nr = nc - s * S##_NR < S##_NR ? nc - s * S##_NR : S##_NR;                                      \
            for (int i = i0; i < i1; i += MR) {                                                                \
              int mr = i1 - i < MR ? i1 - i : MR;                                                              \
              S##_tile(mr, nr, kc, A + (int64_t)i * sa_row + (int64_t)k0 * sa_col, sa_row, sa_col,             \
                       (T *)wt_gemm_pack + s * S##_NR * kc, C + (int64_t)i * ldc + n0 + s * S##_NR, ldc, add);          \
            }                                                                                                  \
          }                                                                                                    \
        }                                                                                                      \
      }                                                                                                        \
    }                                                                                                          \
  }

WT_GEMM_FLOAT(float, f32, 4, wasm_f32x4_splat)
WT_GEMM_FLOAT(double, f64, 2, wasm_f64x2_splat)

#define WT_GEMM_INT(T, S)                                                                                      \
  void wt_gemm_##S(int M, int N, int K, const T *A, int sa_row, int sa_col, const T *B, int sb_row, int sb_col, \
                   T *C, int ldc, int accumulate) {                                                            \
    for (int i = 0; i < M; i++) {                                                                              \
      T *c = C + (int64_t)i * ldc;                                                                             \
      if (!accumulate)                                                                                         \
        for (int j = 0; j < N; j++) c[j] = 0;                                                                  \
      for (int k = 0; k < K; k++) {                                                                            \
        T a = A[(int64_t)i * sa_row + (int64_t)k * sa_col];                                                    \
        const T *b = B + (int64_t)k * sb_row;                                                                  \
        for (int j = 0; j < N; j++) c[j] = (T)((uint64_t)c[j] + (uint64_t)a * (uint64_t)b[(int64_t)j * sb_col]); \
      }                                                                                                        \
    }                                                                                                          \
  }
WT_GEMM_INT(int64_t, i64)
WT_GEMM_INT(int32_t, i32)

// one GEMM per batch entry: the batch index space is the geometry g over (C, A, B) batch strides (kernels.h)
#define WT_GEMM_BATCHED(T, S)                                                                                  \
  EXPORT(gemm_batched_##S) void gemm_batched_##S(int M, int N, int K, const T *A, int sa_row, int sa_col,       \
                                                 const T *B, int sb_row, int sb_col, T *C, const int32_t *g) {  \
    wt_iter it;                                                                                                \
    wt_iter_init(&it, g, 3);                                                                                   \
    for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it))                                                   \
      for (int32_t i = 0; i < it.n; i++)                                                                       \
        wt_gemm_##S(M, N, K, A + it.off[1] + i * it.inner[1], sa_row, sa_col, B + it.off[2] + i * it.inner[2],  \
                    sb_row, sb_col, C + it.off[0] + i * it.inner[0], N, 0);                                    \
  }
WT_GEMM_BATCHED(float, f32)
WT_GEMM_BATCHED(double, f64)
WT_GEMM_BATCHED(int64_t, i64)
WT_GEMM_BATCHED(int32_t, i32)
