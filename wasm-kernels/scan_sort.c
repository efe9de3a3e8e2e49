/* Scans (cumulative sum / prod / logsumexp, running max / min with indices), stable sort and top-k, and
 * searchsorted, for float32, float64 and int64 (narrower integers run the int64 or float64 instance on a converted
 * copy: exact).
 *
 * A scanned or sorted tensor is viewed as (outer, L, inner) with the dim in the middle. Launch shape: one call,
 * single thread, one pass per (outer, inner) line. Sums and products carry float32 lines in double (PyTorch's CPU
 * accumulate type). NaN orders above every number; sorting is a bottom-up merge sort of the line's positions. */
#ifndef T
#include "math_ops.h"
#include "typed.h"

enum { SUM, PROD, LOGSUMEXP };

#define T float
#define S(name) name##_f32
#define ACC double
#define LOGADDEXP wt_logaddexpf
#include __FILE__
#undef T
#undef S
#undef ACC
#undef LOGADDEXP
#define T double
#define S(name) name##_f64
#define ACC double
#define LOGADDEXP wt_logaddexp
#include __FILE__
#undef T
#undef S
#undef ACC
#define T int64_t
#define S(name) name##_i64
#define ACC int64_t
#define INTEGER 1
#include __FILE__

#else

#ifdef INTEGER
#define ISNAN(x) 0
#else
#define ISNAN(x) ((x) != (x))
#endif

/* a orders before b: NaN is larger than every number */
static inline int S(less)(T a, T b) {
    return !ISNAN(a) && (ISNAN(b) || a < b);
}

/* inclusive scan of op along L (from the end when reverse) */
void EXPORT_T(cumulative)(const T *x, T *out, int outer, int L, int inner, int op, int reverse) {
    int step = reverse ? -inner : inner;
    for (int o = 0; o < outer; o++)
        for (int j = 0; j < inner; j++) {
            int start = o * L * inner + j + (reverse ? (L - 1) * inner : 0);
            const T *xp = x + start;
            T *dst = out + start;
            if (op == LOGSUMEXP) {
#ifndef INTEGER
                T r = 0;
                for (int l = 0; l < L; l++) {
                    r = l ? LOGADDEXP(r, xp[l * step]) : xp[0];
                    dst[l * step] = r;
                }
#endif
            } else {
                ACC r = op == SUM ? 0 : 1;
                for (int l = 0; l < L; l++) {
                    if (op == SUM) r += (ACC)xp[l * step];
                    else r *= (ACC)xp[l * step];
                    dst[l * step] = (T)r;
                }
            }
        }
}

/* running max (is_max) or min with the index of the element that set it: the latest on ties, a NaN propagating and
 * every later NaN taking the index; indices count from the start also when reverse */
void EXPORT_T(cumulative_extreme)(const T *x, T *vals, int64_t *idx, int outer, int L, int inner, int is_max,
                                int reverse) {
    for (int o = 0; o < outer; o++)
        for (int j = 0; j < inner; j++) {
            int base = o * L * inner + j;
            T m = 0;
            int at = 0;
            for (int t = 0; t < L; t++) {
                int l = reverse ? L - 1 - t : t;
                T v = x[base + l * inner];
                if (t == 0 || ISNAN(v) || (!ISNAN(m) && (is_max ? v >= m : v <= m))) {
                    m = v;
                    at = l;
                }
                vals[base + l * inner] = m;
                idx[base + l * inner] = at;
            }
        }
}

/* whether the entry with key b must move before the entry with key a that precedes it (stable: only when it
 * orders strictly first) */
#define BEFORE(b, a) (descending ? S(less)(a, b) : S(less)(b, a))

/* the first k of each line sorted stably (descending: larger first, equal elements still in their order); out is
 * (outer, k, inner). Keys move with their positions: insertion sort of runs of 16, then bottom-up merges between
 * two buffers. scratch: L * (2 * sizeof(T) + 8) bytes. */
void EXPORT_T(sort)(const T *x, T *vals, int64_t *idx, int outer, int L, int inner, int k, int descending,
                    void *scratch) {
    T *ka = scratch, *kb = ka + L;
    int32_t *ia = (int32_t *)(kb + L), *ib = ia + L;
    for (int o = 0; o < outer; o++)
        for (int j = 0; j < inner; j++) {
            const T *xp = x + o * L * inner + j;
            T *ks = ka, *kd = kb;
            int32_t *is = ia, *id = ib;
            for (int l = 0; l < L; l++) {
                ks[l] = xp[l * inner];
                is[l] = l;
            }
            for (int lo = 0; lo < L; lo += 16) {
                int hi = lo + 16 < L ? lo + 16 : L;
                for (int i = lo + 1; i < hi; i++) {
                    T key = ks[i];
                    int32_t at = is[i], p = i;
                    for (; p > lo && BEFORE(key, ks[p - 1]); p--) {
                        ks[p] = ks[p - 1];
                        is[p] = is[p - 1];
                    }
                    ks[p] = key;
                    is[p] = at;
                }
            }
            for (int w = 16; w < L; w *= 2) {
                for (int lo = 0; lo < L; lo += 2 * w) {
                    int mid = lo + w < L ? lo + w : L, hi = lo + 2 * w < L ? lo + 2 * w : L;
                    int p = lo, q = mid, r = lo;
                    while (p < mid && q < hi) {
                        int right = BEFORE(ks[q], ks[p]);
                        kd[r] = right ? ks[q] : ks[p];
                        id[r++] = right ? is[q++] : is[p++];
                    }
                    for (; p < mid; p++, r++) {
                        kd[r] = ks[p];
                        id[r] = is[p];
                    }
                    for (; q < hi; q++, r++) {
                        kd[r] = ks[q];
                        id[r] = is[q];
                    }
                }
                T *tk = ks;
                ks = kd;
                kd = tk;
                int32_t *ti = is;
                is = id;
                id = ti;
            }
            T *vp = vals + o * k * inner + j;
            int64_t *ip = idx + o * k * inner + j;
            for (int l = 0; l < k; l++) {
                vp[l * inner] = ks[l];
                ip[l * inner] = is[l];
            }
        }
}
#undef BEFORE

/* insertion points of vals (rows, m) into the rows of seq (rows, n; one shared row when seq_rows == 1): left = the
 * number of elements ordering before the value, right = the number not ordering after it */
void EXPORT_T(searchsorted)(const T *seq, const T *v, void *out, int rows, int n, int m, int seq_rows, int right,
                          int out_int32) {
    for (int r = 0; r < rows; r++) {
        const T *s = seq + (seq_rows == 1 ? 0 : r * n);
        for (int i = 0; i < m; i++) {
            T x = v[r * m + i];
            int lo = 0, hi = n;
            while (lo < hi) {
                int mid = (lo + hi) >> 1;
                int go_right = right ? !S(less)(x, s[mid]) : S(less)(s[mid], x);
                if (go_right) lo = mid + 1;
                else hi = mid;
            }
            if (out_int32) ((int32_t *)out)[r * m + i] = lo;
            else ((int64_t *)out)[r * m + i] = lo;
        }
    }
}

#undef ISNAN
#endif
