/* bfloat16 products on AMX tiles (Intel Xeon from Sapphire Rapids on, built with -march=native there).
 *
 * Why: one tile dot product (tdpbf16ps) does 16 x 16 x 32 multiply-adds; on the development host
 * four of them back to back ran at ~1.6 TMAC/s on one core, against ~0.1 for float32 FMAs, so a
 * bfloat16 model's products stop being its cost. The sums are float32 sums of exact bfloat16
 * products, as oneDNN's (PyTorch's) are on these hosts, but not the float32 path's bits: the tile
 * adds products in pairs and flushes subnormals, so `loom.backends.cpu.matmul.allow_bf16_amx = False`
 * brings back the bit-exact float32 path.
 *
 * Operands are packed into the tiles' layouts, reading any strides: A as 16 rows x 32 k, B as 16
 * k-pairs x 16 columns (each 32-bit element one column's two consecutive k), 1 KB per tile, zero
 * past the edges. A 2 x 2 block of 16 x 16 float32 result tiles takes the other four tile registers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gemm.h"

static int allowed = 1;
void lm_set_bf16_amx(int on) { __atomic_store_n(&allowed, on != 0, __ATOMIC_RELAXED); }

#if defined(__AMX_BF16__) && defined(__AMX_TILE__) && defined(__AVX512BW__) && defined(__linux__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "transpose16.h"

/* k per packed block (a multiple of 32), rows of A and columns of B per packed block (multiples of 32) */
enum { KC = 512, MCB = 2048, NCB = 256, TILE = 512 /* bfloat16 elements */ };
typedef uint16_t u16;

/* Linux hands a process the tiles' 8 KB of register state only when asked; a kernel or VM that says
 * no leaves the float32 path */
static int permitted(void) {
    static int state;   /* 0 not asked yet, 1 granted, -1 refused */
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (!s) {
        s = syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XFEATURE_XTILEDATA */) == 0 ? 1 : -1;
        __atomic_store_n(&state, s, __ATOMIC_RELEASE);
    }
    return s > 0;
}

int lm_has_amx_bf16(void) { return permitted(); }

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* B's rows 0..kc-1, columns 0..nc-1 (strides rs, cs) as ntp column tiles of ktn k tiles each */
static void pack_b(const u16 *B, int64_t rs, int64_t cs, int64_t kc, int64_t nc, int ktn, int ntp, u16 *dst) {
    for (int jt = 0; jt < ntp; jt++)
        for (int t = 0; t < ktn; t++) {
            u16 *tile = dst + ((int64_t)jt * ktn + t) * TILE;
            int64_t c0 = (int64_t)jt * 16, k0 = (int64_t)t * 32;
            int64_t cn = min64(16, nc - c0), kn = min64(32, kc - k0);
            if (cn == 16 && kn == 32 && rs == 1) {   /* a column's k run along memory: 32-bit pairs, transposed */
                __m512 r[16];
                for (int c = 0; c < 16; c++) r[c] = _mm512_loadu_ps((const float *)(B + (c0 + c) * cs + k0));
                transpose16(r);
                for (int kp = 0; kp < 16; kp++) _mm512_storeu_ps((float *)(tile + kp * 32), r[kp]);
            } else if (cn == 16 && kn == 32 && cs == 1) {   /* rows along memory: two rows interleaved */
                for (int kp = 0; kp < 16; kp++) {
                    const u16 *r0 = B + (k0 + 2 * kp) * rs + c0;
                    __m512i lo = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)r0));
                    __m512i hi = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(r0 + rs)));
                    _mm512_storeu_si512(tile + kp * 32, _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
                }
            } else {
                for (int kp = 0; kp < 16; kp++)
                    for (int c = 0; c < 16; c++)
                        for (int h = 0; h < 2; h++) {
                            int64_t k = 2 * kp + h;
                            tile[kp * 32 + c * 2 + h] = k < kn && c < cn ? B[(k0 + k) * rs + (c0 + c) * cs] : 0;
                        }
            }
        }
}

/* A's rows 0..mc-1, k 0..kc-1 (strides rs, cs) as mtp row tiles of ktn k tiles each */
static void pack_a(const u16 *A, int64_t rs, int64_t cs, int64_t mc, int64_t kc, int ktn, int mtp, u16 *dst) {
    for (int it = 0; it < mtp; it++)
        for (int t = 0; t < ktn; t++) {
            u16 *tile = dst + ((int64_t)it * ktn + t) * TILE;
            int64_t r0 = (int64_t)it * 16, k0 = (int64_t)t * 32;
            int64_t rn = min64(16, mc - r0), kn = min64(32, kc - k0);
            if (rn == 16 && kn > 0 && cs == 1) {   /* rows along memory: copies, masked at the k edge */
                __mmask32 m = kn == 32 ? ~(__mmask32)0 : (((__mmask32)1 << kn) - 1);
                for (int r = 0; r < 16; r++)
                    _mm512_storeu_si512(tile + r * 32, _mm512_maskz_loadu_epi16(m, A + (r0 + r) * rs + k0));
            } else if (rn == 16 && kn == 32 && rs == 1) {   /* columns along memory: k pairs, transposed */
                __m512 v[16];
                for (int kp = 0; kp < 16; kp++) {
                    const u16 *p = A + (k0 + 2 * kp) * cs + r0;
                    __m512i lo = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
                    __m512i hi = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(p + cs)));
                    v[kp] = _mm512_castsi512_ps(_mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
                }
                transpose16(v);
                for (int r = 0; r < 16; r++) _mm512_storeu_ps((float *)(tile + r * 32), v[r]);
            } else {
                for (int r = 0; r < 16; r++)
                    for (int k = 0; k < 32; k++)
                        tile[r * 32 + k] = r < rn && k < kn ? A[(r0 + r) * rs + (k0 + k) * cs] : 0;
            }
        }
}

