/* The fused optimizer updates (sgd, adam/adamw, rmsprop, adagrad, adadelta, adamax, nadam, radam) for float32 and
 * float64 parameters: one call updates one parameter tensor of n contiguous elements in place.
 *
 * The order of operations is PyTorch 2.13's CPU kernels' (lerp, addcmul, addcdiv), as backends/numpy/optim.py: every
 * hyper-parameter arrives as a double the caller computed in Python (e.g. 1 - beta2, -lr / (1 - beta1 ** step)) and
 * is rounded to T once, and each step of the formula rounds to T, so float32 results equal the NumPy backend's
 * bit for bit. Single thread; the loops vectorize (the flags are loop-invariant selects). */
#ifndef T
#include "typed.h"

#define T float
#define S(name) name##_f32
#include __FILE__
#undef T
#undef S
#define T double
#define S(name) name##_f64
#include __FILE__

#else

/* the gradient an update uses: -g when maximizing, plus wd * p (a non-decoupled weight decay) */
static inline T S(grad)(T g, T p, T wd, int maximize, int decay) {
    T r = maximize ? -g : g;
    return decay ? p * wd + r : r;
}

/* a.lerp(end, w) with PyTorch's two-sided formula; wc = 1 - w rounded in T */
static inline T S(lerp)(T a, T end, T w, T wc, int small) {
    T t = end - a;
    return small ? a + t * w : end - t * wc;
}

/* np.maximum: NaN propagates */
static inline T S(nanmax)(T a, T b) {
    return (a > b || a != a) ? a : b;
}

void EXPORT_T(sgd_update)(T *p, const T *g, T *buf, int n, double lr_neg, double momentum, double keep,
                        double wd, int nesterov, int maximize, int first) {
    T LR = (T)lr_neg, M = (T)momentum, K = (T)keep, W = (T)wd;
    int decay = wd != 0, mom = momentum != 0;
    for (int i = 0; i < n; i++) {
        T gi = S(grad)(g[i], p[i], W, maximize, decay);
        if (mom) {
            T b = first ? gi : buf[i] * M + gi * K;
            buf[i] = b;
            gi = nesterov ? gi + b * M : b;
        }
        p[i] = p[i] + gi * LR;
    }
}

/* Adam/AdamW: p += (m * step_size) / (sqrt(v) / denom_div + denom_add); shrink (AdamW's 1 - lr * wd) first */
void EXPORT_T(adam_update)(T *p, const T *g, T *m, T *v, T *vmax, int n, double shrink, double wd, int maximize,
                         double w1, double beta2, double w2, int amsgrad, double denom_div, double denom_add,
                         double step_size) {
    T SH = (T)shrink, W = (T)wd, A = (T)w1, Ac = (T)1 - A, B2 = (T)beta2, B2c = (T)w2, D = (T)denom_div,
      E = (T)denom_add, V = (T)step_size;
    int decay = wd != 0, small = w1 < 0.5 && w1 > -0.5, decoupled = shrink != 1;
    for (int i = 0; i < n; i++) {
        T pi = decoupled ? p[i] * SH : p[i];
        T gi = S(grad)(g[i], pi, W, maximize, decay);
        T mi = S(lerp)(m[i], gi, A, Ac, small);
        T vi = v[i] * B2 + (gi * B2c) * gi;
        m[i] = mi;
        v[i] = vi;
        if (amsgrad) vi = vmax[i] = S(nanmax)(vmax[i], vi);
        T denom = SQRT(vi) / D + E;
        p[i] = pi + (mi * V) / denom;
    }
}

void EXPORT_T(rmsprop_update)(T *p, const T *g, T *sq, T *ga, T *buf, int n, double lr_neg, double alpha,
                            double w, double eps, double wd, double momentum, int centered, int maximize) {
    T LR = (T)lr_neg, AL = (T)alpha, Wt = (T)w, Wc = (T)1 - Wt, E = (T)eps, W = (T)wd, M = (T)momentum;
    int decay = wd != 0, small = w < 0.5 && w > -0.5, mom = momentum > 0;
    for (int i = 0; i < n; i++) {
        T gi = S(grad)(g[i], p[i], W, maximize, decay);
        T vi = sq[i] * AL + (gi * Wt) * gi;
        sq[i] = vi;
        T avg;
        if (centered) {
            T a = S(lerp)(ga[i], gi, Wt, Wc, small);
            ga[i] = a;
            avg = SQRT((a * (T)-1) * a + vi);
        } else {
            avg = SQRT(vi);
        }
        avg = avg + E;
        if (mom) {
            T b = buf[i] * M + (gi * (T)1) / avg;
            buf[i] = b;
            p[i] = p[i] + b * LR;
        } else {
            p[i] = p[i] + (gi * LR) / avg;
        }
    }
}

