// matmul.c -- GEMM: C (M x N, row stride ldc) = A (M x K) B (K x N), or C += A B when accumulate; operands by
// (pointer, row stride, column stride) in elements, so a transposed operand needs no copy.
// wt_gemm_<t> are C entry points (conv.c calls them per sample and group); gemm_batched_<t> is the host's export.
//
// Floats, blocked for the caches as Goto's GEMM: a KC x NC block of B packed into strips of NR = NV vectors, an
// MC x KC block of A packed into panels of MR rows (k-major: the micro-kernel reads both operands contiguously, for
// any strides), then an MR x NR micro-kernel (each strip, L1-resident, against every panel of the L2-resident A
// block): per k, MR broadcast loads of the panel times NV vectors of the strip into MR x NV SIMD128 accumulators, C
// read/written once per KC block. Partial panels and strips are zero-padded. The shape is V8's: it keeps 15 SIMD
// registers (the 16th is its scratch), so MR x NV accumulators + NV + 1 must fit in 15. Measured f32, one core, load
// 6, best of 5 at 256 / 512 / 1024 GFLOP/s -- 2 x 4: V8 (node 20) 41-43 / 40 / 38-40, wasmtime 27-29 / 28-29 / 26-29;
// the previous 6 x 2 with unpacked A: V8 36-38 / 34-36 / 33, wasmtime 23 / 24 / 23; 3 x 4 (17 registers: spills in
// V8) 38 / 37 / 34; 4 x 3 36 / 36 / 34. Integers: a plain i-k-j loop.
#include <wasm_simd128.h>

#include "kernels.h"

#define KC 256
#define NC 512 // a multiple of NR for f32 (16) and f64 (8): the packed strips fill the block exactly
#define MC 96 // a multiple of MR
#define MR 2
#define NV 4

// the packing block (B's KC x NC, A's MC x KC, then one row of NV vectors for partial strips; doubles), a heap block
// of each instance's (threads.c: thread_init). Thread-local: instances on one shared memory (the page's worker
// threads) each pack into their own. wt_gemm_* use no shadow stack (no addressed locals; gemm_batched's iterator is
// on the calling instance's own stack), so a worker running a range of C's rows touches only its workspace and rows.
static _Thread_local void *wt_gemm_pack;

int32_t gemm_workspace_bytes(void) { return (KC * NC + MC * KC + 2 * NV) * (int32_t)sizeof(double); }

void gemm_set_workspace(void *p) { wt_gemm_pack = p; }

