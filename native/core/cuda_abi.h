/* The plain-C boundary between loom._C and the CUDA library (loom/_cuda.so).
 *
 * The CUDA library is a leaf: kernels, launch code, the caching allocator and
 * cuBLAS glue, compiled by nvcc and linked with the static CUDA runtime. It
 * calls nothing of _C; _C loads it on first CUDA use (native/core/cuda_host.c),
 * asks for its one table (lm_cuda_backend_get) and registers the CUDA device
 * behind the device seam. So `import loom` needs no driver and no toolkit, and
 * this header is all the two sides share. Read as C (gcc) and C++ (nvcc). */
#ifndef LOOM_CUDA_ABI_H
#define LOOM_CUDA_ABI_H
#include "iter.h"

#define LM_CUDA_ABI_VERSION 1
#define LM_CUDA_CTX_BYTES 96

/* One pointwise launch: operand 0 is the output. Operands in scalar_mask (bit
 * k = operand k) are CPU numbers passed by value in `scalars` (their bytes in
 * the compute dtype); their data pointers are never read. */
typedef struct {
    lm_iter it;                          /* dims coalesced, dim 0 innermost, strides in bytes */
    unsigned scalar_mask;
    uint64_t scalars[LM_MAX_OPS];
    unsigned char ctx[LM_CUDA_CTX_BYTES];   /* the op's ctx struct, copied */
} lm_cuda_pw_args;

/* One reduction: `out` is contiguous with nout elements (the kept dims, in
 * order); kept/red describe the input's kept and reduced dims (dim 0
 * innermost, strides in bytes). mean: divide by count at the end. */
typedef struct {
    char *out;
    const char *in;
    int nkept, nred;
    int64_t kept_shape[LM_MAX_DIMS], kept_strides[LM_MAX_DIMS];
    int64_t red_shape[LM_MAX_DIMS], red_strides[LM_MAX_DIMS];
    int64_t nout, count;
    int mean;
} lm_cuda_red_args;

/* 0, or a CUDA error code (backend->error_string names it) */
typedef int (*lm_cuda_pw_fn)(const lm_cuda_pw_args *a);
typedef int (*lm_cuda_red_fn)(const lm_cuda_red_args *a);

/* a generated op's kernels per compute dtype, keyed by the op's C name */
typedef struct { const char *key; lm_cuda_pw_fn fn[LM_NUM_DTYPES]; } lm_cuda_pw_entry;
typedef struct { const char *key; lm_cuda_red_fn fn[LM_NUM_DTYPES]; } lm_cuda_red_entry;

typedef enum { LM_CUDA_H2D = 0, LM_CUDA_D2H = 1, LM_CUDA_D2D = 2 } lm_cuda_copy_kind;

typedef struct {
    int abi_version, num_dtypes, max_dims;   /* checked by _C against its own */
    const char *(*error_string)(int err);
    int (*device_count)(int *n);             /* 0 with *n (0 without a driver or a GPU), or an error */
    int (*synchronize)(void);
    /* the caching allocator: NULL when out of memory even after freeing the cache */
    void *(*malloc)(size_t nbytes);
    void (*free)(void *p, size_t nbytes);
    int (*memset0)(void *p, size_t nbytes);
    int (*memcpy)(void *dst, const void *src, size_t nbytes, int kind);
    /* allocated, peak allocated, reserved (held by the cache too) in bytes */
    void (*memory_stats)(int64_t *allocated, int64_t *peak, int64_t *reserved);
    void (*reset_peak)(void);
    int (*empty_cache)(void);
    /* operand 0 <- operand 1 elementwise, converting src_dtype to dst_dtype (src may be a scalar) */
    int (*copy_cast)(const lm_cuda_pw_args *a, int dst_dtype, int src_dtype);
    /* the generated kernels, NULL-terminated by key */
    const lm_cuda_pw_entry *const *pointwise;    /* per shard, each ending with {NULL} */
    const lm_cuda_red_entry *const *reduce;
    int nshards;
    /* cuBLAS, opened at first use from `path` (NULL: the usual library names) */
    int (*blas_open)(const char *path, char *msg, size_t cap);
    void (*set_allow_tf32)(int on);
    /* column-major cuBLAS gemm, batched by strides (elements): C = A(op) B(op) + beta C;
     * float32 and float64 */
    int (*gemm)(int dtype, int transa, int transb, int64_t m, int64_t n, int64_t k,
                const void *A, int64_t lda, int64_t stride_a, const void *B, int64_t ldb, int64_t stride_b,
                void *C, int64_t ldc, int64_t stride_c, int64_t batch, double beta);
    /* a hand-written kernel by name (native/cuda/named.cu; signatures in cuda_kernels.h), or NULL */
    void *(*kernel)(const char *name);
    /* the device's name and memory (free, total bytes) */
    int (*device_name)(char *buf, size_t cap);
    int (*mem_info)(int64_t *free_bytes, int64_t *total_bytes);
    /* events on the default stream: create (timing on), record, wait for, poll (1 done, 0 not yet), ms between */
    int (*event_create)(void **ev);
    void (*event_destroy)(void *ev);
    int (*event_record)(void *ev);
    int (*event_synchronize)(void *ev);
    int (*event_query)(void *ev);
    int (*event_elapsed)(void *start, void *end, float *ms);
    /* page-locked host memory (faster copies both ways): NULL when out of memory */
    void *(*host_alloc)(size_t nbytes);
    void (*host_free)(void *p);
} lm_cuda_backend;

#ifdef __cplusplus
extern "C" {
#endif
const lm_cuda_backend *lm_cuda_backend_get(void);
#ifdef __cplusplus
}
#endif

#endif
