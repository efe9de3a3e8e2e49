/* Dense linear algebra for the linalg_* primitives, in float64 (float32 inputs run on a float64 copy and round once):
 * LU with partial pivoting (inv, det, slogdet, solve), Cholesky, triangular solve, Householder QR with LAPACK's
 * signs (dgeqrf + dorgqr), symmetric eigendecomposition by cyclic Jacobi, SVD by one-sided Jacobi, and minimum-norm
 * least squares through the SVD.
 *
 * Every kernel takes `batch` contiguous row-major matrices and loops over them; `work` is scratch the caller sizes
 * as each kernel's comment says. Launch shape: one call, single thread. */
#include <math.h>

#include "kernels.h"

/* LU of the n x n matrix a in place (L unit lower, U upper; piv[i] the row swapped into row i). Returns the sign
 * of the permutation, or 0 when a pivot is exactly zero (singular: LAPACK's info > 0); elimination then skips
 * that column, as getrf does. */
static int lu(double *a, int n, int *piv) {
    int sign = 1, singular = 0;
    for (int j = 0; j < n; j++) {
        int p = j;
        double best = fabs(a[j * n + j]);
        for (int i = j + 1; i < n; i++)
            if (fabs(a[i * n + j]) > best) {
                best = fabs(a[i * n + j]);
                p = i;
            }
        piv[j] = p;
        if (p != j) {
            for (int c = 0; c < n; c++) {
                double t = a[j * n + c];
                a[j * n + c] = a[p * n + c];
                a[p * n + c] = t;
            }
            sign = -sign;
        }
        double d = a[j * n + j];
        if (d == 0) {
            singular = 1;
            continue;
        }
        for (int i = j + 1; i < n; i++) {
            double f = a[i * n + j] / d;
            a[i * n + j] = f;
            if (f != 0)
                for (int c = j + 1; c < n; c++) a[i * n + c] -= f * a[j * n + c];
        }
    }
    return singular ? 0 : sign;
}

/* x (n x k) := A^-1 x for the LU factors of A */
static void lu_solve(const double *lu_, const int *piv, double *x, int n, int k) {
    for (int j = 0; j < n; j++)
        if (piv[j] != j)
            for (int c = 0; c < k; c++) {
                double t = x[j * k + c];
                x[j * k + c] = x[piv[j] * k + c];
                x[piv[j] * k + c] = t;
            }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            double f = lu_[i * n + j];
            if (f != 0)
                for (int c = 0; c < k; c++) x[i * k + c] -= f * x[j * k + c];
        }
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++) {
            double f = lu_[i * n + j];
            if (f != 0)
                for (int c = 0; c < k; c++) x[i * k + c] -= f * x[j * k + c];
        }
        for (int c = 0; c < k; c++) x[i * k + c] /= lu_[i * n + i];
    }
}

/* inverses; work: n*n doubles + n ints. Returns 1 + the first singular matrix's position, or 0. */
EXPORT(linalg_inv) int linalg_inv(const double *a, double *out, int batch, int n, double *work) {
    int *piv = (int *)(work + n * n);
    for (int b = 0; b < batch; b++) {
        __builtin_memcpy(work, a + b * n * n, sizeof(double) * n * n);
        if (!lu(work, n, piv)) return b + 1;
        double *x = out + b * n * n;
        for (int i = 0; i < n * n; i++) x[i] = i % (n + 1) == 0;
        lu_solve(work, piv, x, n, n);
    }
    return 0;
}

/* X = A^-1 B with B (n x k); work as linalg_inv. Returns 1 + the first singular matrix's position, or 0. */
EXPORT(linalg_solve) int linalg_solve(const double *a, const double *bm, double *out, int batch, int n, int k,
                                      double *work) {
    int *piv = (int *)(work + n * n);
    for (int b = 0; b < batch; b++) {
        __builtin_memcpy(work, a + b * n * n, sizeof(double) * n * n);
        if (!lu(work, n, piv)) return b + 1;
        __builtin_memcpy(out + b * n * k, bm + b * n * k, sizeof(double) * n * k);
        lu_solve(work, piv, out + b * n * k, n, k);
    }
    return 0;
}

