/* Unblocked LU (getf2), LU solve (getrs), Cholesky (potf2) and Householder QR (geqr2, org2r)
 * for matrices of at most LM_LA_SMALL rows, column-major, with LAPACK's pivots, info codes
 * and reflector convention. A batch of 8x8
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
        T rd[LM_LA_SMALL];   /* the reciprocal diagonal, off the substitutions' dependency chain */ \
        for (int j = 0; j < n; j++) rd[j] = 1 / a[j * n + j];                                \
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
                    x[j] *= rd[j];                                                           \
                    for (int i = 0; i < j; i++) x[i] -= a[j * n + i] * x[j];                 \
                }                                                                            \
            } else {                                                                         \
                for (int j = 0; j < n; j++) {        /* U^T y = b */                          \
                    T s = x[j];                                                              \
                    for (int i = 0; i < j; i++) s -= a[j * n + i] * x[i];                    \
                    x[j] = s * rd[j];                                                        \
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
    /* solves A X = B (A^T X = B when trans) from getrf's factors, B row-major n x k: every step \
     * is one short vector operation over B's columns (the k columns of an inverse at once) */  \
    static inline void lm_small_getrs_rows_##SUF(bool trans, int n, int k, const T *a, const int *ipiv, T *x) { \
        if (!trans) {                                                                        \
            for (int i = 0; i < n; i++)                                                      \
                if (ipiv[i] - 1 != i) {                                                      \
                    T *r = x + (long)i * k, *q = x + (long)(ipiv[i] - 1) * k;                \
                    for (int c = 0; c < k; c++) {                                            \
                        T t = r[c];                                                          \
                        r[c] = q[c], q[c] = t;                                               \
                    }                                                                        \
                }                                                                            \
            for (int j = 0; j < n; j++) {            /* L y = b, unit diagonal */             \
                const T *rj = x + (long)j * k;                                               \
                for (int i = j + 1; i < n; i++) {                                            \
                    T l = a[j * n + i], *ri = x + (long)i * k;                               \
                    for (int c = 0; c < k; c++) ri[c] -= l * rj[c];                          \
                }                                                                            \
            }                                                                                \
            for (int j = n - 1; j >= 0; j--) {       /* U x = y */                            \
                T d = a[j * n + j], *rj = x + (long)j * k;                                   \
                for (int c = 0; c < k; c++) rj[c] /= d;                                      \
                for (int i = 0; i < j; i++) {                                                \
                    T u = a[j * n + i], *ri = x + (long)i * k;                               \
                    for (int c = 0; c < k; c++) ri[c] -= u * rj[c];                          \
                }                                                                            \
            }                                                                                \
        } else {                                                                             \
            for (int j = 0; j < n; j++) {            /* U^T y = b */                          \
                T *rj = x + (long)j * k, d = a[j * n + j];                                   \
                for (int i = 0; i < j; i++) {                                                \
                    T u = a[j * n + i];                                                      \
                    const T *ri = x + (long)i * k;                                           \
                    for (int c = 0; c < k; c++) rj[c] -= u * ri[c];                          \
                }                                                                            \
                for (int c = 0; c < k; c++) rj[c] /= d;                                      \
            }                                                                                \
            for (int j = n - 1; j >= 0; j--) {       /* L^T z = y */                          \
                T *rj = x + (long)j * k;                                                     \
                for (int i = j + 1; i < n; i++) {                                            \
                    T l = a[j * n + i];                                                      \
                    const T *ri = x + (long)i * k;                                           \
                    for (int c = 0; c < k; c++) rj[c] -= l * ri[c];                          \
                }                                                                            \
            }                                                                                \
            for (int i = n - 1; i >= 0; i--)                                                 \
                if (ipiv[i] - 1 != i) {                                                      \
                    T *r = x + (long)i * k, *q = x + (long)(ipiv[i] - 1) * k;                \
                    for (int c = 0; c < k; c++) {                                            \
                        T t = r[c];                                                          \
                        r[c] = q[c], q[c] = t;                                               \
                    }                                                                        \
                }                                                                            \
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
    }                                                                                        \
                                                                                             \
    /* A = Q R in place (m x n, ld m) as LAPACK's geqr2: H_i = I - tau_i v v^T with v_i = 1,  \
     * R_ii = -sign(alpha) ||x||. False, with a partly overwritten, for a column whose scale  \
     * would under/overflow the plain sum of squares (LAPACK's scaled norms then take it). */ \
    static inline bool lm_small_geqr2_##SUF(int m, int n, T *a, T *tau, T lo, T hi) {        \
        int k = m < n ? m : n;                                                               \
        for (int i = 0; i < k; i++) {                                                        \
            T *x = a + i * m + i, amax = 0, ss = 0;                                          \
            int len = m - i;                                                                 \
            for (int r = 0; r < len; r++) amax = fabs(x[r]) > amax ? fabs(x[r]) : amax;      \
            if (amax != 0 && !(amax > lo && amax < hi)) return false;                        \
            for (int r = 1; r < len; r++) ss += x[r] * x[r];                                 \
            if (ss == 0) {                                                                   \
                tau[i] = 0;                                                                  \
                continue;                                                                    \
            }                                                                                \
            T alpha = x[0], beta = -copysign(sqrt(alpha * alpha + ss), alpha);               \
            T t = (beta - alpha) / beta, scal = 1 / (alpha - beta);                          \
            tau[i] = t;                                                                      \
            for (int r = 1; r < len; r++) x[r] *= scal;                                      \
            x[0] = beta;                                                                     \
            for (int c = i + 1; c < n; c++) {                                                \
                T *y = a + c * m + i, d = y[0];                                              \
                for (int r = 1; r < len; r++) d += x[r] * y[r];                              \
                d *= t;                                                                      \
                y[0] -= d;                                                                   \
                for (int r = 1; r < len; r++) y[r] -= d * x[r];                             \
            }                                                                                \
        }                                                                                    \
        return true;                                                                         \
    }                                                                                        \
                                                                                             \
    /* The first `cols` columns of Q = H_0 ... H_{k-1} in place over geqr2's reflectors       \
     * (LAPACK's org2r; a is m x cols, ld m, cols <= m). */                                  \
    static inline void lm_small_org2r_##SUF(int m, int cols, int k, T *a, const T *tau) {    \
        for (int c = k; c < cols; c++)                                                       \
            for (int r = 0; r < m; r++) a[c * m + r] = r == c;                               \
        for (int i = k - 1; i >= 0; i--) {                                                   \
            T *v = a + i * m + i, t = tau[i];                                                \
            int len = m - i;                                                                 \
            if (t != 0)                                                                      \
                for (int c = i + 1; c < cols; c++) {                                         \
                    T *y = a + c * m + i, d = y[0];                                          \
                    for (int r = 1; r < len; r++) d += v[r] * y[r];                          \
                    d *= t;                                                                  \
                    y[0] -= d;                                                               \
                    for (int r = 1; r < len; r++) y[r] -= d * v[r];                          \
                }                                                                            \
            for (int r = 1; r < len; r++) v[r] *= -t;                                        \
            v[0] = 1 - t;                                                                    \
            for (int r = 0; r < i; r++) a[i * m + r] = 0;                                    \
        }                                                                                    \
    }

