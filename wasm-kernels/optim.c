/* The fused optimizer updates (sgd, adam/adamw, rmsprop, adagrad, adadelta, adamax, nadam, radam) for float32,
 * float64 and float16 parameters: one call updates one parameter tensor of n contiguous elements in place.
 *
 * The order of operations is PyTorch 2.13's CPU kernels' (lerp, addcmul, addcdiv), as backends/numpy/optim.py: every
 * hyper-parameter arrives as a double the caller computed in Python (e.g. 1 - beta2, -lr / (1 - beta1 ** step)) and
 * is rounded to the parameter dtype once, and each step of the formula rounds to it: E is the element type in
 * memory, T the type an operation computes in, R() the rounding of one operation's result to E (float16: computed
 * in float32 and rounded to half after every operation, as PyTorch's and NumPy's half arithmetic), so results equal
 * the NumPy backend's bit for bit. Single thread; the float32/float64 loops vectorize. */
#ifndef T
#include <math.h>

#include "typed.h"

/* x rounded to float with round-to-odd (inexact results keep a sticky last bit), so rounding that float to half
 * gives the correctly rounded half of the double x (as NumPy's and PyTorch's double -> half) */
static inline float float_round_to_odd(double x) {
    float f = (float)x;
    if ((double)f == x || isinf(f) || x != x) return f;
    uint32_t b = wt_f32_bits(f);
    if (fabs((double)f) > fabs(x)) b -= 1;  /* rounded away from zero: the truncation is one step back */
    return wt_bits_f32(b | 1);
}

#define T float
#define E float
#define CONST(x) ((T)(x))
#define S(name) name##_f32
#define R(x) (x)
#define LD(x) (x)
#define ST(x) (x)
#include __FILE__
#undef T
#undef E
#undef S
#define T double
#define E double
#define S(name) name##_f64
#include __FILE__
#undef T
#undef E
#undef S
#undef R
#undef LD
#undef ST
#define T float
#define E wt_half
#define S(name) name##_f16
#define R(x) wt_half_to_f32(wt_f32_to_half(x))
#undef CONST
#define CONST(x) wt_half_to_f32(wt_f32_to_half(float_round_to_odd(x)))
#define LD(x) wt_half_to_f32(x)
#define ST(x) wt_f32_to_half(x)
#include __FILE__

#else

/* a hyper-parameter (a double) rounded to the parameter dtype */
#define C(x) CONST(x)

/* the gradient an update uses: -g when maximizing, plus wd * p (a non-decoupled weight decay) */
static inline T S(grad)(T g, T p, T wd, int maximize, int decay) {
    T r = maximize ? -g : g;
    return decay ? R(R(p * wd) + r) : r;
}

/* a.lerp(end, w) with PyTorch's two-sided formula; wc = 1 - w rounded to the parameter dtype */
static inline T S(lerp)(T a, T end, T w, T wc, int small) {
    T t = R(end - a);
    return small ? R(a + R(t * w)) : R(end - R(t * wc));
}

/* a * b1 + (c * b2) * c: a running average of squares (mul_, then addcmul_) */
static inline T S(avg_sq)(T a, T b1, T c, T b2) {
    return R(R(a * b1) + R(R(c * b2) * c));
}

/* the parameter at i after AdamW's shrink (when decoupled) and, through *gi, the gradient the update uses */
static inline T S(shrunk)(const E *p, const E *g, int i, int decoupled, T SH, T W, int maximize, int decay, T *gi) {
    T pi = decoupled ? R(LD(p[i]) * SH) : LD(p[i]);
    *gi = S(grad)(LD(g[i]), pi, W, maximize, decay);
    return pi;
}

/* Adam's running moments at i, stored: m.lerp_(g, 1 - beta1), v = beta2 * v + (1 - beta2) * g * g; returns m, and v
 * through *vi */
static inline T S(moments)(E *m, E *v, int i, T gi, T A, T Ac, int small, T B2, T B2c, T *vi) {
    T mi = S(lerp)(LD(m[i]), gi, A, Ac, small);
    *vi = S(avg_sq)(LD(v[i]), B2, gi, B2c);
    m[i] = ST(mi);
    v[i] = ST(*vi);
    return mi;
}