/* determinant (logabs 0: det itself into sign) or (sign, log|det|); work as linalg_inv */
EXPORT(linalg_det) void linalg_det(const double *a, double *sign, double *logabs, int batch, int n, double *work) {
    int *piv = (int *)(work + n * n);
    for (int b = 0; b < batch; b++) {
        __builtin_memcpy(work, a + b * n * n, sizeof(double) * n * n);
        int s = lu(work, n, piv);
        /* the row-swap sign survives a singular matrix (its det is 0 either way) */
        int swaps = 0;
        for (int j = 0; j < n; j++) swaps += piv[j] != j;
        double sg = swaps & 1 ? -1 : 1, la = 0, det = sg;
        for (int j = 0; j < n; j++) {
            double d = work[j * n + j];
            det *= d;
            if (d < 0) sg = -sg;
            la += log(fabs(d));
        }
        if (logabs) {
            sign[b] = s == 0 ? 0 : sg;
            logabs[b] = s == 0 ? -INFINITY : la;
        } else {
            sign[b] = det;
        }
    }
}

/* lower Cholesky factor of the lower triangle of each matrix (upper entries zeroed); info[b] = 0 or the order of
 * the first leading minor that is not positive-definite (the factor is zero from that column on) */
EXPORT(linalg_cholesky) void linalg_cholesky(const double *a, double *l, int32_t *info, int batch, int n) {
    for (int b = 0; b < batch; b++) {
        const double *A = a + b * n * n;
        double *L = l + b * n * n;
        for (int i = 0; i < n * n; i++) L[i] = 0;
        info[b] = 0;
        for (int j = 0; j < n; j++) {
            double d = A[j * n + j];
            for (int c = 0; c < j; c++) d -= L[j * n + c] * L[j * n + c];
            if (!(d > 0)) {
                info[b] = j + 1;
                for (int i = 0; i < n; i++)
                    for (int c = j; c < n; c++) L[i * n + c] = 0;
                break;
            }
            d = sqrt(d);
            L[j * n + j] = d;
            for (int i = j + 1; i < n; i++) {
                double s = A[i * n + j];
                for (int c = 0; c < j; c++) s -= L[i * n + c] * L[j * n + c];
                L[i * n + j] = s / d;
            }
        }
    }
}

/* X with T X = B, T the upper (or lower) triangle of A (unit: ones on its diagonal), B (n x k), column by column in
 * BLAS trsm's order (a solved entry that is zero is not propagated, so a zero on the diagonal gives inf/nan exactly
 * where LAPACK's does) */
EXPORT(linalg_solve_triangular) void linalg_solve_triangular(const double *a, const double *bm, double *out,
                                                             int batch, int n, int k, int upper, int unit) {
    for (int b = 0; b < batch; b++) {
        const double *A = a + b * n * n;
        double *X = out + b * n * k;
        __builtin_memcpy(X, bm + b * n * k, sizeof(double) * n * k);
        for (int c = 0; c < k; c++)
            for (int t = 0; t < n; t++) {
                int j = upper ? n - 1 - t : t;
                double xj = X[j * k + c];
                if (xj == 0) continue;
                if (!unit) X[j * k + c] = xj = xj / A[j * n + j];
                int lo = upper ? 0 : j + 1, hi = upper ? j : n;
                for (int i = lo; i < hi; i++) X[i * k + c] -= xj * A[i * n + j];
            }
    }
}

/* sqrt(sum of squares) of n values at stride s, scaled against overflow */
static double norm2(const double *x, int n, int s) {
    double scale = 0, sum = 0;
    for (int i = 0; i < n; i++) scale = fmax(scale, fabs(x[i * s]));
    if (scale == 0 || scale != scale) return scale;
    for (int i = 0; i < n; i++) {
        double v = x[i * s] / scale;
        sum += v * v;
    }
    return scale * sqrt(sum);
}

/* Householder QR (LAPACK's dgeqrf + dorgqr signs). r (rrows x n): the upper triangle of the factored matrix;
 * q (m x qcols) when non-0: the first qcols columns of H_0 ... H_{k-1}. work: m*n + min(m, n) doubles. */
