/* The core C API of loom: tensors, storage, errors.
 *
 * Everything between the cdef markers is also fed to cffi (the generator
 * copies it into the cdef, with LM_MAX_DIMS turned into `...`), so the
 * Python side and the C side read the same declarations. Keep that region
 * free of preprocessor lines and of anything cffi's parser cannot read.
 */
#ifndef LOOM_H
#define LOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"   /* generated from dtypes.yaml: the lm_dtype enum, its tables, LM_DISPATCH */

#define LM_MAX_DIMS 16

/* cdef-begin */
typedef enum { LM_CPU = 0, LM_CUDA = 1, LM_NUM_DEVICES = 2 } lm_device;

/* Error codes map to Python exceptions (see python/loom/_errors.py). */
typedef enum {
    LM_OK = 0, LM_ERR_TYPE = 1, LM_ERR_VALUE = 2, LM_ERR_INDEX = 3,
    LM_ERR_RUNTIME = 4, LM_ERR_MEMORY = 5, LM_ERR_NOTIMPL = 6, LM_ERR_ZERODIV = 7,
    LM_ERR_OVERFLOW = 8
} lm_errcode;

/* A Python number crossing into C, by value: kind 0 bool, 1 int, 2 float, 3 complex (d + im*i), -1 None,
 * 4 an int in [2^63, 2^64) (uint64's upper half, PyTorch's unsigned Scalar): `i` holds its bits, `d` its
 * value. `im` comes last so {d, i, kind} initialisers stay valid. */
typedef struct { double d; int64_t i; int kind; double im; } lm_scalar;

typedef struct lm_storage {
    void *data;
    size_t nbytes;
    int64_t refcount;
    int64_t version;        /* bumped by every in-place write (autograd checks it) */
    int device;
    void (*deleter)(void *ctx);   /* set for borrowed memory, e.g. a NumPy array */
    void *ctx;
} lm_storage;

typedef struct lm_tensor {
    lm_storage *storage;
    int64_t offset;                 /* in elements */
    int64_t refcount;
    int32_t ndim;
    int32_t dtype;
    int32_t device;
    int32_t flags;                  /* LM_FLAG_* */
    int64_t shape[LM_MAX_DIMS];
    int64_t strides[LM_MAX_DIMS];   /* in elements */
} lm_tensor;

/* errors: thread-local code + message, set by whoever fails first */
int lm_error_code(void);
const char *lm_error_message(void);
void lm_clear_error(void);

/* lifetime */
void lm_retain(lm_tensor *t);
void lm_release(lm_tensor *t);

/* construction and inspection */
lm_tensor *lm_empty_strided(int ndim, const int64_t *shape, const int64_t *strides, int dtype, int device);
lm_tensor *lm_from_blob(void *data, int ndim, const int64_t *shape, const int64_t *strides,
                        int dtype, int device, void (*deleter)(void *), void *ctx);   /* borrowed memory */
lm_tensor *lm_scalar_tensor(lm_scalar value, int dtype, bool wrapped);
lm_tensor *lm_wrapped_scalar(double d, int64_t i, int kind);   /* a Python number as a weak 0-d tensor */
lm_tensor *lm_as_strided(lm_tensor *t, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset);
/* memory_format= (native/core/memory_format.c; codes: -1 none, 0 contiguous_format, 1 channels_last,
 * 2 channels_last_3d, 3 preserve_format) */
