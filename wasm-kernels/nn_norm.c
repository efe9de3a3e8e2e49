/* Fused softmax / log_softmax (+ backward), layer norm (+ backward), training batch norm (+ backward), for float32
 * and float64 (float16 runs the float32 instance on a float32 copy, as PyTorch's CPU accumulates it).
 *
 * Launch shape: one call per primitive, single thread. softmax views its input as (outer, L, inner) with the
 * reduced dim in the middle: inner == 1 runs row by row with SIMD over the row, inner > 1 runs SIMD across
 * `inner` (LANES columns at a time, each walking its L elements). Layer norm: (rows, cols) with cols the normalized
 * trailing dims. Batch norm: (N, C, S), statistics per channel C. All buffers are contiguous. */
#ifndef T
#include <math.h>

#include "simd_math.h"
#include "typed.h"

#define T float
#define S(name) name##_f32
#define EXP expf
#define LOG logf
#define VEXP(v) ((VT)wt_exp_f32x4((v128_t)(v)))
#include __FILE__
#undef T
#undef S
#undef EXP
#undef LOG
#undef VEXP
#define T double
#define S(name) name##_f64
#define EXP exp
#define LOG log
#define VEXP(v) S(exp_lanes)(v)
#include __FILE__

#else

typedef T VT __attribute__((vector_size(16), aligned(sizeof(T))));
typedef __typeof__((VT){0} >= (VT){0}) MT; /* the lane mask of a comparison */

static inline T S(hsum)(VT v) {
    T s = 0;
    for (int i = 0; i < LANES; i++) s += v[i];
    return s;
}

static inline VT S(splat)(T x) {
    VT v;
    for (int i = 0; i < LANES; i++) v[i] = x;
    return v;
}

/* sum of a[0..n) with 4 vector accumulators */
static T S(row_sum)(const T *a, int n) {
    VT s0 = S(splat)(0), s1 = s0, s2 = s0, s3 = s0;
    int i = 0;
    for (; i + 4 * LANES <= n; i += 4 * LANES) {
        s0 += *(const VT *)(a + i);
        s1 += *(const VT *)(a + i + LANES);
        s2 += *(const VT *)(a + i + 2 * LANES);
        s3 += *(const VT *)(a + i + 3 * LANES);
    }
    for (; i + LANES <= n; i += LANES) s0 += *(const VT *)(a + i);
    T s = S(hsum)((s0 + s1) + (s2 + s3));
    for (; i < n; i++) s += a[i];
    return s;
}

/* sum of a[i] * b[i] */
static T S(row_dot)(const T *a, const T *b, int n) {
    VT s0 = S(splat)(0), s1 = s0;
    int i = 0;
    for (; i + 2 * LANES <= n; i += 2 * LANES) {
        s0 += *(const VT *)(a + i) * *(const VT *)(b + i);
        s1 += *(const VT *)(a + i + LANES) * *(const VT *)(b + i + LANES);
    }
    for (; i + LANES <= n; i += LANES) s0 += *(const VT *)(a + i) * *(const VT *)(b + i);
    T s = S(hsum)(s0 + s1);
    for (; i < n; i++) s += a[i] * b[i];
    return s;
}

/* sum of (a[i] - m)^2 */
static T S(row_sqdev)(const T *a, T m, int n) {
    VT s0 = S(splat)(0), s1 = s0, mv = S(splat)(m);
    int i = 0;
    for (; i + 2 * LANES <= n; i += 2 * LANES) {
        VT d0 = *(const VT *)(a + i) - mv, d1 = *(const VT *)(a + i + LANES) - mv;
        s0 += d0 * d0;
        s1 += d1 * d1;
    }
    for (; i + LANES <= n; i += LANES) {
        VT d = *(const VT *)(a + i) - mv;
        s0 += d * d;
    }
    T s = S(hsum)(s0 + s1);
    for (; i < n; i++) s += (a[i] - m) * (a[i] - m);
    return s;
}

