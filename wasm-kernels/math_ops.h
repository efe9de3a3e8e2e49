// math_ops.h -- the scalar functions of the elementwise ops (generate.py) that libm lacks or that PyTorch defines
// differently: NaN-propagating max/min, Python-style floor division and remainder (floats as NumPy's npy_divmod,
// integers with the quotient rounded toward negative infinity), integer powers, logaddexp, erfinv.
#pragma once
#include <math.h>
#include <stdint.h>

#define WT_FLOAT_FNS(T, F)                                                                  \
  static inline T wt_max##F(T a, T b) { return (a != a || b != b) ? a + b : (a > b ? a : b); } \
  static inline T wt_min##F(T a, T b) { return (a != a || b != b) ? a + b : (a < b ? a : b); } \
  static inline T wt_floordiv##F(T a, T b) {                                                \
    if (b == 0) return a / b;                                                               \
    T mod = fmod##F(a, b), div = (a - mod) / b;                                             \
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;                                       \
    if (div == 0) return copysign##F(0, a / b);                                             \
    T fl = floor##F(div);                                                                   \
    return div - fl > (T)0.5 ? fl + 1 : fl;                                                 \
  }                                                                                         \
  static inline T wt_remainder##F(T a, T b) {                                               \
    T mod = fmod##F(a, b);                                                                  \
    if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;                                       \
    return mod;                                                                             \
  }                                                                                         \
  static inline T wt_logaddexp##F(T a, T b) {                                               \
    if (a == b) return a + (T)0.69314718055994530942;                                       \
    T m = a > b ? a : b;                                                                    \
    return m + log1p##F(exp##F(-fabs##F(a - b)));                                           \
  }
WT_FLOAT_FNS(float, f)
WT_FLOAT_FNS(double, )

// integer division with the quotient rounded toward -inf; b == -1 negates with wrap-around (wasm's division
// traps on INT_MIN / -1); a zero divisor never reaches these (the kernels check first)
#define WT_INT_FNS(T, U)                                                                    \
  static inline T wt_ifloordiv_##T(T a, T b) {                                             \
    if (b == -1) return (T)(-(U)a);                                                         \
    T q = a / b;                                                                            \
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;                                \
  }                                                                                         \
  static inline T wt_iremainder_##T(T a, T b) {                                            \
    if (b == -1) return 0;                                                                  \
    T r = a % b;                                                                            \
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;                                    \
  }                                                                                         \
  static inline T wt_ifmod_##T(T a, T b) { return b == -1 ? 0 : a % b; }
typedef int8_t int8;
typedef int16_t int16;
typedef int32_t int32;
typedef int64_t int64;
WT_INT_FNS(int8, uint8_t)
WT_INT_FNS(int16, uint16_t)
WT_INT_FNS(int32, uint32_t)
WT_INT_FNS(int64, uint64_t)

// a ** b in 64 bits (narrower types keep the low bits, as their own wrapping multiply would); a negative
// exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise (PyTorch)
static inline int64_t wt_ipow(int64_t a, int64_t b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
  uint64_t r = 1, x = (uint64_t)a;
  while (b) {
    if (b & 1) r *= x;
    x *= x;
    b >>= 1;
  }
  return (int64_t)r;
}

// inverse error function: Giles' single-precision approximation, then Newton steps against libm's erf
static inline double wt_erfinv(double y) {
  if (!(y > -1.0 && y < 1.0)) return y == 1.0 ? INFINITY : (y == -1.0 ? -INFINITY : NAN);
  double w = -log((1.0 - y) * (1.0 + y)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w; p = -0.00125372503 + p * w; p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w; p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w; p = 0.00134934322 + p * w; p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w; p = -0.0076224613 + p * w; p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w; p = 2.83297682 + p * w;
  }
  double x = p * y;
  for (int k = 0; k < 2; k++) x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
  return x;
}
