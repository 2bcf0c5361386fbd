/* loom._autograd.TensorBase: the C base of loom.Tensor. It holds the two
 * slots every tensor has (_h, the cffi handle; _ag, the autograd metadata)
 * and drops the handle's C reference in its dealloc. A Python __del__ did
 * that before, at ~0.2 us per tensor: a noticeable part of a small op. */
#include "autograd.h"

#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *h, *ag, *weakrefs;
} TensorObj;

static void (*release_fn)(lm_tensor *);   /* lm_release in loom._C, set by init_tensor */
static PyObject *py_release;              /* the same through cffi, for a handle of another layout */

static int Tensor_traverse(TensorObj *t, visitproc visit, void *arg) {
    Py_VISIT(t->ag);   /* a node it points to may have saved this tensor */
    return 0;
}

static int Tensor_clear(TensorObj *t) {
    Py_CLEAR(t->ag);
    return 0;
}

/* A tensor can die while an exception is in flight (an iterator dropped by the
 * loop it raised out of); the release may run Python code (the callback that
 * frees a NumPy array lent by from_numpy), which must not see that exception,
 * so it is set aside meanwhile. */
static void release_handle(PyObject *h) {
    lm_tensor *p = lmag_cdata_pointer(h);
    if (p && release_fn && !PyErr_Occurred()) {
        release_fn(p);
    } else if (p && release_fn) {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        release_fn(p);
        PyErr_Restore(et, ev, tb);
    } else if (py_release) {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        PyObject *r = PyObject_CallOneArg(py_release, h);
        if (!r) PyErr_WriteUnraisable(h);
        Py_XDECREF(r);
        PyErr_Restore(et, ev, tb);
    }
}

/* Python subclasses visit and release their own type (CPython's subtype_*
 * functions do, above a static base), so this base never touches it */
static void Tensor_dealloc(TensorObj *t) {
    PyObject_GC_UnTrack(t);
    if (t->weakrefs) PyObject_ClearWeakRefs((PyObject *)t);
    if (t->h) {
        release_handle(t->h);
        Py_CLEAR(t->h);
    }
    Py_CLEAR(t->ag);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyMemberDef Tensor_members[] = {
    {"_h", T_OBJECT_EX, offsetof(TensorObj, h), 0, "the cffi handle (lm_tensor *)"},
    {"_ag", T_OBJECT_EX, offsetof(TensorObj, ag), 0, "autograd metadata, on tensors that take part"},
    {NULL},
};

PyTypeObject lmag_TensorBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom._autograd.TensorBase",
    .tp_doc = "The C part of loom.Tensor: its handle and autograd slots.",
    .tp_basicsize = sizeof(TensorObj),
    .tp_weaklistoffset = offsetof(TensorObj, weakrefs),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Tensor_dealloc,
    .tp_traverse = (traverseproc)Tensor_traverse,
    .tp_clear = (inquiry)Tensor_clear,
    .tp_members = Tensor_members,
};

/* init_tensor(release_address, release_fn): lm_release's C address and its cffi wrapper */
PyObject *lmag_init_tensor(PyObject *mod, PyObject *args) {
    PyObject *addr, *fn;
    if (!PyArg_ParseTuple(args, "OO:init_tensor", &addr, &fn)) return NULL;
    void *p = PyLong_AsVoidPtr(addr);
    if (!p && PyErr_Occurred()) return NULL;
    release_fn = (void (*)(lm_tensor *))p;
    Py_XSETREF(py_release, Py_NewRef(fn));
    Py_RETURN_NONE;
}