static T S(row_max)(const T *a, int n) {
    T m = a[0];
    int i = 1;
    if (n >= 2 * LANES) {
        /* NaN must win: where !(m >= a) (a larger, or either NaN) take a */
        VT m0 = *(const VT *)a, m1 = *(const VT *)(a + LANES);
        for (i = 2 * LANES; i + 2 * LANES <= n; i += 2 * LANES) {
            VT a0 = *(const VT *)(a + i), a1 = *(const VT *)(a + i + LANES);
            MT k0 = m0 >= a0, k1 = m1 >= a1;
            m0 = (VT)(((MT)m0 & k0) | ((MT)a0 & ~k0));
            m1 = (VT)(((MT)m1 & k1) | ((MT)a1 & ~k1));
        }
        m = m0[0];
        for (int l = 1; l < LANES; l++) m = (m >= m0[l]) ? m : m0[l];
        for (int l = 0; l < LANES; l++) m = (m >= m1[l]) ? m : m1[l];
    }
    for (; i < n; i++) m = (m >= a[i]) ? m : a[i];
    return m;
}

/* a vector's lanes through the scalar exp (float64's VEXP: no SIMD exp) */
static inline VT S(exp_lanes)(VT v) {
    for (int i = 0; i < LANES; i++) v[i] = EXP(v[i]);
    return v;
}

static void S(softmax_row)(const T *x, T *y, int n, int log_) {
    T m = S(row_max)(x, n);
    VT mv = S(splat)(m), acc = S(splat)(0);
    int i = 0;
    for (; i + LANES <= n; i += LANES) {
        VT e = VEXP(*(const VT *)(x + i) - mv);
        if (!log_) *(VT *)(y + i) = e;
        acc += e;
    }
    T s = S(hsum)(acc);
    for (int j = i; j < n; j++) {
        T e = EXP(x[j] - m);
        if (!log_) y[j] = e;
        s += e;
    }
    if (log_) {
        T ls = LOG(s);
        for (i = 0; i < n; i++) y[i] = (x[i] - m) - ls;
    } else {
        VT sv = S(splat)(s);
        for (i = 0; i + LANES <= n; i += LANES) *(VT *)(y + i) = *(VT *)(y + i) / sv;
        for (; i < n; i++) y[i] = y[i] / s;
    }
}

/* softmax over the middle dim of (outer, L, inner), inner > 1: LANES columns at a time walk L together */
static void S(softmax_cols)(const T *x, T *y, int L, int inner, int log_) {
    int j = 0;
    for (; j + LANES <= inner; j += LANES) {
        const T *xc = x + j;
        T *yc = y + j;
        VT m = *(const VT *)xc, s = S(splat)(0);
        for (int l = 1; l < L; l++) {
            VT v = *(const VT *)(xc + l * inner);
            MT k = m >= v;
            m = (VT)(((MT)m & k) | ((MT)v & ~k));
        }
        for (int l = 0; l < L; l++) {
            VT e = VEXP(*(const VT *)(xc + l * inner) - m);
            if (!log_) *(VT *)(yc + l * inner) = e;
            s += e;
        }
        if (log_) {
            VT ls = S(splat)(0);
            for (int c = 0; c < LANES; c++) ls[c] = LOG(s[c]);
            for (int l = 0; l < L; l++) *(VT *)(yc + l * inner) = (*(const VT *)(xc + l * inner) - m) - ls;
        } else {
            for (int l = 0; l < L; l++) *(VT *)(yc + l * inner) = *(VT *)(yc + l * inner) / s;
        }
    }
    for (; j < inner; j++) {
        const T *xc = x + j;
        T *yc = y + j;
        T m = xc[0];
        for (int l = 1; l < L; l++) m = (m >= xc[l * inner]) ? m : xc[l * inner];
        T s = 0;
        for (int l = 0; l < L; l++) {
            T e = EXP(xc[l * inner] - m);
            if (!log_) yc[l * inner] = e;
            s += e;
        }
        if (log_) {
            T ls = LOG(s);
            for (int l = 0; l < L; l++) yc[l * inner] = (xc[l * inner] - m) - ls;
        } else {
            for (int l = 0; l < L; l++) yc[l * inner] = yc[l * inner] / s;
        }
    }
}

void EXPORT_T(softmax)(const T *x, T *y, int outer, int L, int inner, int log_) {
    if (L == 0) return;
    for (int o = 0; o < outer; o++) {
        const T *xo = x + o * L * inner;
        T *yo = y + o * L * inner;
        if (inner == 1) S(softmax_row)(xo, yo, L, log_);
        else S(softmax_cols)(xo, yo, L, inner, log_);
    }
}

