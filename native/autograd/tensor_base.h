/* TensorBase, the C base of loom.Tensor, and the accessors the rest of
 * loom._autograd reads a tensor through. */
#ifndef LOOM_TENSOR_BASE_H
#define LOOM_TENSOR_BASE_H

#include "autograd.h"

typedef struct {
    PyObject_HEAD
    PyObject *h;          /* _h: the cffi handle (lm_tensor *) Python passes to loom._C */
    PyObject *ag;         /* _ag: autograd metadata, on tensors that take part */
    PyObject *weakrefs;
} TensorObj;

extern PyTypeObject lmag_TensorBaseType;
/* loom.Tensor and loom.GradTensor, registered by init() for the process */
extern PyTypeObject *lmag_Tensor, *lmag_GradTensor;

/* init()'s share: the classes, the ctype `lm_tensor *` and lm_release's address; -1 with an exception */
int lmag_tensor_base_init(PyObject *tensor, PyObject *grad_tensor, PyObject *ptr_type, PyObject *release_address);
lm_tensor *lmag_handle(PyObject *x);   /* x's lm_tensor; NULL with an exception set */

#endif
