/* What every file of loom._autograd includes: Python, loom's C core and this
 * thread's grad mode. Each type has its own header (tensor_base.h, meta.h,
 * node.h, engine.h); autograd.c, the module, includes them all and nothing
 * includes it. */
#ifndef LOOM_AUTOGRAD_H
#define LOOM_AUTOGRAD_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "loom.h"

/* this thread's grad mode (grad_state.c), for C and as the module's functions */
int lmag_grad_enabled(void);
void lmag_set_grad_enabled(int on);
PyObject *lmag_py_grad_enabled(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
PyObject *lmag_py_set_grad_enabled(PyObject *mod, PyObject *on);

#endif
