/* Pooling: max (values + flat indices), adaptive max, average (+ backward), and the per-plane scatter/gather that
 * max-pool backward and max_unpool use; for float32, float64 and int64 (other integer dtypes run the int64 instance
 * on a converted copy: exact).
 *
 * Every op is written for 3 spatial dims (D, H, W) over `planes` = N * C contiguous planes; 1-d and 2-d callers pass
 * leading sizes 1. PGEOM: input size, kernel, stride, padding, dilation, output size per dim (the output size already
 * rounded as ceil_mode asks). Launch shape: one call per primitive, single thread, one pass over the outputs. */
#ifndef T
#include "typed.h"

#define PGEOM_PARAMS int D, int H, int W, int kd, int kh, int kw, int sd, int sh, int sw, int pd, int ph, int pw, \
                     int dd, int dh, int dw, int od, int oh, int ow

/* gather_plane for any element size: out[p, i] = src[p, idx[p, i]] (negative indices count from the plane's end) */
EXPORT(gather_plane)
void gather_plane(const void *src, const int64_t *idx, void *out, int planes, int n, int L, int esize) {
    for (int p = 0; p < planes; p++) {
        const int64_t *ip = idx + p * n;
        for (int i = 0; i < n; i++) {
            int j = (int)(ip[i] < 0 ? ip[i] + L : ip[i]);
            int s = p * L + j, o = p * n + i;
            switch (esize) {
            case 1: ((uint8_t *)out)[o] = ((const uint8_t *)src)[s]; break;
            case 2: ((uint16_t *)out)[o] = ((const uint16_t *)src)[s]; break;
            case 4: ((uint32_t *)out)[o] = ((const uint32_t *)src)[s]; break;
            default: ((uint64_t *)out)[o] = ((const uint64_t *)src)[s]; break;
            }
        }
    }
}

/* scatter_plane without accumulation (max_unpool), any element size: out (zeroed by the caller) [p, idx[p, i]] =
 * src[p, i], the later of duplicates winning */
EXPORT(scatter_plane_assign)
void scatter_plane_assign(const void *src, const int64_t *idx, void *out, int planes, int n, int L, int esize) {
    for (int p = 0; p < planes; p++) {
        const int64_t *ip = idx + p * n;
        for (int i = 0; i < n; i++) {
            int s = p * n + i, o = p * L + (int)ip[i];
            switch (esize) {
            case 1: ((uint8_t *)out)[o] = ((const uint8_t *)src)[s]; break;
            case 2: ((uint16_t *)out)[o] = ((const uint16_t *)src)[s]; break;
            case 4: ((uint32_t *)out)[o] = ((const uint32_t *)src)[s]; break;
            default: ((uint64_t *)out)[o] = ((const uint64_t *)src)[s]; break;
            }
        }
    }
}

/* elements of the window [start, start + k) (step 1) inside [0, size) */
static inline void clip(int start, int k, int size, int *lo, int *hi) {
    *lo = start < 0 ? 0 : start;
    *hi = start + k < size ? start + k : size;
}

/* average pooling's divisor of the window starting at `start` (PyTorch's rule: the window clipped to input +
 * padding, then, unless count_include_pad, to the input) */
static inline int window_count(int start, int k, int size, int pad, int include_pad) {
    int end = start + k < size + pad ? start + k : size + pad;
    if (include_pad) return end - start;
    return (end < size ? end : size) - (start > 0 ? start : 0);
}

#define T float
#define S(name) name##_f32
#include __FILE__
#undef T
#undef S
#define T double
#define S(name) name##_f64
#include __FILE__
#undef T
#undef S
#define T int64_t
#define S(name) name##_i64
#define INTEGER 1
#include __FILE__

#else

/* v replaces the running maximum m: larger, or the first NaN (which then stays) */
#ifdef INTEGER
#define BETTER(v, m) ((v) > (m))
#else
#define BETTER(v, m) ((m) == (m) && ((v) > (m) || (v) != (v)))
#endif

/* max over each window of valid input positions: the first maximum in window order, a NaN winning (the first
 * one); idx: its flat position in the plane (z * H * W + y * W + x) */
void EXPORT_T(max_pool)(const T *x, T *vals, int64_t *idx, int planes, PGEOM_PARAMS) {
    int vol = D * H * W, o = 0;
    for (int p = 0; p < planes; p++) {
        const T *xp = x + p * vol;
        for (int z = 0; z < od; z++)
            for (int y = 0; y < oh; y++)
                for (int e = 0; e < ow; e++, o++) {
                    T m = 0;
                    int best = -1;
                    for (int a = 0; a < kd; a++) {
                        int zi = z * sd - pd + a * dd;
                        if (zi < 0 || zi >= D) continue;
                        for (int b = 0; b < kh; b++) {
                            int yi = y * sh - ph + b * dh;
                            if (yi < 0 || yi >= H) continue;
                            for (int c = 0; c < kw; c++) {
                                int xi = e * sw - pw + c * dw;
                                if (xi < 0 || xi >= W) continue;
                                int pos = (zi * H + yi) * W + xi;
                                T v = xp[pos];
                                if (best < 0 || BETTER(v, m)) {
                                    m = v;
                                    best = pos;
                                }
                            }
                        }
                    }
                    vals[o] = m;
                    idx[o] = best;
                }
    }
}

