/* Per-dtype instantiation for the kernel families of wasm-kernels/ (conv, pooling, nn_norm, optim, ...).
 *
 * A family file that works for several element types includes itself once per type:
 *
 *     #ifndef T
 *     #include "typed.h"
 *     #define T float
 *     #define S(name) name##_f32
 *     #include __FILE__
 *     ...
 *     #else
 *     (the body: written once against T, S(...), VT, LANES, EXPORT_T(...))
 *     #endif
 *
 * S(name) gives each instance its own symbol (softmax_f32, softmax_f64); EXPORT_T(name) exports that symbol from
 * the module under the same name (kernels.h's EXPORT(name) exports a function that has one instance). VT is T's
 * 128-bit SIMD vector (f32x4, f64x2, i64x2) with element alignment, so a load from any element address is defined;
 * MT the lane mask a comparison of two VT gives. A body defines both:
 *     typedef T VT __attribute__((vector_size(16), aligned(sizeof(T))));
 *     typedef __typeof__((VT){0} < (VT){0}) MT; */
#ifndef WASM_KERNELS_TYPED_H
#define WASM_KERNELS_TYPED_H

#include "kernels.h"

#define WK_STR(x) #x
#define WK_XSTR(x) WK_STR(x)
#define EXPORT_T(name) __attribute__((export_name(WK_XSTR(S(name))))) S(name)
#define VT S(vec)
#define MT S(mask)
#define LANES ((int)(16 / sizeof(T)))
/* sqrt and fabs in T's own precision (__builtin_sqrt would compute a float in double, rounding twice) */
#define SQRT(x) _Generic((T)0, float: __builtin_sqrtf, double: __builtin_sqrt)(x)
#define FABS(x) _Generic((T)0, float: __builtin_fabsf, double: __builtin_fabs)(x)

#endif
