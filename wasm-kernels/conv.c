/* Convolution (forward, input gradient, weight gradient) as im2col + the module's GEMM, and the im2col / col2im
 * primitives (F.unfold / F.fold), for float32 and float64.
 *
 * Every spatial op is written for 3 spatial dims (D, H, W); the caller passes 1-d and 2-d ops with leading
 * sizes 1 (kernel 1, stride 1, padding 0, dilation 1). GEOM is that geometry: input size, kernel, stride, padding,
 * dilation and output size per dim. Launch shape: one call per primitive; it loops over samples and groups, one GEMM
 * per (sample, group) on the column matrix of the sample (C*kd*kh*kw rows, od*oh*ow columns) held in `scratch`. A 1x1
 * kernel with stride 1 and no padding multiplies the input itself (no column copy). */
#ifndef T
#include "typed.h"

#define GEOM_PARAMS int D, int H, int W, int kd, int kh, int kw, int sd, int sh, int sw, int pd, int ph, int pw, \
                    int dd, int dh, int dw, int od, int oh, int ow
#define GEOM_ARGS D, H, W, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw, od, oh, ow
#define POINTWISE (kd == 1 && kh == 1 && kw == 1 && sd == 1 && sh == 1 && sw == 1 && pd == 0 && ph == 0 && \
                   pw == 0 && od == D && oh == H && ow == W)

/* the output positions [lo, hi) along one dim whose input coordinate o*s - p + k*d lies in [0, size) */
static inline void valid_range(int k, int s, int p, int d, int size, int out, int *lo, int *hi) {
    int off = k * d - p; /* input coordinate of output 0 */
    int a = off >= 0 ? 0 : (-off + s - 1) / s;
    int b = size - off <= 0 ? 0 : (size - off + s - 1) / s;
    *lo = a < out ? a : out;
    *hi = b < out ? b : out;
    if (*hi < *lo) *hi = *lo;
}

/* row t of the column matrix: channel c and kernel offsets (a, b, e) of its kernel tap, and the output positions
 * [lo, hi) per dim (r[0..1]: depth, r[2..3]: height, r[4..5]: width) at which that tap reads inside the input */
typedef struct {
    int c, a, b, e, r[6];
} tap;

static inline tap tap_of(int t, GEOM_PARAMS) {
    tap k;
    k.e = t % kw;
    k.b = t / kw % kh;
    k.a = t / (kw * kh) % kd;
    k.c = t / (kw * kh * kd);
    valid_range(k.a, sd, pd, dd, D, od, &k.r[0], &k.r[1]);
    valid_range(k.b, sh, ph, dh, H, oh, &k.r[2], &k.r[3]);
    valid_range(k.e, sw, pw, dw, W, ow, &k.r[4], &k.r[5]);
    return k;
}

#define T float
#define S(name) name##_f32
#include __FILE__
#undef T
#undef S
#define T double
#define S(name) name##_f64
#include __FILE__

#else

void S(wt_gemm)(int M, int N, int K, const T *A, int sa_row, int sa_col, const T *B, int sb_row, int sb_col, T *C,
                int ldc, int accumulate);

/* cols (C*kd*kh*kw, od*oh*ow) of one sample x (C, D, H, W); zeros where a window reads padding */
static void S(im2col_one)(const T *x, T *cols, int C, GEOM_PARAMS) {
    int P = od * oh * ow;
    T *row = cols;
    for (int t = 0; t < C * kd * kh * kw; t++, row += P) {
        tap k = tap_of(t, GEOM_ARGS);
        int wlo = k.r[4], whi = k.r[5];
        for (int z = 0; z < od; z++) {
            T *rz = row + z * oh * ow;
            if (z < k.r[0] || z >= k.r[1]) {
                for (int i = 0; i < oh * ow; i++) rz[i] = 0;
                continue;
            }
            const T *xz = x + ((k.c * D) + z * sd - pd + k.a * dd) * H * W;
            for (int y = 0; y < oh; y++) {
                T *r = rz + y * ow;
                if (y < k.r[2] || y >= k.r[3]) {
                    for (int i = 0; i < ow; i++) r[i] = 0;
                    continue;
                }
                const T *xr = xz + (y * sh - ph + k.b * dh) * W + k.e * dw - pw;
                for (int i = 0; i < wlo; i++) r[i] = 0;
                if (sw == 1)
                    for (int i = wlo; i < whi; i++) r[i] = xr[i];
                else
                    for (int i = wlo; i < whi; i++) r[i] = xr[i * sw];
                for (int i = whi; i < ow; i++) r[i] = 0;
            }
        }
    }
}