EXPORT(linalg_qr) void linalg_qr(const double *a, double *q, double *r, int batch, int m, int n, int qcols,
                                 int rrows, double *work) {
    int k = m < n ? m : n;
    double *A = work, *tau = work + m * n;
    for (int b = 0; b < batch; b++) {
        __builtin_memcpy(A, a + b * m * n, sizeof(double) * m * n);
        for (int j = 0; j < k; j++) {
            double alpha = A[j * n + j], xnorm = j + 1 < m ? norm2(A + (j + 1) * n + j, m - j - 1, n) : 0;
            tau[j] = 0;
            if (xnorm == 0) continue;
            double beta = -copysign(hypot(alpha, xnorm), alpha);
            tau[j] = (beta - alpha) / beta;
            double scal = 1 / (alpha - beta);
            for (int i = j + 1; i < m; i++) A[i * n + j] *= scal;
            A[j * n + j] = beta;
            for (int c = j + 1; c < n; c++) { /* A[j:, c] -= tau v (v . A[j:, c]), v = (1, A[j+1:, j]) */
                double w = A[j * n + c];
                for (int i = j + 1; i < m; i++) w += A[i * n + j] * A[i * n + c];
                w *= tau[j];
                A[j * n + c] -= w;
                for (int i = j + 1; i < m; i++) A[i * n + c] -= w * A[i * n + j];
            }
        }
        double *R = r + b * rrows * n;
        for (int i = 0; i < rrows; i++)
            for (int c = 0; c < n; c++) R[i * n + c] = (c >= i && i < m) ? A[i * n + c] : 0;
        if (!q) continue;
        double *Q = q + b * m * qcols;
        for (int i = 0; i < m; i++)
            for (int c = 0; c < qcols; c++) Q[i * qcols + c] = i == c;
        for (int j = k - 1; j >= 0; j--) {
            if (tau[j] == 0) continue;
            for (int c = 0; c < qcols; c++) {
                double w = Q[j * qcols + c];
                for (int i = j + 1; i < m; i++) w += A[i * n + j] * Q[i * qcols + c];
                w *= tau[j];
                Q[j * qcols + c] -= w;
                for (int i = j + 1; i < m; i++) Q[i * qcols + c] -= w * A[i * n + j];
            }
        }
    }
}

/* rotate columns p, q of the rows x cols matrix x by (c, s): x_p' = c x_p - s x_q, x_q' = s x_p + c x_q */
static void rotate_cols(double *x, int rows, int cols, int p, int q, double c, double s) {
    for (int i = 0; i < rows; i++) {
        double xp = x[i * cols + p], xq = x[i * cols + q];
        x[i * cols + p] = c * xp - s * xq;
        x[i * cols + q] = s * xp + c * xq;
    }
}

/* sort values descending (ascending when !desc) and permute the columns of the rows x n matrices x, y the same way
 * (either may be 0) */
static void sort_by_value(double *val, double *x, int xrows, double *y, int yrows, int n, int desc) {
    for (int i = 0; i < n; i++) {
        int best = i;
        for (int j = i + 1; j < n; j++)
            if (desc ? val[j] > val[best] : val[j] < val[best]) best = j;
        if (best == i) continue;
        double t = val[i];
        val[i] = val[best];
        val[best] = t;
        for (int r = 0; x && r < xrows; r++) {
            t = x[r * n + i];
            x[r * n + i] = x[r * n + best];
            x[r * n + best] = t;
        }
        for (int r = 0; y && r < yrows; r++) {
            t = y[r * n + i];
            y[r * n + i] = y[r * n + best];
            y[r * n + best] = t;
        }
    }
}

/* eigenvalues ascending (w) and eigenvectors as columns (v, when non-0) of the symmetric matrix read from the lower
 * (upper) triangle, by cyclic Jacobi rotations. work: n*n doubles (+ n*n more when v is 0). */
