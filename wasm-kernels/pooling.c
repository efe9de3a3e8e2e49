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
            put_element(out, p * n + i, src, p * L + j, esize);
        }
    }
}

/* scatter_plane without accumulation (max_unpool), any element size: out (zeroed by the caller) [p, idx[p, i]] =
 * src[p, i], the later of duplicates winning */
EXPORT(scatter_plane_assign)
void scatter_plane_assign(const void *src, const int64_t *idx, void *out, int planes, int n, int L, int esize) {
    for (int p = 0; p < planes; p++) {
        const int64_t *ip = idx + p * n;
        for (int i = 0; i < n; i++) put_element(out, p * L + (int)ip[i], src, p * n + i, esize);
    }
}

/* the statement after it runs once per output (position z, y, e) of `planes` planes of od x oh x ow outputs, in
 * memory order; o counts the outputs, base is the plane's first element in an input of `vol` elements a plane */
#define FOR_EACH_OUTPUT(planes, vol, od, oh, ow)                                                                \
    for (int p_ = 0, o = 0, base = 0; p_ < (planes); p_++, base += (vol))                                       \
        for (int z = 0; z < (od); z++)                                                                          \
            for (int y = 0; y < (oh); y++)                                                                      \
                for (int e = 0; e < (ow); e++, o++)

/* the statement after it runs for each input position (zi, yi, xi) of the box [r[0], r[1]) x [r[2], r[3]) x
 * [r[4], r[5]), zi outermost */
#define FOR_BOX(r, zi, yi, xi)                                                                                  \
    for (int zi = (r)[0]; zi < (r)[1]; zi++)                                                                    \
        for (int yi = (r)[2]; yi < (r)[3]; yi++)                                                                \
            for (int xi = (r)[4]; xi < (r)[5]; xi++)

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

/* average pooling's geometry (as PGEOM, without dilation) and divisor rule */
#define AVG_PARAMS int D, int H, int W, int kd, int kh, int kw, int sd, int sh, int sw, int pd, int ph, int pw, \
                   int od, int oh, int ow, int include_pad, int divisor_override
#define AVG_ARGS D, H, W, kd, kh, kw, sd, sh, sw, pd, ph, pw, od, oh, ow, include_pad, divisor_override

/* the average-pooling window of output (z, y, e): its input positions [r[0], r[1]) x [r[2], r[3]) x [r[4], r[5]),
 * and its divisor (returned; the output sizes od, oh, ow are not needed) */
static inline int64_t avg_window(int z, int y, int e, AVG_PARAMS, int r[6]) {
    clip(z * sd - pd, kd, D, &r[0], &r[1]);
    clip(y * sh - ph, kh, H, &r[2], &r[3]);
    clip(e * sw - pw, kw, W, &r[4], &r[5]);
    if (divisor_override) return divisor_override;
    return (int64_t)window_count(z * sd - pd, kd, D, pd, include_pad) * window_count(y * sh - ph, kh, H, ph, include_pad)
           * window_count(e * sw - pw, kw, W, pw, include_pad);
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

/* v at plane position pos against the running maximum (m, best): it wins if larger, or the first NaN */
static inline void S(take_max)(T v, int pos, T *m, int *best) {
    if (*best < 0 || BETTER(v, *m)) {
        *m = v;
        *best = pos;
    }
}

/* max over each window of valid input positions: the first maximum in window order, a NaN winning (the first
 * one); idx: its flat position in the plane (z * H * W + y * W + x) */
void EXPORT_T(max_pool)(const T *x, T *vals, int64_t *idx, int planes, PGEOM_PARAMS) {
    FOR_EACH_OUTPUT(planes, D * H * W, od, oh, ow) {
        const T *xp = x + base;
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
                    S(take_max)(xp[pos], pos, &m, &best);
                }
            }
        }
        vals[o] = m;
        idx[o] = best;
    }
}

/* max over PyTorch's adaptive windows [floor(i * S / O), ceil((i + 1) * S / O)) per dim, as max_pool */
void EXPORT_T(adaptive_max_pool)(const T *x, T *vals, int64_t *idx, int planes, int D, int H, int W, int od, int oh,
                                 int ow) {
    FOR_EACH_OUTPUT(planes, D * H * W, od, oh, ow) {
        const T *xp = x + base;
        int r[6] = {z * D / od, ((z + 1) * D + od - 1) / od, y * H / oh, ((y + 1) * H + oh - 1) / oh,
                    e * W / ow, ((e + 1) * W + ow - 1) / ow};
        T m = 0;
        int best = -1;
        FOR_BOX(r, zi, yi, xi) {
            int pos = (zi * H + yi) * W + xi;
            S(take_max)(xp[pos], pos, &m, &best);
        }
        vals[o] = m;
        idx[o] = best;
    }
}

