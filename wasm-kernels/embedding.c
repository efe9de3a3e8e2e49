/* Embedding: row gather (any element size), its gradient (row scatter-add, optional scaling by frequency) and
 * max_norm renormalisation in place; float32 / float64 for the arithmetic ones.
 *
 * Indices are int64 and already checked to lie in [0, V) by the caller (check_range). Launch shape: one call,
 * single thread, one pass over the indices. */
#ifndef T
#include <math.h>

#include "typed.h"

/* out[i] = w[idx[i]], rows of row_bytes bytes */
EXPORT(embedding)
void embedding(const uint8_t *w, const int64_t *idx, uint8_t *out, int n, int row_bytes) {
    for (int i = 0; i < n; i++) __builtin_memcpy(out + i * row_bytes, w + (int)idx[i] * row_bytes, row_bytes);
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

/* gw (V, D), zeroed here: row r sums g[i] where idx[i] == r (each divided, in T, by r's count when counts is
 * non-0: V int32s of scratch); row padding_idx (>= 0) stays zero */
void EXPORT_T(embedding_backward)(const T *g, const int64_t *idx, T *gw, int32_t *counts, int n, int V, int D,
                                int padding_idx) {
    for (int i = 0; i < V * D; i++) gw[i] = 0;
    if (counts) {
        for (int r = 0; r < V; r++) counts[r] = 0;
        for (int i = 0; i < n; i++) counts[idx[i]]++;
    }
    for (int i = 0; i < n; i++) {
        int r = (int)idx[i];
        T *dst = gw + r * D;
        const T *src = g + i * D;
        if (counts) {
            T c = (T)counts[r];
            for (int j = 0; j < D; j++) dst[j] += src[j] / c;
        } else {
            for (int j = 0; j < D; j++) dst[j] += src[j];
        }
    }
    if (padding_idx >= 0)
        for (int j = 0; j < D; j++) gw[padding_idx * D + j] = 0;
}

/* each row named in idx whose norm_type-norm (computed in double) exceeds max_norm is scaled by
 * max_norm / (norm + 1e-7) rounded to T. A repeated row is left alone: after scaling its norm is below max_norm. */
void EXPORT_T(embedding_renorm)(T *w, const int64_t *idx, int n, int D, double max_norm, double norm_type) {
    for (int i = 0; i < n; i++) {
        T *row = w + (int)idx[i] * D;
        double s = 0;
        for (int j = 0; j < D; j++) {
            double a = __builtin_fabs((double)row[j]);
            s += norm_type == 2 ? a * a : norm_type == 1 ? a : pow(a, norm_type);
        }
        double norm = norm_type == 2 ? __builtin_sqrt(s) : norm_type == 1 ? s : pow(s, 1.0 / norm_type);
        if (norm > max_norm) {
            T scale = (T)(max_norm / (norm + 1e-7));
            for (int j = 0; j < D; j++) row[j] = row[j] * scale;
        }
    }
}

#endif