/* np.maximum: NaN propagates */
static inline T S(nanmax)(T a, T b) {
    return (a > b || a != a) ? a : b;
}

void EXPORT_T(sgd_update)(E *p, const E *g, E *buf, int n, double lr_neg, double momentum, double keep, double wd,
                          int nesterov, int maximize, int first) {
    T LR = C(lr_neg), M = C(momentum), K = C(keep), W = C(wd);
    int decay = wd != 0, mom = momentum != 0;
    for (int i = 0; i < n; i++) {
        T pi = LD(p[i]), gi = S(grad)(LD(g[i]), pi, W, maximize, decay);
        if (mom) {
            T b = first ? gi : R(R(LD(buf[i]) * M) + R(gi * K));
            buf[i] = ST(b);
            gi = nesterov ? R(gi + R(b * M)) : b;
        }
        p[i] = ST(R(pi + R(gi * LR)));
    }
}

/* Adam/AdamW: p += (m * step_size) / (sqrt(v) / denom_div + denom_add); shrink (AdamW's 1 - lr * wd) first */
void EXPORT_T(adam_update)(E *p, const E *g, E *m, E *v, E *vmax, int n, double shrink, double wd, int maximize,
                           double w1, double beta2, double w2, int amsgrad, double denom_div, double denom_add,
                           double step_size) {
    T SH = C(shrink), W = C(wd), A = C(w1), Ac = R((T)1 - A), B2 = C(beta2), B2c = C(w2), D = C(denom_div),
      EP = C(denom_add), V = C(step_size);
    int decay = wd != 0, small = w1 < 0.5 && w1 > -0.5, decoupled = shrink != 1;
    for (int i = 0; i < n; i++) {
        T gi, vi, pi = S(shrunk)(p, g, i, decoupled, SH, W, maximize, decay, &gi);
        T mi = S(moments)(m, v, i, gi, A, Ac, small, B2, B2c, &vi);
        if (amsgrad) {
            vi = S(nanmax)(LD(vmax[i]), vi);
            vmax[i] = ST(vi);
        }
        T denom = R(R(R(SQRT(vi)) / D) + EP);
        p[i] = ST(R(pi + R(R(mi * V) / denom)));
    }
}

void EXPORT_T(rmsprop_update)(E *p, const E *g, E *sq, E *ga, E *buf, int n, double lr_neg, double alpha, double w,
                              double eps, double wd, double momentum, int centered, int maximize) {
    T LR = C(lr_neg), AL = C(alpha), Wt = C(w), Wc = R((T)1 - Wt), EP = C(eps), W = C(wd), M = C(momentum);
    int decay = wd != 0, small = w < 0.5 && w > -0.5, mom = momentum > 0;
    for (int i = 0; i < n; i++) {
        T pi = LD(p[i]), gi = S(grad)(LD(g[i]), pi, W, maximize, decay);
        T vi = S(avg_sq)(LD(sq[i]), AL, gi, Wt);
        sq[i] = ST(vi);
        T avg;
        if (centered) {
            T a = S(lerp)(LD(ga[i]), gi, Wt, Wc, small);
            ga[i] = ST(a);
            avg = R(SQRT(R(R(R(a * (T)-1) * a) + vi)));
        } else {
            avg = R(SQRT(vi));
        }
        avg = R(avg + EP);
        if (mom) {
            T b = R(R(LD(buf[i]) * M) + R(R(gi * (T)1) / avg));
            buf[i] = ST(b);
            p[i] = ST(R(pi + R(b * LR)));
        } else {
            p[i] = ST(R(pi + R(R(gi * LR) / avg)));
        }
    }
}

void EXPORT_T(adagrad_update)(E *p, const E *g, E *sum, int n, double clr_neg, double wd, double eps, int maximize) {
    T LR = C(clr_neg), W = C(wd), EP = C(eps);
    int decay = wd != 0;
    for (int i = 0; i < n; i++) {
        T pi = LD(p[i]), gi = S(grad)(LD(g[i]), pi, W, maximize, decay);
        T s = R(LD(sum[i]) + R(R(gi * (T)1) * gi));
        sum[i] = ST(s);
        p[i] = ST(R(pi + R(R(gi * LR) / R(R(SQRT(s)) + EP))));
    }
}

