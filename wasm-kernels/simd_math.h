// simd_math.h -- math on whole SIMD128 vectors for the kernels that spend their time in it (softmax's exp, tanh).
//
// wt_exp_f32x4: e^x per lane, within 2 ulp of the correctly rounded result over the whole float range (range
// reduction x = n ln2 + r with ln2 split in two, |r| <= ln2 / 2, a degree-6 polynomial for e^r, then 2^n applied
// in two steps so results down to the smallest subnormal come out right); +-inf and NaN as expf.
#pragma once
#include <wasm_simd128.h>

static inline v128_t wt_exp_f32x4(v128_t x) {
  const v128_t hi = wasm_f32x4_splat(88.72283935546875f), lo = wasm_f32x4_splat(-103.97208f);
  // lanes past the ends compute e^0 (selected away below): an x of -inf (a masked logit) must not run the
  // underflowing multiplies, which take the CPU's slow subnormal path; pmin keeps x when it is NaN
  v128_t xc = wasm_v128_bitselect(wasm_f32x4_splat(0.0f), wasm_f32x4_pmin(x, hi), wasm_f32x4_lt(x, lo));
  v128_t n = wasm_f32x4_nearest(wasm_f32x4_mul(xc, wasm_f32x4_splat(1.44269504088896341f)));
  v128_t r = wasm_f32x4_sub(xc, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t p = wasm_f32x4_splat(1.9875691500e-4f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.3981999507e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(8.3334519073e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(4.1665795894e-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.6666665459e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(5.0000001201e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(p, r), r), wasm_f32x4_add(r, wasm_f32x4_splat(1.0f)));
  // 2^n = 2^h * 2^(n - h), h = n / 2 (truncated): each factor is a normal float for n in [-150, 128]
  v128_t ni = wasm_i32x4_trunc_sat_f32x4(n);
  v128_t h = wasm_i32x4_shr(ni, 1);
  v128_t s1 = wasm_i32x4_shl(wasm_i32x4_add(h, wasm_i32x4_splat(127)), 23);
  v128_t s2 = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_sub(ni, h), wasm_i32x4_splat(127)), 23);
  v128_t res = wasm_f32x4_mul(wasm_f32x4_mul(p, s1), s2);
  // past the ends: e^x overflows to inf or underflows to 0 (NaN stays NaN through the arithmetic above)
  res = wasm_v128_bitselect(wasm_f32x4_splat(__builtin_inff()), res, wasm_f32x4_gt(x, hi));
  return wasm_v128_bitselect(wasm_f32x4_splat(0.0f), res, wasm_f32x4_lt(x, lo));
}

// wt_tanh_f32x4: tanh per lane, within 3 ulp. |x| < 0.625: x + x z P(z), z = x^2, P of degree 4 (least squares
// fit of the relative error on Chebyshev nodes, 0.9 ulp); above: 1 - 2 / (e^(2|x|) + 1) (e^ within 2 ulp; an
// overflowing e^ gives 1), the sign put back by copysign (so -0 stays -0); NaN propagates through both branches.
static inline v128_t wt_tanh_f32x4(v128_t x) {
  const v128_t sign = wasm_f32x4_splat(-0.0f), one = wasm_f32x4_splat(1.0f);
  v128_t ax = wasm_f32x4_abs(x);
  v128_t z = wasm_f32x4_mul(ax, ax);
  v128_t p = wasm_f32x4_splat(-0.005691985599696636f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(0.020626291632652283f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(-0.05373531952500343f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(0.13331381976604462f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(-0.3333328068256378f));
  v128_t small = wasm_f32x4_add(ax, wasm_f32x4_mul(wasm_f32x4_mul(ax, z), p));
  v128_t e = wt_exp_f32x4(wasm_f32x4_add(ax, ax));
  v128_t large = wasm_f32x4_sub(one, wasm_f32x4_div(wasm_f32x4_splat(2.0f), wasm_f32x4_add(e, one)));
  v128_t t = wasm_v128_bitselect(small, large, wasm_f32x4_lt(ax, wasm_f32x4_splat(0.625f)));
  return wasm_v128_bitselect(x, t, sign);
}