/* log: g - exp(y) * sum(g); else y * g - y * sum(y * g) */
void EXPORT_T(softmax_backward)(const T *g, const T *y, T *out, int outer, int L, int inner, int log_) {
    for (int o = 0; o < outer; o++) {
        int base = o * L * inner;
        for (int j = 0; j < inner; j++) {
            const T *gc = g + base + j, *yc = y + base + j;
            T *oc = out + base + j;
            T s = 0;
            if (log_) {
                if (inner == 1) {
                    s = S(row_sum)(gc, L);
                    VT sv = S(splat)(s);
                    int l = 0;
                    for (; l + LANES <= L; l += LANES)
                        *(VT *)(oc + l) = *(const VT *)(gc + l) - VEXP(*(const VT *)(yc + l)) * sv;
                    for (; l < L; l++) oc[l] = gc[l] - EXP(yc[l]) * s;
                    continue;
                }
                for (int l = 0; l < L; l++) s += gc[l * inner];
                for (int l = 0; l < L; l++) oc[l * inner] = gc[l * inner] - EXP(yc[l * inner]) * s;
            } else {
                if (inner == 1) s = S(row_dot)(gc, yc, L);
                else for (int l = 0; l < L; l++) s += gc[l * inner] * yc[l * inner];
                for (int l = 0; l < L; l++) {
                    T yv = yc[l * inner];
                    oc[l * inner] = gc[l * inner] * yv - yv * s;
                }
            }
        }
    }
}

/* y = (x - mean) * rstd * w + b per row; mean/rstd one per row (NaN for an empty row). w, b may be 0 (none). */
void EXPORT_T(layer_norm)(const T *x, const T *w, const T *b, T *y, T *mean, T *rstd, int rows, int cols,
                        double eps) {
    T e = (T)eps;
    for (int r = 0; r < rows; r++) {
        const T *xr = x + r * cols;
        T *yr = y + r * cols;
        if (cols == 0) {
            mean[r] = rstd[r] = __builtin_nan("");
            continue;
        }
        T m = S(row_sum)(xr, cols) / (T)cols;
        T var = S(row_sqdev)(xr, m, cols) / (T)cols;
        T rs = (T)1 / SQRT(var + e);
        mean[r] = m;
        rstd[r] = rs;
        VT mv = S(splat)(m), rv = S(splat)(rs);
        int i = 0;
        for (; i + LANES <= cols; i += LANES) {
            VT v = (*(const VT *)(xr + i) - mv) * rv;
            if (w) v *= *(const VT *)(w + i);
            if (b) v += *(const VT *)(b + i);
            *(VT *)(yr + i) = v;
        }
        for (; i < cols; i++) {
            T v = (xr[i] - m) * rs;
            if (w) v *= w[i];
            if (b) v += b[i];
            yr[i] = v;
        }
    }
}

/* gx (if non-0) = (gh - mean(gh) - xhat * mean(gh * xhat)) * rstd with gh = g * w; gw += g * xhat, gb += g over
 * rows (each non-0 output is zeroed first). scratch: cols elements (xhat of one row). */
void EXPORT_T(layer_norm_backward)(const T *g, const T *x, const T *mean, const T *rstd, const T *w, T *gx, T *gw,
                                 T *gb, T *scratch, int rows, int cols) {
    if (gw) for (int i = 0; i < cols; i++) gw[i] = 0;
    if (gb) for (int i = 0; i < cols; i++) gb[i] = 0;
    T inv = (T)1 / (T)(cols > 1 ? cols : 1);
    for (int r = 0; r < rows; r++) {
        const T *gr = g + r * cols, *xr = x + r * cols;
        T m = mean[r], rs = rstd[r];
        T *xh = scratch;
        for (int i = 0; i < cols; i++) xh[i] = (xr[i] - m) * rs;
        if (gw) for (int i = 0; i < cols; i++) gw[i] += gr[i] * xh[i];
        if (gb) for (int i = 0; i < cols; i++) gb[i] += gr[i];
        if (!gx) continue;
        T *out = gx + r * cols;
        T sa = 0, sb = 0;
        if (w) {
            for (int i = 0; i < cols; i++) {
                T gh = gr[i] * w[i];
                sa += gh;
                sb += gh * xh[i];
            }
        } else {
            sa = S(row_sum)(gr, cols);
            sb = S(row_dot)(gr, xh, cols);
        }
        T a = sa * inv, bb = sb * inv;
        for (int i = 0; i < cols; i++) {
            T gh = w ? gr[i] * w[i] : gr[i];
            out[i] = ((gh - a) - xh[i] * bb) * rs;
        }
    }
}