/* result tile T (rows x cols valid of C, row stride ldc) into its register: C's values when adding */
#define LOAD_C(T, C, ldc, rows, cols, add, tmp)                                                          \
    do {                                                                                                  \
        if (!(add) || (rows) <= 0 || (cols) <= 0) _tile_zero(T);                                         \
        else if ((rows) == 16 && (cols) == 16) _tile_loadd(T, C, (ldc) * 4);                             \
        else {                                                                                            \
            memset(tmp, 0, sizeof(float) * 256);                                                          \
            for (int r = 0; r < (rows); r++) memcpy(tmp + r * 16, (C) + r * (ldc), sizeof(float) * (cols)); \
            _tile_loadd(T, tmp, 64);                                                                      \
        }                                                                                                 \
    } while (0)
#define STORE_C(T, C, ldc, rows, cols, tmp)                                                               \
    do {                                                                                                  \
        if ((rows) == 16 && (cols) == 16) _tile_stored(T, C, (ldc) * 4);                                 \
        else if ((rows) > 0 && (cols) > 0) {                                                              \
            _tile_stored(T, tmp, 64);                                                                     \
            for (int r = 0; r < (rows); r++) memcpy((C) + r * (ldc), tmp + r * 16, sizeof(float) * (cols)); \
        }                                                                                                 \
    } while (0)

/* C's rows x cols block (up to 32 x 32) = or += two row tiles of A times two column tiles of B */
static void block2x2(int ktn, const u16 *a0, const u16 *b0, float *c, int64_t ldc, int64_t rows, int64_t cols,
                     bool add) {
    float tmp[256];
    const u16 *a1 = a0 + (int64_t)ktn * TILE, *b1 = b0 + (int64_t)ktn * TILE;
    int64_t r0 = min64(rows, 16), r1 = min64(rows - 16, 16), c0 = min64(cols, 16), c1 = min64(cols - 16, 16);
    LOAD_C(0, c, ldc, r0, c0, add, tmp);
    LOAD_C(1, c + 16, ldc, r0, c1, add, tmp);
    LOAD_C(2, c + 16 * ldc, ldc, r1, c0, add, tmp);
    LOAD_C(3, c + 16 * ldc + 16, ldc, r1, c1, add, tmp);
    for (int t = 0; t < ktn; t++) {
        _tile_loadd(4, a0 + t * TILE, 64);
        _tile_loadd(5, a1 + t * TILE, 64);
        _tile_loadd(6, b0 + t * TILE, 64);
        _tile_loadd(7, b1 + t * TILE, 64);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    STORE_C(0, c, ldc, r0, c0, tmp);
    STORE_C(1, c + 16, ldc, r0, c1, tmp);
    STORE_C(2, c + 16 * ldc, ldc, r1, c0, tmp);
    STORE_C(3, c + 16 * ldc + 16, ldc, r1, c1, tmp);
}

bool lm_gemm_amx_bf16(int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, float *c, int64_t ldc, bool accumulate) {
    if (!__atomic_load_n(&allowed, __ATOMIC_RELAXED) || M <= 0 || N <= 0 || K <= 0 || !permitted()) return false;
    int ktmax = (int)((min64(K, KC) + 31) / 32);
    int mtmax = (int)((min64(M, MCB) + 31) / 32 * 2), ntmax = (int)((min64(N, NCB) + 31) / 32 * 2);
    u16 *ap = aligned_alloc(64, (size_t)mtmax * ktmax * TILE * sizeof(u16));
    u16 *bp = aligned_alloc(64, (size_t)ntmax * ktmax * TILE * sizeof(u16));
    if (!ap || !bp) {
        free(ap);
        free(bp);
        return false;
    }
    struct { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } cfg = {0};
    cfg.palette = 1;
    for (int i = 0; i < 8; i++) cfg.colsb[i] = 64, cfg.rows[i] = 16;
    _tile_loadconfig(&cfg);
    const u16 *A = (const u16 *)a.p, *B = (const u16 *)b.p;
    for (int64_t p0 = 0; p0 < K; p0 += KC) {
        int64_t kc = min64(K - p0, KC);
        int ktn = (int)((kc + 31) / 32);
        bool add = accumulate || p0 > 0;
        for (int64_t i0 = 0; i0 < M; i0 += MCB) {
            int64_t mc = min64(M - i0, MCB);
            int mt = (int)((mc + 31) / 32 * 2);
            pack_a(A + i0 * a.rs + p0 * a.cs, a.rs, a.cs, mc, kc, ktn, mt, ap);
            for (int64_t j0 = 0; j0 < N; j0 += NCB) {
                int64_t nc = min64(N - j0, NCB);
                int nt = (int)((nc + 31) / 32 * 2);
                pack_b(B + p0 * b.rs + j0 * b.cs, b.rs, b.cs, kc, nc, ktn, nt, bp);
                for (int it = 0; it < mt; it += 2)
                    for (int jt = 0; jt < nt; jt += 2)
                        block2x2(ktn, ap + (int64_t)it * ktn * TILE, bp + (int64_t)jt * ktn * TILE,
                                 c + (i0 + it * 16) * ldc + j0 + jt * 16, ldc, mc - it * 16, nc - jt * 16, add);
            }
        }
    }
    _tile_release();
    free(ap);
    free(bp);
    return true;
}

#else
int lm_has_amx_bf16(void) { return 0; }

bool lm_gemm_amx_bf16(int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, float *c, int64_t ldc, bool accumulate) {
    (void)M, (void)N, (void)K, (void)a, (void)b, (void)c, (void)ldc, (void)accumulate;
    return false;
}
#endif