EXPORT(linalg_eigh) void linalg_eigh(const double *a, double *w, double *v, int batch, int n, int upper,
                                     double *work) {
    double *S = work;
    for (int b = 0; b < batch; b++) {
        const double *A = a + b * n * n;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                int lower_part = (i >= j) != upper || i == j;
                S[i * n + j] = lower_part ? A[i * n + j] : A[j * n + i];
            }
        double *V = v ? v + b * n * n : work + n * n;
        for (int i = 0; i < n * n; i++) V[i] = i % (n + 1) == 0;
        for (int sweep = 0; sweep < 100; sweep++) {
            double off = 0, diag = 0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    if (i == j) diag += S[i * n + i] * S[i * n + i];
                    else off += S[i * n + j] * S[i * n + j];
                }
            if (off <= 1e-30 * diag || off == 0 || off != off) break;
            for (int p = 0; p < n - 1; p++)
                for (int q = p + 1; q < n; q++) {
                    double apq = S[p * n + q];
                    if (apq == 0) continue;
                    double theta = (S[q * n + q] - S[p * n + p]) / (2 * apq);
                    double t = copysign(1.0, theta) / (fabs(theta) + sqrt(theta * theta + 1));
                    if (isinf(theta)) t = 0.5 / theta;
                    double c = 1 / sqrt(t * t + 1), s = t * c;
                    /* S := J^T S J with J the rotation in the (p, q) plane */
                    rotate_cols(S, n, n, p, q, c, s);
                    for (int j = 0; j < n; j++) {
                        double sp = S[p * n + j], sq = S[q * n + j];
                        S[p * n + j] = c * sp - s * sq;
                        S[q * n + j] = s * sp + c * sq;
                    }
                    rotate_cols(V, n, n, p, q, c, s);
                }
        }
        double *W = w + b * n;
        for (int i = 0; i < n; i++) W[i] = S[i * n + i];
        sort_by_value(W, V, n, 0, 0, n, 0);
    }
}

/* Completes the columns [done, cols) of the rows x cols matrix u (rows >= cols) to an orthonormal set with the
 * columns [0, done), by Gram-Schmidt over the standard basis. */
static void complete_basis(double *u, int rows, int cols, int done) {
    int e = 0;
    for (int c = done; c < cols && e < rows; e++) {
        for (int i = 0; i < rows; i++) u[i * cols + c] = i == e;
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j < c; j++) {
                double d = 0;
                for (int i = 0; i < rows; i++) d += u[i * cols + j] * u[i * cols + c];
                for (int i = 0; i < rows; i++) u[i * cols + c] -= d * u[i * cols + j];
            }
        double nrm = norm2(u + c, rows, cols);
        if (nrm < 1e-8) continue;
        for (int i = 0; i < rows; i++) u[i * cols + c] /= nrm;
        c++;
    }
}

/* SVD of the m x n matrix A with m >= n by one-sided Jacobi: U (m x ucols), s (n, descending), V (n x n, columns:
 * right singular vectors). u, v may be 0 (values only). work: m*n + n*n doubles. */
static void svd_tall(const double *A, int m, int n, int a_transposed, double *s, double *u, int ucols, double *v,
                     double *work) {
    double *X = work, *Vm = work + m * n;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) X[i * n + j] = a_transposed ? A[j * m + i] : A[i * n + j];
    for (int i = 0; i < n * n; i++) Vm[i] = i % (n + 1) == 0;
    for (int sweep = 0; sweep < 100; sweep++) {
        int rotated = 0;
        for (int p = 0; p < n - 1; p++)
            for (int q = p + 1; q < n; q++) {
                double alpha = 0, beta = 0, gamma = 0;
                for (int i = 0; i < m; i++) {
                    double xp = X[i * n + p], xq = X[i * n + q];
                    alpha += xp * xp;
                    beta += xq * xq;
                    gamma += xp * xq;
                }
                if (gamma == 0 || fabs(gamma) <= 1e-15 * sqrt(alpha * beta)) continue;
                rotated = 1;
                double zeta = (beta - alpha) / (2 * gamma);
                double t = copysign(1.0, zeta) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), sn = c * t;
                rotate_cols(X, m, n, p, q, c, sn);
                rotate_cols(Vm, n, n, p, q, c, sn);
            }
        if (!rotated) break;
    }
    for (int j = 0; j < n; j++) s[j] = norm2(X + j, m, n);
    sort_by_value(s, X, m, Vm, n, n, 1);
    if (v) __builtin_memcpy(v, Vm, sizeof(double) * n * n);
    if (!u) return;
    int r = 0;
    double tol = (s[0] > 0 ? s[0] : 1) * 1e-14 * (m > n ? m : n);
    for (int j = 0; j < n; j++)
        if (s[j] > tol) r = j + 1;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < ucols; j++) u[i * ucols + j] = j < r ? X[i * n + j] / s[j] : 0;
    complete_basis(u, m, ucols, r);
}

