// creation.c -- arange and linspace values (the host casts them to the requested dtype).
// arange_f64/arange_i64: out[i] = start + i * step for i < n. linspace_f64: start + i * step with
// step = (end - start) / (n - 1) and the last value exactly end (as NumPy's linspace, which PyTorch's CPU matches).
#include "kernels.h"

EXPORT(arange_f64) void arange_f64(double *out, int32_t n, double start, double step) {
  for (int32_t i = 0; i < n; i++) out[i] = start + (double)i * step;
}

EXPORT(arange_i64) void arange_i64(int64_t *out, int32_t n, int64_t start, int64_t step) {
  for (int32_t i = 0; i < n; i++) out[i] = start + (int64_t)i * step;
}

EXPORT(linspace_f64) void linspace_f64(double *out, int32_t n, double start, double end) {
  if (n == 1) {
    out[0] = start;
    return;
  }
  double step = (end - start) / (double)(n - 1);
  for (int32_t i = 0; i < n; i++) out[i] = start + (double)i * step;
  out[n - 1] = end;
}
