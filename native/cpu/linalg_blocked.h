/* Blocked LU, Cholesky and QR factorizations and SVD whose trailing updates run through lm_gemm
 * (loom's AVX-512 kernels), for the float32/float64 matrices where that beats OpenBLAS's LAPACK:
 * see linalg_blocked.c. */
#ifndef LM_LINALG_BLOCKED_H
#define LM_LINALG_BLOCKED_H
#include <stdbool.h>

/* getrf of the column-major m x n matrix a (leading dim m): LAPACK's factors, 1-based pivots
 * and info. false (a untouched) where it does not take the matrix: the caller runs LAPACK. */
bool lm_blocked_getrf(int dtype, int m, int n, void *a, int *ipiv, int *info);

/* potrf("L") of the column-major n x n matrix a (leading dim n), LAPACK's info; false (a
 * untouched) where it does not take the matrix. The strict upper triangle is clobbered. */
bool lm_blocked_potrf(int dtype, int n, void *a, int *info);

/* geqrf of the column-major m x n matrix a (leading dim m): R above the diagonal, the
 * reflectors below, min(m, n) taus; false (a untouched) where it does not take the matrix. */
bool lm_blocked_geqrf(int dtype, int m, int n, void *a, void *tau);

/* orgqr: the first n columns of Q (m x n, leading dim m) from the k reflectors geqrf left in a
 * and tau; false (a untouched) where it does not take them. */
bool lm_blocked_orgqr(int dtype, int m, int n, int k, void *a, const void *tau);

/* gesdd's results for the column-major m x n matrix a (m >= n, leading dim m; destroyed): the
 * singular values s (n, descending), gesdd's info (-4 for a NaN in a, else bdsdc's), and with
 * compute_uv the left vectors u (m x ucols, ucols n or m, leading dim m) and the right ones v
 * (n x n, leading dim n: V itself, the transpose of gesdd's VT). false (nothing written) where it does not take the
 * matrix: the caller runs gesdd. */
bool lm_blocked_svd(int dtype, int m, int n, void *a, void *s, bool compute_uv, int ucols, void *u, void *v, int *info);

/* whether lm_blocked_svd takes an m x n matrix (m >= n) of dtype */
bool lm_blocked_svd_takes(int dtype, int m, int n);

#endif