/* U (m x ucols), S (k), Vh (vrows x n) of each A (m x n), k = min(m, n); ucols/vrows: k or the full size. u and vh
 * may be 0 (values only). work: big*k + 2*k*k + big*big doubles, big = max(m, n). */
EXPORT(linalg_svd) void linalg_svd(const double *a, double *u, double *s, double *vh, int batch, int m, int n,
                                   int ucols, int vrows, double *work) {
    int k = m < n ? m : n, big = m > n ? m : n;
    double *inner = work, *U2 = inner + big * k + k * k, *V2 = U2 + big * big;
    for (int b = 0; b < batch; b++) {
        const double *A = a + b * m * n;
        double *S = s + b * k, *Ub = u ? u + b * m * ucols : 0, *Vb = vh ? vh + b * vrows * n : 0;
        if (m >= n) {
            /* A = U S V^T: Vh = V^T, rows [0, vrows) (vrows = n) */
            svd_tall(A, m, n, 0, S, Ub, ucols, Vb ? V2 : 0, inner);
            if (Vb)
                for (int i = 0; i < vrows; i++)
                    for (int j = 0; j < n; j++) Vb[i * n + j] = V2[j * n + i];
        } else {
            /* A^T = U' S V'^T (A^T is n x m, tall): U = V', Vh = U'^T with U' n x vrows */
            svd_tall(A, n, m, 1, S, Vb ? U2 : 0, vrows, Ub ? V2 : 0, inner);
            if (Ub)
                for (int i = 0; i < m; i++)
                    for (int j = 0; j < ucols; j++) Ub[i * ucols + j] = V2[i * m + j];
            if (Vb)
                for (int i = 0; i < vrows; i++)
                    for (int j = 0; j < n; j++) Vb[i * n + j] = U2[j * vrows + i];
        }
    }
}

/* minimum-norm least squares X (n x k) of A (m x n) X = B (m x k) through the SVD, singular values <= rcond * the
 * largest dropped; rank[b] the number kept. work: m*mn + mn + mn*n + mn*k doubles (mn = min(m, n)) plus
 * linalg_svd's. */
EXPORT(linalg_lstsq) void linalg_lstsq(const double *a, const double *bm, double *x, int64_t *rank, int batch, int m,
                                       int n, int k, double rcond, double *work) {
    int mn = m < n ? m : n;
    double *U = work, *S = U + m * mn, *Vh = S + mn, *T = Vh + mn * n, *svd_work = T + mn * k;
    for (int b = 0; b < batch; b++) {
        linalg_svd(a + b * m * n, U, S, Vh, 1, m, n, mn, mn, svd_work);
        const double *B = bm + b * m * k;
        double cut = rcond * S[0];
        int kept = 0;
        for (int j = 0; j < mn; j++) { /* T = diag(1/s) U^T B over the kept values */
            int keep = S[j] > cut;
            kept += keep;
            for (int c = 0; c < k; c++) {
                double d = 0;
                if (keep)
                    for (int i = 0; i < m; i++) d += U[i * mn + j] * B[i * k + c];
                T[j * k + c] = keep ? d / S[j] : 0;
            }
        }
        rank[b] = kept;
        double *X = x + b * n * k;
        for (int i = 0; i < n; i++)
            for (int c = 0; c < k; c++) {
                double d = 0;
                for (int j = 0; j < mn; j++) d += Vh[j * n + i] * T[j * k + c];
                X[i * k + c] = d;
            }
    }
}