void EXPORT_T(adadelta_update)(E *p, const E *g, E *sq, E *acc, int n, double lr_neg, double rho, double w,
                               double eps, double wd, int maximize) {
    T LR = C(lr_neg), RH = C(rho), Wt = C(w), EP = C(eps), W = C(wd);
    int decay = wd != 0;
    for (int i = 0; i < n; i++) {
        T pi = LD(p[i]), gi = S(grad)(LD(g[i]), pi, W, maximize, decay);
        T s = S(avg_sq)(LD(sq[i]), RH, gi, Wt);
        sq[i] = ST(s);
        T ai = LD(acc[i]);
        T delta = R(R(R(SQRT(R(ai + EP))) / R(SQRT(R(s + EP)))) * gi);
        acc[i] = ST(S(avg_sq)(ai, RH, delta, Wt));
        p[i] = ST(R(pi + R(delta * LR)));
    }
}

void EXPORT_T(adamax_update)(E *p, const E *g, E *m, E *u, int n, double w1, double beta2, double eps, double wd,
                             double step_size, int maximize) {
    T A = C(w1), Ac = R((T)1 - A), B2 = C(beta2), EP = C(eps), W = C(wd), V = C(step_size);
    int decay = wd != 0, small = w1 < 0.5 && w1 > -0.5;
    for (int i = 0; i < n; i++) {
        T pi = LD(p[i]), gi = S(grad)(LD(g[i]), pi, W, maximize, decay);
        T mi = S(lerp)(LD(m[i]), gi, A, Ac, small);
        m[i] = ST(mi);
        T ui = S(nanmax)(R(LD(u[i]) * B2), R(FABS(gi) + EP));
        u[i] = ST(ui);
        p[i] = ST(R(pi + R(R(mi * V) / ui)));
    }
}

/* NAdam: p += (g * cg) / denom, then p += (m * cm) / denom, denom = sqrt(v / bc2) + eps */
void EXPORT_T(nadam_update)(E *p, const E *g, E *m, E *v, int n, double shrink, double wd, int maximize, double w1,
                            double beta2, double w2, double bc2, double eps, double cg, double cm) {
    T SH = C(shrink), W = C(wd), A = C(w1), Ac = R((T)1 - A), B2 = C(beta2), B2c = C(w2), BC = C(bc2), EP = C(eps),
      CG = C(cg), CM = C(cm);
    int decay = wd != 0, small = w1 < 0.5 && w1 > -0.5, decoupled = shrink != 1;
    for (int i = 0; i < n; i++) {
        T gi, vi, pi = S(shrunk)(p, g, i, decoupled, SH, W, maximize, decay, &gi);
        T mi = S(moments)(m, v, i, gi, A, Ac, small, B2, B2c, &vi);
        T denom = R(R(SQRT(R(vi / BC))) + EP);
        pi = R(pi + R(R(gi * CG) / denom));
        p[i] = ST(R(pi + R(R(mi * CM) / denom)));
    }
}

/* RAdam: update = (m / bc1) * lr, rectified (rect != 0) by sqrt(bc2) / (sqrt(v) + eps) * rect; p -= update */
void EXPORT_T(radam_update)(E *p, const E *g, E *m, E *v, int n, double shrink, double wd, int maximize, double w1,
                            double beta2, double w2, double bc1, double lr, double eps, double bc2_sqrt,
                            double rect) {
    T SH = C(shrink), W = C(wd), A = C(w1), Ac = R((T)1 - A), B2 = C(beta2), B2c = C(w2), BC1 = C(bc1), LR = C(lr),
      EP = C(eps), BC2 = C(bc2_sqrt), RC = C(rect);
    int decay = wd != 0, small = w1 < 0.5 && w1 > -0.5, decoupled = shrink != 1, rectify = rect != 0;
    for (int i = 0; i < n; i++) {
        T gi, vi, pi = S(shrunk)(p, g, i, decoupled, SH, W, maximize, decay, &gi);
        T mi = S(moments)(m, v, i, gi, A, Ac, small, B2, B2c, &vi);
        T upd = R(R(mi / BC1) * LR);
        if (rectify) upd = R(R(upd * R(BC2 / R(R(SQRT(vi)) + EP))) * RC);
        p[i] = ST(R(pi - upd));
    }
}

#undef C
#endif
