/* Blocked LU, Cholesky and QR factorizations whose trailing updates run through lm_gemm (loom's
 * AVX-512 kernels), for the float32/float64 matrices where that beats OpenBLAS's LAPACK: see
 * linalg_blocked.c. */
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

#endif