/* the adjoint: x (C, D, H, W) += cols, each column entry added to the input position it was read from */
static void S(col2im_one)(const T *cols, T *x, int C, GEOM_PARAMS) {
    int P = od * oh * ow;
    const T *row = cols;
    for (int t = 0; t < C * kd * kh * kw; t++, row += P) {
        tap k = tap_of(t, GEOM_ARGS);
        int wlo = k.r[4], whi = k.r[5];
        for (int z = k.r[0]; z < k.r[1]; z++) {
            T *xz = x + ((k.c * D) + z * sd - pd + k.a * dd) * H * W;
            for (int y = k.r[2]; y < k.r[3]; y++) {
                const T *r = row + (z * oh + y) * ow;
                T *xr = xz + (y * sh - ph + k.b * dh) * W + k.e * dw - pw;
                if (sw == 1)
                    for (int i = wlo; i < whi; i++) xr[i] += r[i];
                else
                    for (int i = wlo; i < whi; i++) xr[i * sw] += r[i];
            }
        }
    }
}

/* the column matrix of one sample xn: xn itself for a pointwise kernel, else its im2col in scratch */
static const T *S(columns)(const T *xn, T *scratch, int C, int pointwise, GEOM_PARAMS) {
    if (pointwise) return xn;
    S(im2col_one)(xn, scratch, C, GEOM_ARGS);
    return scratch;
}

/* y (N, Cout, P) = w (Cout, Cin/G * kvol) @ cols per sample and group, + bias (0: none) */
void EXPORT_T(conv)(const T *x, const T *w, const T *bias, T *y, T *scratch, int N, int Cin, int Cout, int G,
                  GEOM_PARAMS) {
    int kvol = kd * kh * kw, P = od * oh * ow, K = Cin / G * kvol, Cog = Cout / G, pointwise = POINTWISE;
    for (int n = 0; n < N; n++) {
        const T *cols = S(columns)(x + n * Cin * D * H * W, scratch, Cin, pointwise, GEOM_ARGS);
        T *yn = y + n * Cout * P;
        for (int g = 0; g < G; g++)
            S(wt_gemm)(Cog, P, K, w + g * Cog * K, K, 1, cols + g * K * P, P, 1, yn + g * Cog * P, P, 0);
        if (bias)
            for (int co = 0; co < Cout; co++) {
                T bv = bias[co], *yr = yn + co * P;
                for (int i = 0; i < P; i++) yr[i] += bv;
            }
    }
}

/* dx (N, Cin, D, H, W) from g (N, Cout, P): cols = w_g^T @ g_g per sample and group, then col2im */
void EXPORT_T(conv_backward_input)(const T *g, const T *w, T *dx, T *scratch, int N, int Cin, int Cout, int G,
                                 GEOM_PARAMS) {
    int kvol = kd * kh * kw, P = od * oh * ow, K = Cin / G * kvol, Cog = Cout / G, pointwise = POINTWISE;
    int vol = D * H * W;
    for (int n = 0; n < N; n++) {
        const T *gn = g + n * Cout * P;
        T *dxn = dx + n * Cin * vol;
        T *cols = pointwise ? dxn : scratch;
        for (int gi = 0; gi < G; gi++)
            S(wt_gemm)(K, P, Cog, w + gi * Cog * K, 1, K, gn + gi * Cog * P, P, 1, cols + gi * K * P, P, 0);
        if (!pointwise) {
            for (int i = 0; i < Cin * vol; i++) dxn[i] = 0;
            S(col2im_one)(scratch, dxn, Cin, GEOM_ARGS);
        }
    }
}

/* gw (Cout, Cin/G * kvol) = sum over samples of g_g @ cols_g^T; the output size is g's (a transposed conv's
 * output_padding can leave x longer than g's windows reach) */
void EXPORT_T(conv_backward_weight)(const T *g, const T *x, T *gw, T *scratch, int N, int Cin, int Cout, int G,
                                  GEOM_PARAMS) {
    int kvol = kd * kh * kw, P = od * oh * ow, K = Cin / G * kvol, Cog = Cout / G, pointwise = POINTWISE;
    for (int i = 0; i < Cout * K; i++) gw[i] = 0;
    for (int n = 0; n < N; n++) {
        const T *cols = S(columns)(x + n * Cin * D * H * W, scratch, Cin, pointwise, GEOM_ARGS);
        const T *gn = g + n * Cout * P;
        for (int gi = 0; gi < G; gi++)
            S(wt_gemm)(Cog, K, P, gn + gi * Cog * P, P, 1, cols + gi * K * P, 1, P, gw + gi * Cog * K, K, 1);
    }
}

/* F.unfold: x (N, C, D, H, W) -> (N, C*kvol, P) */
void EXPORT_T(im2col)(const T *x, T *cols, int N, int C, GEOM_PARAMS) {
    int kvol = kd * kh * kw, P = od * oh * ow;
    for (int n = 0; n < N; n++) S(im2col_one)(x + n * C * D * H * W, cols + n * C * kvol * P, C, GEOM_ARGS);
}

/* F.fold: cols (N, C*kvol, P) summed into x (N, C, D, H, W) */
void EXPORT_T(col2im)(const T *cols, T *x, int N, int C, GEOM_PARAMS) {
    int kvol = kd * kh * kw, P = od * oh * ow, vol = D * H * W;
    for (int i = 0; i < N * C * vol; i++) x[i] = 0;
    for (int n = 0; n < N; n++) S(col2im_one)(cols + n * C * kvol * P, x + n * C * vol, C, GEOM_ARGS);
}

#endif