/* One-sided Jacobi SVD (Hestenes) of a column-major m x n matrix, m >= n, n <= LM_LA_SMALL: plane
 * rotations from the right orthogonalize a's columns (accumulated in v, n x n, when v is not NULL)
 * until every pair is orthogonal to m eps relative to its norms; then a's columns are U diag(S).
 * s gets the singular values descending and perm the column each comes from. A 8x8 matrix with
 * vectors takes about 70% of gesdd's time (whose set-up dominates so small a matrix), and its
 * singular values are as accurate. False when it did not converge in 30 sweeps or a singular
 * value is too small for its column to give a unit vector (rank deficiency, zero or non-finite
 * input): the caller runs LAPACK then. */
#define LM_DEFINE_JACOBI(T, SUF, EPS)                                                        \
    static inline bool lm_small_jacobi_svd_##SUF(int m, int n, T *a, T *v, T *s, int *perm) { \
        T tol2 = (EPS * m) * (EPS * m), nrm[LM_LA_SMALL];                                    \
        if (v)                                                                               \
            for (int j = 0; j < n; j++)                                                      \
                for (int i = 0; i < n; i++) v[j * n + i] = i == j;                           \
        int sweep = 0;                                                                       \
        for (bool rotated = true; rotated; sweep++) {                                        \
            if (sweep == 30) return false;                                                   \
            rotated = false;                                                                 \
            for (int j = 0; j < n; j++) {                                                    \
                T t = 0;                                                                     \
                for (int r = 0; r < m; r++) t += a[j * m + r] * a[j * m + r];                \
                nrm[j] = t;                                                                  \
            }                                                                                \
            for (int p = 0; p < n - 1; p++)                                                  \
                for (int q = p + 1; q < n; q++) {                                            \
                    T *ap = a + p * m, *aq = a + q * m, g = 0, al = nrm[p], be = nrm[q];     \
                    for (int r = 0; r < m; r++) g += ap[r] * aq[r];                          \
                    if (!(g * g > tol2 * al * be)) continue;                                 \
                    rotated = true;                                                          \
                    T z = (be - al) / (2 * g), t = copysign((T)1, z) / (fabs(z) + sqrt(1 + z * z)); \
                    T c = 1 / sqrt(1 + t * t), sn = c * t;                                   \
                    for (int r = 0; r < m; r++) {                                            \
                        T x = ap[r], y = aq[r];                                              \
                        ap[r] = c * x - sn * y, aq[r] = sn * x + c * y;                      \
                    }                                                                        \
                    if (v) {                                                                 \
                        T *vp = v + p * n, *vq = v + q * n;                                  \
                        for (int r = 0; r < n; r++) {                                        \
                            T x = vp[r], y = vq[r];                                          \
                            vp[r] = c * x - sn * y, vq[r] = sn * x + c * y;                  \
                        }                                                                    \
                    }                                                                        \
                    nrm[p] = al - t * g, nrm[q] = be + t * g;                                \
                }                                                                            \
        }                                                                                    \
        for (int j = 0; j < n; j++) {                                                        \
            T t = 0;                                                                         \
            for (int r = 0; r < m; r++) t += a[j * m + r] * a[j * m + r];                    \
            s[j] = sqrt(t), perm[j] = j;                                                     \
        }                                                                                    \
        for (int i = 0; i < n; i++)   /* descending, as LAPACK's */                          \
            for (int j = i + 1; j < n; j++)                                                  \
                if (s[j] > s[i]) {                                                           \
                    T t = s[i];                                                              \
                    int q = perm[i];                                                         \
                    s[i] = s[j], s[j] = t, perm[i] = perm[j], perm[j] = q;                   \
                }                                                                            \
        return n == 0 || (s[0] < (T)1e30 && s[n - 1] > s[0] * (EPS * 64 * m) && s[n - 1] > (T)1e-30); \
    }