/* window sums over valid positions / divisor (divisor_override if non-0); float division in double rounded once
 * (NumPy's float64 divisor), integer division truncating toward zero */
void EXPORT_T(avg_pool)(const T *x, T *out, int planes, AVG_PARAMS) {
    FOR_EACH_OUTPUT(planes, D * H * W, od, oh, ow) {
        const T *xp = x + base;
        int r[6];
        int64_t div = avg_window(z, y, e, AVG_ARGS, r);
        T s = 0;
        FOR_BOX(r, zi, yi, xi) s += xp[(zi * H + yi) * W + xi];
#ifdef INTEGER
        out[o] = s / div;
#else
        out[o] = (T)((double)s / (double)div);
#endif
    }
}

#ifndef INTEGER
/* gradient of avg_pool: each output gradient / its divisor (rounded to T) added over its window's input positions */
void EXPORT_T(avg_pool_backward)(const T *g, T *gx, int planes, AVG_PARAMS) {
    for (int i = 0; i < planes * D * H * W; i++) gx[i] = 0;
    FOR_EACH_OUTPUT(planes, D * H * W, od, oh, ow) {
        T *xp = gx + base;
        int r[6];
        T v = (T)((double)g[o] / (double)avg_window(z, y, e, AVG_ARGS, r));
        FOR_BOX(r, zi, yi, xi) xp[(zi * H + yi) * W + xi] += v;
    }
}
#endif

/* max-pool backward: out (zeroed here) [p, idx[p, i]] += src[p, i] (indices checked by the caller) */
void EXPORT_T(scatter_plane_add)(const T *src, const int64_t *idx, T *out, int planes, int n, int L) {
    for (int i = 0; i < planes * L; i++) out[i] = 0;
    for (int p = 0; p < planes; p++)
        for (int i = 0; i < n; i++) out[p * L + (int)idx[p * n + i]] += src[p * n + i];
}

#ifndef INTEGER
/* resample_taps (separable interpolate / adaptive average pooling along one dim): out[a, o, b] = (w[o, 0] *
 * x[a, idx[o, 0], b] + w[o, 1] * x[a, idx[o, 1], b] + ...) / div[o] for a < outer, b < inner; the taps added in order,
 * each multiplied even when its weight is 0 (inf * 0 gives NaN, as PyTorch's kernels); idx -1: no tap; w, div 0:
 * every weight 1 (no product), no division */
void EXPORT_T(resample_taps)(const T *x, const int32_t *idx, const T *w, const T *div, T *out, int outer, int L,
                             int inner, int O, int K) {
    if (inner == 1) {   /* the innermost dim: one accumulator per output (the loop below would run one lane) */
        for (int a = 0; a < outer; a++) {
            const T *xa = x + (size_t)a * L;
            T *oa = out + (size_t)a * O;
            for (int o = 0; o < O; o++) {
                const int32_t *io = idx + o * K;
                T acc = 0;
                if (w) {
                    for (int k = 0; k < K; k++)
                        if (io[k] >= 0) acc += w[o * K + k] * xa[io[k]];
                } else {
                    for (int k = 0; k < K; k++)
                        if (io[k] >= 0) acc += xa[io[k]];
                }
                oa[o] = div ? acc / div[o] : acc;
            }
        }
        return;
    }
    for (int a = 0; a < outer; a++)
        for (int o = 0; o < O; o++) {
            T *op = out + ((size_t)a * O + o) * inner;
            for (int b = 0; b < inner; b++) op[b] = 0;
            for (int k = 0; k < K; k++) {
                int j = idx[o * K + k];
                if (j < 0) continue;
                const T *xp = x + ((size_t)a * L + j) * inner;
                if (w) {
                    T wk = w[o * K + k];
                    for (int b = 0; b < inner; b++) op[b] += wk * xp[b];
                } else {
                    for (int b = 0; b < inner; b++) op[b] += xp[b];
                }
            }
            if (div)
                for (int b = 0; b < inner; b++) op[b] /= div[o];
        }
}
#endif

#undef BETTER

#endif
