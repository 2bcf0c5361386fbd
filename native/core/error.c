/* Thread-local error state (C code sets it and returns NULL/-1; the Python
 * side reads it once and raises the matching exception), and the GIL hooks. */
#include <stdarg.h>
#include <stdio.h>
#include "loom.h"

static _Thread_local int err_code;
static _Thread_local char err_msg[1024];

int lm_set_error(int code, const char *fmt, ...) {
    /* first failure wins: an outer caller must not overwrite the real cause */
    if (err_code != LM_OK) return -1;
    err_code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    return -1;
}

int lm_error_code(void) { return err_code; }
const char *lm_error_message(void) { return err_msg; }
void lm_clear_error(void) { err_code = LM_OK; err_msg[0] = 0; }

static void *(*gil_release)(void);
static void (*gil_reacquire)(void *);

void lm_set_gil_hooks(void *(*release)(void), void (*reacquire)(void *)) {
    gil_release = release;
    gil_reacquire = reacquire;
}
void *lm_gil_release(void) { return gil_release ? gil_release() : NULL; }
void lm_gil_reacquire(void *state) { if (gil_reacquire && state) gil_reacquire(state); }