/* Training batch norm of x (N, C, S): per channel mean and biased variance (two passes), y = (x - mean) * rstd *
 * w + b; running stats (non-0) r = r * (1 - momentum) + momentum * stat (unbiased variance). */
void EXPORT_T(batch_norm)(const T *x, const T *w, const T *b, T *run_mean, T *run_var, T *y, T *mean_out,
                        T *rstd_out, int N, int C, int Sz, double momentum, double eps) {
    int M = N * Sz;
    T e = (T)eps;
    for (int c = 0; c < C; c++) {
        T s = 0;
        for (int n = 0; n < N; n++) s += S(row_sum)(x + (n * C + c) * Sz, Sz);
        T m = s / (T)M;
        T q = 0;
        for (int n = 0; n < N; n++) q += S(row_sqdev)(x + (n * C + c) * Sz, m, Sz);
        T var = q / (T)M;
        T rs = (T)1 / SQRT(var + e);
        mean_out[c] = m;
        rstd_out[c] = rs;
        T scale = w ? w[c] : (T)1, shift = b ? b[c] : (T)0;
        VT mv = S(splat)(m), rv = S(splat)(rs), wv = S(splat)(scale), bv = S(splat)(shift);
        for (int n = 0; n < N; n++) {
            const T *xr = x + (n * C + c) * Sz;
            T *yr = y + (n * C + c) * Sz;
            int i = 0;
            for (; i + LANES <= Sz; i += LANES) {
                VT v = (*(const VT *)(xr + i) - mv) * rv;
                if (w) v *= wv;
                if (b) v += bv;
                *(VT *)(yr + i) = v;
            }
            for (; i < Sz; i++) {
                T v = (xr[i] - m) * rs;
                if (w) v *= scale;
                if (b) v += shift;
                yr[i] = v;
            }
        }
        T keep = (T)(1 - momentum);
        if (run_mean) run_mean[c] = run_mean[c] * keep + (T)momentum * m;
        if (run_var) {
            T t = (T)momentum * var;
            run_var[c] = run_var[c] * keep + t * (T)((double)M / (double)(M > 1 ? M - 1 : 1));
        }
    }
}

/* gx (non-0) = (g - sum(g)/M - xhat * sum(g * xhat)/M) * rstd * w; gw (non-0) = sum(g * xhat); gb = sum(g). */
void EXPORT_T(batch_norm_backward)(const T *g, const T *x, const T *mean, const T *rstd, const T *w, T *gx, T *gw,
                                 T *gb, int N, int C, int Sz) {
    T M = (T)(N * Sz > 1 ? N * Sz : 1);
    for (int c = 0; c < C; c++) {
        T m = mean[c], rs = rstd[c];
        T sg = 0, sgx = 0;
        for (int n = 0; n < N; n++) {
            const T *gr = g + (n * C + c) * Sz, *xr = x + (n * C + c) * Sz;
            sg += S(row_sum)(gr, Sz);
            VT acc = S(splat)(0), mv = S(splat)(m), rv = S(splat)(rs);
            int i = 0;
            for (; i + LANES <= Sz; i += LANES)
                acc += *(const VT *)(gr + i) * ((*(const VT *)(xr + i) - mv) * rv);
            T t = S(hsum)(acc);
            for (; i < Sz; i++) t += gr[i] * ((xr[i] - m) * rs);
            sgx += t;
        }
        if (gw) gw[c] = sgx;
        if (gb) gb[c] = sg;
        if (!gx) continue;
        T a = sg / M, bb = sgx / M, scale = w ? rs * w[c] : rs;
        for (int n = 0; n < N; n++) {
            const T *gr = g + (n * C + c) * Sz, *xr = x + (n * C + c) * Sz;
            T *out = gx + (n * C + c) * Sz;
            for (int i = 0; i < Sz; i++) out[i] = ((gr[i] - a) - ((xr[i] - m) * rs) * bb) * scale;
        }
    }
}

#endif
