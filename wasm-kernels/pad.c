/* Padding of an N-d tensor (constant / reflect / replicate / circular) and its adjoint.
 *
 * `dims` points at int32s: ndim, the unpadded shape (ndim), the pads before (ndim), the pads after (ndim). pad copies
 * elements of any size (a dtype's bits: the fill value arrives as those bits); pad_backward adds float32 / float64
 * gradients. Launch shape: one call, single thread, one pass over the rows (all dims but the last) of the padded
 * tensor, each row mapping its source row once. */
#ifndef T
#include "typed.h"

enum { CONSTANT, REFLECT, REPLICATE, CIRCULAR };

/* the source coordinate of padded coordinate i - lo in a dim of `size`, or -1 where the constant fills */
static inline int source(int i, int size, int mode) {
    if (i >= 0 && i < size) return i;
    switch (mode) {
    case REFLECT: return i < 0 ? -i : 2 * (size - 1) - i;
    case REPLICATE: return i < 0 ? 0 : size - 1;
    case CIRCULAR: return ((i % size) + size) % size;
    default: return -1;
    }
}

/* the flat source row of padded row `row` (or -1 for a constant row); the padded leading coordinates are decoded
 * from `row`, last leading dim fastest */
static int source_row(int row, const int *dims, int mode) {
    int nd = dims[0];
    const int *size = dims + 1, *lo = dims + 1 + nd, *hi = dims + 1 + 2 * nd;
    int src = 0, stride = 1;
    for (int d = nd - 2; d >= 0; d--) {
        int n = size[d] + lo[d] + hi[d];
        int s = source(row % n - lo[d], size[d], mode);
        if (s < 0) return -1;
        src += s * stride;
        stride *= size[d];
        row /= n;
    }
    return src;
}

EXPORT(pad)
void pad(const void *x, void *out, const int *dims, int esize, int mode, uint64_t value_bits) {
    int nd = dims[0];
    const int *size = dims + 1, *lo = dims + 1 + nd, *hi = dims + 1 + 2 * nd;
    int W = size[nd - 1], lw = lo[nd - 1], OW = W + lw + hi[nd - 1], rows = 1;
    for (int d = 0; d < nd - 1; d++) rows *= size[d] + lo[d] + hi[d];
    for (int r = 0; r < rows; r++) {
        int src = source_row(r, dims, mode);
        int o = r * OW;
        for (int j = 0; j < OW; j++) {
            int s = src < 0 ? -1 : source(j - lw, W, mode);
            if (s < 0) put_element(out, o + j, &value_bits, 0, esize);
            else put_element(out, o + j, x, src * W + s, esize);
        }
    }
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

/* gx (unpadded, zeroed here) += each padded cell of g at the cell it copies (constant cells copy nothing) */
void EXPORT_T(pad_backward)(const T *g, T *gx, const int *dims, int mode) {
    int nd = dims[0];
    const int *size = dims + 1, *lo = dims + 1 + nd, *hi = dims + 1 + 2 * nd;
    int W = size[nd - 1], lw = lo[nd - 1], OW = W + lw + hi[nd - 1], rows = 1, total = W;
    for (int d = 0; d < nd - 1; d++) {
        rows *= size[d] + lo[d] + hi[d];
        total *= size[d];
    }
    for (int i = 0; i < total; i++) gx[i] = 0;
    for (int r = 0; r < rows; r++) {
        int src = source_row(r, dims, mode);
        if (src < 0) continue;
        const T *gr = g + r * OW;
        T *xr = gx + src * W;
        for (int j = 0; j < OW; j++) {
            int s = source(j - lw, W, mode);
            if (s >= 0) xr[s] += gr[j];
        }
    }
}

#endif
