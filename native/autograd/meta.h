/* AutogradMeta: what a tensor taking part in autograd carries (Tensor._ag). */
#ifndef LOOM_META_H
#define LOOM_META_H

#include "autograd.h"

typedef struct {
    PyObject_HEAD
    PyObject *grad, *grad_fn, *hooks, *accumulator, *fw_grad;
    PyObject *view_base, *view_fn;   /* for a view: the tensor it aliases, and how to re-take the view of it */
    Py_ssize_t output_nr;
    char requires_grad, retains_grad, is_view;
} Meta;

extern PyTypeObject lmag_MetaType;

void lmag_meta_init(PyObject *set_grad_slow);   /* init()'s share: Tensor.grad's Python setter */
Meta *lmag_meta(PyObject *x, int *err);         /* borrowed; NULL (err 0) when x has none */
Meta *lmag_meta_new(int requires_grad, PyObject *grad_fn, Py_ssize_t output_nr);

/* the Tensor properties, as module functions */
PyObject *lmag_grad_of(PyObject *mod, PyObject *t);
PyObject *lmag_set_grad(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
PyObject *lmag_grad_fn_of(PyObject *mod, PyObject *t);
PyObject *lmag_requires_grad_of(PyObject *mod, PyObject *t);
PyObject *lmag_is_leaf(PyObject *mod, PyObject *t);

#endif
