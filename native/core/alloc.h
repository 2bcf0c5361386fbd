/* Memory for tensor storages, one allocator per device behind one interface.
 * tensor.c allocates through lm_allocator_for(device); a device whose backend
 * is not built has no allocator and is refused there with a clear error. */
#ifndef LOOM_ALLOC_H
#define LOOM_ALLOC_H
#include <stddef.h>
#include "loom.h"

typedef struct lm_allocator {
    const char *device;                           /* "cpu", "cuda" */
    void *(*alloc)(size_t nbytes);                /* NULL when out of memory (no error set) */
    void (*free)(void *p, size_t nbytes);         /* nbytes as allocated; p may be NULL */
    void (*zero)(void *p, size_t nbytes);
    void (*copy)(void *dst, const void *src, size_t nbytes);   /* both on this device */
} lm_allocator;

/* The allocator of `device`, or NULL with the error set (a backend not built,
 * an unknown device code). */
const lm_allocator *lm_allocator_for(int device);
/* A backend registers its allocator when it loads (the CPU one is built in). */
void lm_register_allocator(int device, const lm_allocator *a);

#endif