/* Symmetric eigendecomposition of a column-major n x n matrix (n <= LM_LA_SMALL, both triangles
 * filled): Householder reduction to tridiagonal form (q accumulates the reflections when not
 * NULL), then implicit QL iterations with Wilkinson shifts, their rotations applied to q's
 * columns; eigenvalues ascending in w, eigenvectors q's columns. The textbook algorithm without
 * LAPACK's per-call set-up (its syev spends most of an 8x8 matrix's time there). False for
 * entries whose squares would under/overflow, non-finite ones, or no convergence in 30
 * iterations per eigenvalue: the caller runs LAPACK then. */
#define LM_DEFINE_SYMEIG(T, SUF, EPS, LO, HI)                                                 \
    static inline bool lm_small_symeig_##SUF(int n, T *a, T *q, T *w) {                       \
        T e[LM_LA_SMALL + 1], v[LM_LA_SMALL], p[LM_LA_SMALL], amax = 0;                       \
        for (int i = 0; i < n * n; i++) amax = fabs(a[i]) > amax ? fabs(a[i]) : amax;         \
        if (!(amax < HI) || (amax != 0 && !(amax > LO))) return false;                        \
        if (q)                                                                                \
            for (int j = 0; j < n; j++)                                                       \
                for (int i = 0; i < n; i++) q[j * n + i] = i == j;                            \
        for (int k = 0; k + 2 < n; k++) {   /* zero column k below its subdiagonal */         \
            int len = n - k - 1;                                                              \
            T *x = a + k * n + k + 1, ss = 0;                                                 \
            for (int r = 1; r < len; r++) ss += x[r] * x[r];                                  \
            if (ss == 0) continue;                                                            \
            T alpha = x[0], beta = -copysign(sqrt(alpha * alpha + ss), alpha);                \
            T tau = (beta - alpha) / beta, scal = 1 / (alpha - beta);                         \
            v[0] = 1;                                                                         \
            for (int r = 1; r < len; r++) v[r] = x[r] * scal;                                 \
            /* trailing block B (rows/cols k+1..): B <- H B H, H = I - tau v v^T */           \
            T *B = a + (k + 1) * n + k + 1, kk = 0;                                           \
            for (int i = 0; i < len; i++) p[i] = 0;                                           \
            for (int c = 0; c < len; c++)                                                     \
                for (int i = 0; i < len; i++) p[i] += B[c * n + i] * v[c];                    \
            for (int i = 0; i < len; i++) p[i] *= tau;                                        \
            for (int i = 0; i < len; i++) kk += p[i] * v[i];                                  \
            kk *= tau / 2;                                                                    \
            for (int i = 0; i < len; i++) p[i] -= kk * v[i];                                  \
            for (int c = 0; c < len; c++)                                                     \
                for (int i = 0; i < len; i++) B[c * n + i] -= v[i] * p[c] + p[i] * v[c];      \
            x[0] = beta, a[(k + 1) * n + k] = beta;                                           \
            for (int r = 1; r < len; r++) x[r] = 0, a[(k + 1 + r) * n + k] = 0;               \
            if (q) { /* q <- q H on columns k+1.. (p is free again: it holds q v) */          \
                T *Q = q + (k + 1) * n;                                                       \
                for (int i = 0; i < n; i++) p[i] = 0;                                         \
                for (int c = 0; c < len; c++)                                                 \
                    for (int i = 0; i < n; i++) p[i] += Q[c * n + i] * v[c];                  \
                for (int c = 0; c < len; c++)                                                 \
                    for (int i = 0; i < n; i++) Q[c * n + i] -= tau * p[i] * v[c];            \
            }                                                                                 \
        }                                                                                     \
        for (int i = 0; i < n; i++) w[i] = a[i * n + i], e[i] = i + 1 < n ? a[i * n + i + 1] : 0; \
        for (int l = 0; l < n; l++) {                                                         \
            for (int iter = 0;; iter++) {                                                     \
                int m = l;                                                                    \
                while (m + 1 < n && !(fabs(e[m]) <= EPS * (fabs(w[m]) + fabs(w[m + 1])))) m++; \
                if (m == l) break;                                                            \
                if (iter == 30) return false;                                                 \
                T g = (w[l + 1] - w[l]) / (2 * e[l]), r = sqrt(g * g + 1);                    \
                g = w[m] - w[l] + e[l] / (g + copysign(r, g));                                \
                T sn = 1, c = 1, shift = 0;                                                   \
                int i = m - 1;                                                                \
                for (; i >= l; i--) {                                                         \
                    T f = sn * e[i], bb = c * e[i];                                           \
                    r = sqrt(f * f + g * g);   /* in range: the entries were checked */       \
                    e[i + 1] = r;                                                             \
                    if (r == 0) {   /* split: the rotation would be undefined */              \
                        w[i + 1] -= shift;                                                    \
                        e[m] = 0;                                                             \
                        break;                                                                \
                    }                                                                         \
                    sn = f / r, c = g / r;                                                    \
                    g = w[i + 1] - shift;                                                     \
                    r = (w[i] - g) * sn + 2 * c * bb;                                         \
                    shift = sn * r;                                                           \
                    w[i + 1] = g + shift;                                                     \
                    g = c * r - bb;                                                           \
                    if (q) {                                                                  \
                        T *z0 = q + i * n, *z1 = q + (i + 1) * n;                             \
                        for (int k = 0; k < n; k++) {                                         \
                            T t = z1[k];                                                      \
                            z1[k] = sn * z0[k] + c * t;                                       \
                            z0[k] = c * z0[k] - sn * t;                                       \
                        }                                                                     \
                    }                                                                         \
                }                                                                             \
                if (r == 0 && i >= l) continue;                                               \
                w[l] -= shift, e[l] = g, e[m] = 0;                                            \
            }                                                                                 \
        }                                                                                     \
        for (int i = 0; i < n; i++) {   /* ascending, as LAPACK's */                          \
            int lo = i;                                                                       \
            for (int j = i + 1; j < n; j++) lo = w[j] < w[lo] ? j : lo;                       \
            if (lo == i) continue;                                                            \
            T t = w[i];                                                                       \
            w[i] = w[lo], w[lo] = t;                                                          \
            if (q)                                                                            \
                for (int k = 0; k < n; k++) t = q[i * n + k], q[i * n + k] = q[lo * n + k], q[lo * n + k] = t; \
        }                                                                                     \
        return true;                                                                          \
    }

LM_DEFINE_SMALL(double, d)
LM_DEFINE_SMALL(float, s)
LM_DEFINE_JACOBI(double, d, 2.220446049250313e-16)
LM_DEFINE_JACOBI(float, s, 1.1920929e-07f)
LM_DEFINE_SYMEIG(double, d, 2.220446049250313e-16, 1e-140, 1e140)
LM_DEFINE_SYMEIG(float, s, 1.1920929e-07f, 1e-15f, 1e15f)

#endif