int lm_format_strides(int fmt, int ndim, const int64_t *shape, const lm_tensor *like, int64_t *strides);
int lm_has_memory_format(const lm_tensor *t, int fmt);   /* 1, 0, or -1 (wrong rank: error set) */
bool lm_is_dense(const lm_tensor *t);   /* non-overlapping and dense, in some order of its dims */
lm_tensor *lm_apply_memory_format(lm_tensor *r, int fmt, const lm_tensor *like);   /* steals r */
void *lm_data_ptr(lm_tensor *t);
uintptr_t lm_data_address(lm_tensor *t);   /* the same, as an integer: Python's data_ptr() without casts */
int64_t lm_numel(const lm_tensor *t);
bool lm_is_contiguous(const lm_tensor *t);
bool lm_same_shape(const lm_tensor *a, const lm_tensor *b);
int lm_item(lm_tensor *t, lm_scalar *out);
int lm_result_type(lm_tensor **ts, int n);   /* -1 (error set): a pair PyTorch does not promote */
bool lm_can_cast(int from, int to);
int lm_get_default_dtype(void);             /* the float dtype factories and Python floats take */
/* A hand-written kernel meets float16/bfloat16 as float32 copies, its floating results
 * rounded back (the generated entries, codegen/templates/custom.c.j2): the stored dtype
 * the floating arguments share (lm_low_note over them from -1; -2 when they differ or a
 * plain float is among them), or the dtype argument's, else -1 */
void lm_low_note(int *low, const lm_tensor *t);
int lm_low_result(int low, int dtype_arg);
lm_tensor *lm_upcast(lm_tensor *t);              /* new reference: t, or its float32 copy */
lm_tensor *lm_round_back(lm_tensor *r, int low); /* r (stolen), or r rounded to `low` */
int lm_set_default_dtype(int dtype);        /* float32 or float64 (TypeError otherwise) */
void lm_bump_version(lm_tensor *t);
/* out= and in-place for ops without their own path (composites and tuples fill theirs from
 * Python): cast-checked, an empty out resized, the shape must match; out's version bumped */
int lm_write_result(const char *name, lm_tensor *out, lm_tensor *result);
lm_tensor *lm_move_to(lm_tensor *t, int device);   /* t on `device` (a copy, or t itself); takes t's reference */

/* runtime settings */
void lm_manual_seed(uint64_t seed);
void lm_get_rng_state(uint64_t *out);        /* 5 words (native/cpu/random.c) */
int lm_set_rng_state(const uint64_t *in);
int lm_get_num_threads(void);
void lm_set_num_threads(int n);
void lm_set_parallel_threshold(int64_t n);
int64_t lm_get_parallel_threshold(void);
/* bfloat16 products on AMX tiles where the host has them (native/cpu/gemm_amx.c) */
void lm_set_bf16_amx(int on);
int lm_has_amx_bf16(void);
/* "AVX512", "AVX2" or "DEFAULT": the vector instructions the generated loops run with (native/cpu/capability.c) */
const char *lm_cpu_capability(void);
/* threaded regions run, those found late (a busy machine), ns left running inline */
void lm_parallel_stats(int64_t *out);
void lm_allocator_trim(void);
int64_t lm_allocator_cached_bytes(void);
void lm_memory_stats(int64_t *out);   /* live tensors, live storages, their bytes, the allocator's cached bytes */
void lm_install_gil_hooks(void);   /* defined by the cffi module */
/* MPI_Allreduce in place on a contiguous CPU tensor (native/core/mpi_call.c); `table` holds the MPI
 * library's MPI_Allreduce, MPI_IN_PLACE, the communicator, then per dtype code the MPI datatype and
 * op, 0 where that dtype goes the general way. MPI's return code, or -1 for the general way. */
int lm_mpi_allreduce(lm_tensor *t, const uintptr_t *table);

/* CUDA (native/cuda/host_runtime.c): the CUDA library is loaded on first use */
int lm_cuda_load(const char *path);
int lm_cuda_device_count(void);
int lm_cuda_synchronize(void);
void lm_cuda_memory_stats(int64_t *out);   /* allocated, peak allocated, reserved */
void lm_cuda_reset_peak(void);
int lm_cuda_empty_cache(void);
int lm_cuda_blas_open(const char *path);
void lm_cuda_set_allow_tf32(int on);
void lm_cuda_manual_seed(uint64_t seed);
int lm_cuda_device_name(char *buf, size_t cap);
int lm_cuda_mem_info(int64_t *out);   /* free, total bytes */
void *lm_cuda_event_create(void);
void lm_cuda_event_destroy(void *ev);
int lm_cuda_event_record(void *ev);
int lm_cuda_event_synchronize(void *ev);
int lm_cuda_event_query(void *ev);   /* 1 done, 0 pending, -1 error */
int lm_cuda_event_elapsed(void *start, void *end, float *ms);
lm_tensor *lm_pin_memory(lm_tensor *t);   /* a page-locked (pinned) host copy of t */
bool lm_is_pinned(const lm_tensor *t);

