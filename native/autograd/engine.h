/* The backward loop and the Python functions it calls back. */
#ifndef LOOM_ENGINE_H
#define LOOM_ENGINE_H

#include "autograd.h"

/* init()'s share: the leaf node class and the Python steps; -1 with an exception */
int lmag_engine_init(PyObject *accumulate_grad, PyObject *accumulate, PyObject *run_hooks, PyObject *sum_to);
extern PyObject *lmag_AccumulateGrad;   /* the node class at a leaf: recording makes them, the loop spots them */

PyObject *lmag_run(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

#endif