/* max over PyTorch's adaptive windows [floor(i * S / O), ceil((i + 1) * S / O)) per dim, as max_pool */
void EXPORT_T(adaptive_max_pool)(const T *x, T *vals, int64_t *idx, int planes, int D, int H, int W, int od, int oh,
                               int ow) {
    int vol = D * H * W, o = 0;
    for (int p = 0; p < planes; p++) {
        const T *xp = x + p * vol;
        for (int z = 0; z < od; z++)
            for (int y = 0; y < oh; y++)
                for (int e = 0; e < ow; e++, o++) {
                    int z0 = z * D / od, z1 = ((z + 1) * D + od - 1) / od;
                    int y0 = y * H / oh, y1 = ((y + 1) * H + oh - 1) / oh;
                    int x0 = e * W / ow, x1 = ((e + 1) * W + ow - 1) / ow;
                    T m = 0;
                    int best = -1;
                    for (int zi = z0; zi < z1; zi++)
                        for (int yi = y0; yi < y1; yi++)
                            for (int xi = x0; xi < x1; xi++) {
                                int pos = (zi * H + yi) * W + xi;
                                T v = xp[pos];
                                if (best < 0 || BETTER(v, m)) {
                                    m = v;
                                    best = pos;
                                }
                            }
                    vals[o] = m;
                    idx[o] = best;
                }
    }
}

/* window sums over valid positions / divisor (divisor_override if non-0); float division in double rounded once
 * (NumPy's float64 divisor), integer division truncating toward zero */
void EXPORT_T(avg_pool)(const T *x, T *out, int planes, int D, int H, int W, int kd, int kh, int kw, int sd, int sh,
                      int sw, int pd, int ph, int pw, int od, int oh, int ow, int include_pad, int divisor_override) {
    int vol = D * H * W, o = 0;
    for (int p = 0; p < planes; p++) {
        const T *xp = x + p * vol;
        for (int z = 0; z < od; z++)
            for (int y = 0; y < oh; y++)
                for (int e = 0; e < ow; e++, o++) {
                    int z0, z1, y0, y1, x0, x1;
                    clip(z * sd - pd, kd, D, &z0, &z1);
                    clip(y * sh - ph, kh, H, &y0, &y1);
                    clip(e * sw - pw, kw, W, &x0, &x1);
                    T s = 0;
                    for (int zi = z0; zi < z1; zi++)
                        for (int yi = y0; yi < y1; yi++)
                            for (int xi = x0; xi < x1; xi++) s += xp[(zi * H + yi) * W + xi];
                    int64_t div = divisor_override ? divisor_override
                        : (int64_t)window_count(z * sd - pd, kd, D, pd, include_pad)
                          * window_count(y * sh - ph, kh, H, ph, include_pad)
                          * window_count(e * sw - pw, kw, W, pw, include_pad);
#ifdef INTEGER
                    out[o] = s / div;
#else
                    out[o] = (T)((double)s / (double)div);
#endif
                }
    }
}

#ifndef INTEGER
/* gradient of avg_pool: each output gradient / its divisor (rounded to T) added over its window's input positions */
void EXPORT_T(avg_pool_backward)(const T *g, T *gx, int planes, int D, int H, int W, int kd, int kh, int kw, int sd,
                               int sh, int sw, int pd, int ph, int pw, int od, int oh, int ow, int include_pad,
                               int divisor_override) {
    int vol = D * H * W, o = 0;
    for (int i = 0; i < planes * vol; i++) gx[i] = 0;
    for (int p = 0; p < planes; p++) {
        T *xp = gx + p * vol;
        for (int z = 0; z < od; z++)
            for (int y = 0; y < oh; y++)
                for (int e = 0; e < ow; e++, o++) {
                    int z0, z1, y0, y1, x0, x1;
                    clip(z * sd - pd, kd, D, &z0, &z1);
                    clip(y * sh - ph, kh, H, &y0, &y1);
                    clip(e * sw - pw, kw, W, &x0, &x1);
                    int64_t div = divisor_override ? divisor_override
                        : (int64_t)window_count(z * sd - pd, kd, D, pd, include_pad)
                          * window_count(y * sh - ph, kh, H, ph, include_pad)
                          * window_count(e * sw - pw, kw, W, pw, include_pad);
                    T v = (T)((double)g[o] / (double)div);
                    for (int zi = z0; zi < z1; zi++)
                        for (int yi = y0; yi < y1; yi++)
                            for (int xi = x0; xi < x1; xi++) xp[(zi * H + yi) * W + xi] += v;
                }
    }
}
#endif

/* max-pool backward: out (zeroed here) [p, idx[p, i]] += src[p, i] (indices checked by the caller) */
void EXPORT_T(scatter_plane_add)(const T *src, const int64_t *idx, T *out, int planes, int n, int L) {
    for (int i = 0; i < planes * L; i++) out[i] = 0;
    for (int p = 0; p < planes; p++)
        for (int i = 0; i < n; i++) out[p * L + (int)idx[p * n + i]] += src[p * n + i];
}

#undef BETTER

#endif