void EXPORT_T(adagrad_update)(T *p, const T *g, T *sum, int n, double clr_neg, double wd, double eps, int maximize) {
    T LR = (T)clr_neg, W = (T)wd, E = (T)eps;
    int decay = wd != 0;
    for (int i = 0; i < n; i++) {
        T gi = S(grad)(g[i], p[i], W, maximize, decay);
        T s = sum[i] + (gi * (T)1) * gi;
        sum[i] = s;
        p[i] = p[i] + (gi * LR) / (SQRT(s) + E);
    }
}

void EXPORT_T(adadelta_update)(T *p, const T *g, T *sq, T *acc, int n, double lr_neg, double rho, double w,
                             double eps, double wd, int maximize) {
    T LR = (T)lr_neg, R = (T)rho, Wt = (T)w, E = (T)eps, W = (T)wd;
    int decay = wd != 0;
    for (int i = 0; i < n; i++) {
        T gi = S(grad)(g[i], p[i], W, maximize, decay);
        T s = sq[i] * R + (gi * Wt) * gi;
        sq[i] = s;
        T delta = (SQRT(acc[i] + E) / SQRT(s + E)) * gi;
        acc[i] = acc[i] * R + (delta * Wt) * delta;
        p[i] = p[i] + delta * LR;
    }
}

void EXPORT_T(adamax_update)(T *p, const T *g, T *m, T *u, int n, double w1, double beta2, double eps, double wd,
                           double step_size, int maximize) {
    T A = (T)w1, Ac = (T)1 - A, B2 = (T)beta2, E = (T)eps, W = (T)wd, V = (T)step_size;
    int decay = wd != 0, small = w1 < 0.5 && w1 > -0.5;
    for (int i = 0; i < n; i++) {
        T gi = S(grad)(g[i], p[i], W, maximize, decay);
        T mi = S(lerp)(m[i], gi, A, Ac, small);
        m[i] = mi;
        T t = FABS(gi) + E;
        T ui = S(nanmax)(u[i] * B2, t);
        u[i] = ui;
        p[i] = p[i] + (mi * V) / ui;
    }
}

/* NAdam: p += (g * cg) / denom, then p += (m * cm) / denom, denom = sqrt(v / bc2) + eps */
void EXPORT_T(nadam_update)(T *p, const T *g, T *m, T *v, int n, double shrink, double wd, int maximize, double w1,
                          double beta2, double w2, double bc2, double eps, double cg, double cm) {
    T SH = (T)shrink, W = (T)wd, A = (T)w1, Ac = (T)1 - A, B2 = (T)beta2, B2c = (T)w2, BC = (T)bc2, E = (T)eps,
      CG = (T)cg, CM = (T)cm;
    int decay = wd != 0, small = w1 < 0.5 && w1 > -0.5, decoupled = shrink != 1;
    for (int i = 0; i < n; i++) {
        T pi = decoupled ? p[i] * SH : p[i];
        T gi = S(grad)(g[i], pi, W, maximize, decay);
        T mi = S(lerp)(m[i], gi, A, Ac, small);
        T vi = v[i] * B2 + (gi * B2c) * gi;
        m[i] = mi;
        v[i] = vi;
        T denom = SQRT(vi / BC) + E;
        pi = pi + (gi * CG) / denom;
        p[i] = pi + (mi * CM) / denom;
    }
}

/* RAdam: update = (m / bc1) * lr, rectified (rect != 0) by sqrt(bc2) / (sqrt(v) + eps) * rect; p -= update */
void EXPORT_T(radam_update)(T *p, const T *g, T *m, T *v, int n, double shrink, double wd, int maximize, double w1,
                          double beta2, double w2, double bc1, double lr, double eps, double bc2_sqrt, double rect) {
    T SH = (T)shrink, W = (T)wd, A = (T)w1, Ac = (T)1 - A, B2 = (T)beta2, B2c = (T)w2, BC1 = (T)bc1, LR = (T)lr,
      E = (T)eps, BC2 = (T)bc2_sqrt, R = (T)rect;
    int decay = wd != 0, small = w1 < 0.5 && w1 > -0.5, decoupled = shrink != 1, rectify = rect != 0;
    for (int i = 0; i < n; i++) {
        T pi = decoupled ? p[i] * SH : p[i];
        T gi = S(grad)(g[i], pi, W, maximize, decay);
        T mi = S(lerp)(m[i], gi, A, Ac, small);
        T vi = v[i] * B2 + (gi * B2c) * gi;
        m[i] = mi;
        v[i] = vi;
        T upd = (mi / BC1) * LR;
        if (rectify) upd = (upd * (BC2 / (SQRT(vi) + E))) * R;
        p[i] = pi - upd;
    }
}

#endif
