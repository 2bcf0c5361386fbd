/* What loom._autograd's two files share: the metadata and node layouts, the
 * Python objects registered by init(), and the tensor accessors. */
#ifndef LOOM_AUTOGRAD_H
#define LOOM_AUTOGRAD_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "loom.h"

#if PY_VERSION_HEX >= 0x030D0000
#define lookup_attr(o, name, res) PyObject_GetOptionalAttr(o, name, res)
#else
#define lookup_attr(o, name, res) _PyObject_LookupAttr(o, name, res)
#endif

typedef struct {
    PyObject_HEAD
    PyObject *grad, *grad_fn, *hooks, *accumulator, *fw_grad;
    PyObject *view_base, *view_fn;   /* for a view: the tensor it aliases, and how to re-take the view of it */
    Py_ssize_t output_nr;
    char requires_grad, retains_grad, is_view;
} Meta;

typedef struct {
    PyObject_HEAD
    PyObject *next_edges;     /* tuple: (node, output_nr) or None per input */
    PyObject *input_shapes;   /* None, or a list: a shape tuple where that input was broadcast, else None */
    PyObject *pre_hooks;
    PyObject *weakrefs;
    char released;
} NodeObj;

extern PyTypeObject lmag_NodeType, lmag_TensorBaseType, lmag_MetaType, lmag_SavedMetaType, lmag_GradStateType;

/* registered by init() from Python, kept for the life of the process */
extern PyTypeObject *lmag_Tensor, *lmag_GradTensor;
extern PyObject *lmag_AccumulateGrad, *lmag_accumulate, *lmag_run_hooks, *lmag_sum_to;
extern PyObject *lmag_zero;   /* the int 0, the grad state's one key */
/* interned attribute names */
extern PyObject *lmag_s_ag, *lmag_s_backward, *lmag_s_release, *lmag_s_n_outputs, *lmag_s_variable;

int lmag_grad_enabled(void);                   /* this thread's grad mode (grad_state.c) */
void lmag_set_grad_enabled(int on);
lm_tensor *lmag_handle(PyObject *x);          /* NULL with an exception set */
lm_tensor *lmag_cdata_pointer(PyObject *h);   /* a cffi handle's pointer, or NULL (no exception) if unreadable */
PyObject *lmag_init_tensor(PyObject *mod, PyObject *args);
Meta *lmag_meta(PyObject *x, int *err);       /* borrowed; NULL (err 0) when x has none */
Meta *lmag_meta_new(int requires_grad, PyObject *grad_fn, Py_ssize_t output_nr);

/* the module's functions, by file */
PyObject *lmag_run(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);                /* engine.c */
PyObject *lmag_grad_of(PyObject *mod, PyObject *t);                                        /* meta.c */
PyObject *lmag_set_grad(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
PyObject *lmag_init_set_grad(PyObject *mod, PyObject *fn);
PyObject *lmag_grad_fn_of(PyObject *mod, PyObject *t);
PyObject *lmag_requires_grad_of(PyObject *mod, PyObject *t);
PyObject *lmag_is_leaf(PyObject *mod, PyObject *t);
PyObject *lmag_save(PyObject *mod, PyObject *t);                                           /* node.c */
PyObject *lmag_save_meta(PyObject *mod, PyObject *t);
PyObject *lmag_init_meta(PyObject *mod, PyObject *args);

#endif