#define WT_GEMM_FLOAT(T, S, L, SPLAT)                                                                                  \
  typedef T S##_v __attribute__((vector_size(16), aligned(sizeof(T))));                                                \
  enum { S##_NR = NV * L };                                                                                            \
                                                                                                                       \
  /* an MR-row panel of packed A against a strip of packed B: C[0 .. mr, 0 .. nr) (+)= A B over kc */                  \
  static void S##_tile(int mr, int nr, int kc, const T *ap, const T *bp, T *C, int ldc, int add, T *edge) {            \
    S##_v c[MR][NV];                                                                                                   \
    for (int r = 0; r < MR; r++)                                                                                       \
      for (int v = 0; v < NV; v++) c[r][v] = (S##_v){0};                                                               \
    for (int k = 0; k < kc; k++, ap += MR, bp += S##_NR) {                                                             \
      S##_v b[NV];                                                                                                     \
      for (int v = 0; v < NV; v++) b[v] = *(const S##_v *)(bp + v * L);                                                \
      for (int r = 0; r < MR; r++) {                                                                                   \
        S##_v x = (S##_v)SPLAT(ap[r]);                                                                                 \
        for (int v = 0; v < NV; v++) c[r][v] += x * b[v];                                                              \
      }                                                                                                                \
    }                                                                                                                  \
    _Pragma("clang loop unroll(full)") /* a constant trip count: c stays in locals (kernels use no shadow stack) */    \
    for (int r = 0; r < MR; r++) {                                                                                     \
      if (r >= mr) continue;                                                                                           \
      T *crow = C + (int64_t)r * ldc;                                                                                  \
      if (nr == S##_NR) {                                                                                              \
        S##_v *cv = (S##_v *)crow;                                                                                     \
        for (int v = 0; v < NV; v++) cv[v] = add ? cv[v] + c[r][v] : c[r][v];                                          \
      } else { /* a partial strip goes through the edge row (indexing c by j would put it on the stack) */             \
        for (int v = 0; v < NV; v++) *(S##_v *)(edge + v * L) = c[r][v];                                               \
        for (int j = 0; j < nr; j++) crow[j] = add ? crow[j] + edge[j] : edge[j];                                      \
      }                                                                                                                \
    }                                                                                                                  \
  }                                                                                                                    \
                                                                                                                       \
  void wt_gemm_##S(int M, int N, int K, const T *A, int sa_row, int sa_col, const T *B, int sb_row, int sb_col,        \
                   T *C, int ldc, int accumulate) {                                                                    \
    if (K == 0) {                                                                                                      \
      if (!accumulate)                                                                                                 \
        for (int i = 0; i < M; i++)                                                                                    \
          for (int j = 0; j < N; j++) C[(int64_t)i * ldc + j] = 0;                                                     \
      return;                                                                                                          \
    }                                                                                                                  \
    T *bpack = (T *)wt_gemm_pack, *apack = bpack + KC * NC, *edge = apack + MC * KC;                                   \
    for (int n0 = 0; n0 < N; n0 += NC) {                                                                               \
      int nc = N - n0 < NC ? N - n0 : NC;                                                                              \
      for (int k0 = 0; k0 < K; k0 += KC) {                                                                             \
        int kc = K - k0 < KC ? K - k0 : KC;                                                                            \
        for (int s = 0; s * S##_NR < nc; s++) { /* pack B[k0.., n0 + s*NR ..] as kc rows of NR, zero-padded */         \
          T *dst = bpack + s * S##_NR * kc;                                                                            \
          int nr = nc - s * S##_NR < S##_NR ? nc - s * S##_NR : S##_NR;                                                \
          const T *src = B + (int64_t)k0 * sb_row + (int64_t)(n0 + s * S##_NR) * sb_col;                               \
          for (int k = 0; k < kc; k++) {                                                                               \
            const T *row = src + (int64_t)k * sb_row;                                                                  \
            int j = 0;                                                                                                 \
            for (; j < nr; j++) dst[k * S##_NR + j] = row[(int64_t)j * sb_col];                                        \
            for (; j < S##_NR; j++) dst[k * S##_NR + j] = 0;                                                           \
          }                                                                                                            \
        }                                                                                                              \
        int add = accumulate || k0 > 0;                                                                                \
        for (int i0 = 0; i0 < M; i0 += MC) {                                                                           \
          int mc = M - i0 < MC ? M - i0 : MC;                                                                          \
          for (int p = 0; p * MR < mc; p++) { /* pack A[i0 + p*MR .., k0 ..] as kc columns of MR, zero-padded */       \
            T *dst = apack + p * MR * kc;                                                                              \
            int mr = mc - p * MR < MR ? mc - p * MR : MR;                                                              \
            const T *src = A + (int64_t)(i0 + p * MR) * sa_row + (int64_t)k0 * sa_col;                                 \
            for (int r = 0; r < MR; r++) {                                                                             \
              const T *row = src + (int64_t)r * sa_row;                                                                \
              if (r < mr)                                                                                              \
                for (int k = 0; k < kc; k++) dst[k * MR + r] = row[(int64_t)k * sa_col];                               \
              else                                                                                                     \
                for (int k = 0; k < kc; k++) dst[k * MR + r] = 0;                                                      \
            }                                                                                                          \
          }                                                                                                            \
          for (int s = 0; s * S##_NR < nc; s++) { /* each L1-resident strip against the L2-resident A block */         \
            int nr = nc - s * S##_NR < S##_NR ? nc - s * S##_NR : S##_NR;                                              \
            for (int p = 0; p * MR < mc; p++) {                                                                        \
              int mr = mc - p * MR < MR ? mc - p * MR : MR;                                                            \
              S##_tile(mr, nr, kc, apack + p * MR * kc, bpack + s * S##_NR * kc,                                       \
                       C + (int64_t)(i0 + p * MR) * ldc + n0 + s * S##_NR, ldc, add, edge);                            \
            }                                                                                                          \
          }                                                                                                            \
        }                                                                                                              \
      }                                                                                                                \
    }                                                                                                                  \
  }

WT_GEMM_FLOAT(float, f32, 4, wasm_f32x4_splat)
WT_GEMM_FLOAT(double, f64, 2, wasm_f64x2_splat)
#define WT_GEMM_INT(T, S)                                                                                              \
  void wt_gemm_##S(int M, int N, int K, const T *A, int sa_row, int sa_col, const T *B, int sb_row, int sb_col,        \
                   T *C, int ldc, int accumulate) {                                                                    \
    for (int i = 0; i < M; i++) {                                                                                      \
      T *c = C + (int64_t)i * ldc;                                                                                     \
      if (!accumulate)                                                                                                 \
        for (int j = 0; j < N; j++) c[j] = 0;                                                                          \
      for (int k = 0; k < K; k++) {                                                                                    \
        T a = A[(int64_t)i * sa_row + (int64_t)k * sa_col];                                                            \
        const T *b = B + (int64_t)k * sb_row;                                                                          \
        for (int j = 0; j < N; j++) c[j] = (T)((uint64_t)c[j] + (uint64_t)a * (uint64_t)b[(int64_t)j * sb_col]);       \
      }                                                                                                                \
    }                                                                                                                  \
  }
WT_GEMM_INT(int64_t, i64)
WT_GEMM_INT(int32_t, i32)

// one GEMM per batch entry: the batch index space is the geometry g over (C, A, B) batch strides (kernels.h)
#define WT_GEMM_BATCHED(T, S)                                                                                          \
  EXPORT(gemm_batched_##S) void gemm_batched_##S(int M, int N, int K, const T *A, int sa_row, int sa_col,              \
                                                 const T *B, int sb_row, int sb_col, T *C, const int32_t *g) {         \
    wt_iter it;                                                                                                        \
    wt_iter_init(&it, g, 3);                                                                                           \
    for (int32_t r = 0; r < it.rows; r++, wt_iter_next(&it))                                                           \
      for (int32_t i = 0; i < it.n; i++)                                                                               \
        wt_gemm_##S(M, N, K, A + it.off[1] + i * it.inner[1], sa_row, sa_col, B + it.off[2] + i * it.inner[2],         \
                    sb_row, sb_col, C + it.off[0] + i * it.inner[0], N, 0);                                            \
  }
WT_GEMM_BATCHED(float, f32)
WT_GEMM_BATCHED(double, f64)
WT_GEMM_BATCHED(int64_t, i64)
WT_GEMM_BATCHED(int32_t, i32)