/* the op profiler (native/core/profile.c, python/loom/autograd/profiler.py) */
uintptr_t lm_profiler_state(void);   /* what each loom._C_opsN tests per op call */
void lm_profiler_start(int record_shapes);
void lm_profiler_stop(void);
int64_t lm_profiler_begin(const char *name);   /* an event (record_function): its index, -1 once the log is full */
void lm_profiler_end(int64_t event);
int64_t lm_profiler_count(void);
const char *lm_profiler_event(int64_t i, int64_t *times_parent, const char **shapes_text);
void lm_profiler_clear(void);
/* cdef-end */

#define LM_FLAG_WRAPPED_NUMBER 1   /* a Python scalar: weak in type promotion */

/* ---- internal helpers for native/ code (not exported to Python) ---- */

int lm_set_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Python calls into loom holding the GIL (releasing it costs more than a
 * small op). Big work lets other Python threads run between these two. */
void lm_set_gil_hooks(void *(*release)(void), void (*reacquire)(void *));
void *lm_gil_release(void);
void lm_gil_reacquire(void *state);

void *lm_alloc(size_t nbytes);
void lm_free(void *p, size_t nbytes);

lm_tensor *lm_empty(int ndim, const int64_t *shape, int dtype, int device);
lm_tensor *lm_empty_like(const lm_tensor *t, int dtype);
lm_tensor *lm_view(lm_tensor *base, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset);
/* the same storage read as another dtype (strides and offset in its elements): view_as_real, real */
lm_tensor *lm_view_dtype(lm_tensor *base, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset,
                         int dtype);
lm_tensor *lm_contiguous(lm_tensor *t);           /* new reference; `t` itself if already contiguous */
lm_tensor *lm_cast(lm_tensor *t, int dtype);      /* new reference; `t` itself if already that dtype */
int lm_copy_into(lm_tensor *dst, lm_tensor *src); /* broadcast + cast src into dst, across devices too */
int lm_copy_across(lm_tensor *dst, lm_tensor *src);   /* the same between host and device (native/cuda/host_runtime.c) */
lm_tensor *lm_to_host(lm_tensor *t);              /* new reference: t itself on the CPU, else a host copy */
int lm_device_mismatch(int a, int b);             /* -1 with PyTorch's "Expected all tensors to be on the same device" */
int lm_check_writable(const lm_tensor *t);         /* RuntimeError if elements share memory (expand) */
int lm_resize_empty(lm_tensor *out, int ndim, const int64_t *shape);   /* out= with no elements takes a shape */
void lm_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
int lm_broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out);
int lm_wrap_dim(int64_t dim, int ndim, int *out);   /* negative dims; IndexError when out of range */
int lm_check_shape(int n, const int64_t *shape);   /* ValueError for negative sizes or too many dims */
int lm_format_shape(char *buf, size_t cap, int ndim, const int64_t *shape);

/* 0, or -1 with OverflowError set, when a Python number has no value in dtype
 * (300 in uint8); every op writing a Scalar into a tensor asks first (checks.c) */
int lm_check_scalar_fits(lm_scalar v, int dtype);

/* reading a scalar into C types */
static inline double lm_scalar_f64(lm_scalar s) { return s.kind == 2 || s.kind == 4 ? s.d : (double)s.i; }
static inline int64_t lm_scalar_i64(lm_scalar s) { return s.kind == 2 ? (int64_t)s.d : s.i; }   /* kind 4: wraps */

static inline const char *lm_device_name(int device) { return device == LM_CPU ? "cpu" : device == LM_CUDA ? "cuda:0" : "unknown"; }

static inline char *lm_bytes(const lm_tensor *t) {
    return (char *)t->storage->data + t->offset * (int64_t)lm_itemsize(t->dtype);
}

#endif
