/* Unblocked LU (getf2), LU solve (getrs) and Cholesky (potf2) for matrices of at most
 * LM_LA_SMALL rows, column-major, with LAPACK's pivots and info codes. A batch of 8x8
 * matrices spends more in each LAPACK call's entry (argument checks, blocking and thread
 * decisions) than in the arithmetic, which these loops do in a few dozen nanoseconds. */
#ifndef LM_LINALG_SMALL_H
#define LM_LINALG_SMALL_H
#include <math.h>
#include <stdbool.h>

#define LM_LA_SMALL 16

#define LM_DEFINE_SMALL(T, SUF)                                                              \
    /* A = P L U in place; ipiv 1-based; returns LAPACK's info (first zero pivot) */         \
    static inline int lm_small_getrf_##SUF(int n, T *a, int *ipiv) {                         \
        int info = 0;                                                                        \
        for (int j = 0; j < n; j++) {                                                        \
            int p = j;                                                                       \
            T best = fabs(a[j * n + j]);                                                     \
            for (int i = j + 1; i < n; i++)                                                  \
                if (fabs(a[j * n + i]) > best) best = fabs(a[j * n + i]), p = i;             \
            ipiv[j] = p + 1;                                                                 \
            if (a[j * n + p] == 0) {                                                         \
                if (!info) info = j + 1;                                                     \
                continue;                                                                    \
            }                                                                                \
            if (p != j)                                                                      \
                for (int c = 0; c < n; c++) {                                                \
                    T t = a[c * n + j];                                                      \
                    a[c * n + j] = a[c * n + p], a[c * n + p] = t;                           \
                }                                                                            \
            T r = 1 / a[j * n + j];                                                          \
            for (int i = j + 1; i < n; i++) a[j * n + i] *= r;                               \
            for (int c = j + 1; c < n; c++) {                                                \
                T f = a[c * n + j];                                                          \
                if (f != 0)                                                                  \
                    for (int i = j + 1; i < n; i++) a[c * n + i] -= f * a[j * n + i];        \
            }                                                                                \
        }                                                                                    \
        return info;                                                                         \
    }                                                                                        \
                                                                                             \
    /* solves A X = B (A^T X = B when trans) from getrf's factors; B is n x k, ld n */        \
    static inline void lm_small_getrs_##SUF(bool trans, int n, int k, const T *a, const int *ipiv, T *b) { \
        for (int c = 0; c < k; c++) {                                                        \
            T *x = b + (long)c * n;                                                          \
            if (!trans) {                                                                    \
                for (int i = 0; i < n; i++)                                                  \
                    if (ipiv[i] - 1 != i) {                                                  \
                        T t = x[i];                                                          \
                        x[i] = x[ipiv[i] - 1], x[ipiv[i] - 1] = t;                           \
                    }                                                                        \
                for (int j = 0; j < n; j++)          /* L y = b, unit diagonal */             \
                    for (int i = j + 1; i < n; i++) x[i] -= a[j * n + i] * x[j];             \
                for (int j = n - 1; j >= 0; j--) {   /* U x = y */                            \
                    x[j] /= a[j * n + j];                                                    \
                    for (int i = 0; i < j; i++) x[i] -= a[j * n + i] * x[j];                 \
                }                                                                            \
            } else {                                                                         \
                for (int j = 0; j < n; j++) {        /* U^T y = b */                          \
                    T s = x[j];                                                              \
                    for (int i = 0; i < j; i++) s -= a[j * n + i] * x[i];                    \
                    x[j] = s / a[j * n + j];                                                 \
                }                                                                            \
                for (int j = n - 1; j >= 0; j--) {   /* L^T z = y */                          \
                    T s = x[j];                                                              \
                    for (int i = j + 1; i < n; i++) s -= a[j * n + i] * x[i];                \
                    x[j] = s;                                                                \
                }                                                                            \
                for (int i = n - 1; i >= 0; i--)                                             \
                    if (ipiv[i] - 1 != i) {                                                  \
                        T t = x[i];                                                          \
                        x[i] = x[ipiv[i] - 1], x[ipiv[i] - 1] = t;                           \
                    }                                                                        \
            }                                                                                \
        }                                                                                    \
    }                                                                                        \
                                                                                             \
    /* the lower Cholesky factor in place (upper triangle left as is); info as potrf's */    \
    static inline int lm_small_potrf_##SUF(int n, T *a) {                                    \
        for (int j = 0; j < n; j++) {                                                        \
            T d = a[j * n + j];                                                              \
            for (int k = 0; k < j; k++) d -= a[k * n + j] * a[k * n + j];                    \
            if (!(d > 0)) {                                                                  \
                a[j * n + j] = d;                                                            \
                return j + 1;                                                                \
            }                                                                                \
            d = sqrt(d);                                                                     \
            a[j * n + j] = d;                                                                \
            for (int i = j + 1; i < n; i++) {                                                \
                T s = a[j * n + i];                                                          \
                for (int k = 0; k < j; k++) s -= a[k * n + i] * a[k * n + j];                \
                a[j * n + i] = s / d;                                                        \
            }                                                                                \
        }                                                                                    \
        return 0;                                                                            \
    }

LM_DEFINE_SMALL(double, d)
LM_DEFINE_SMALL(float, s)

#endif
