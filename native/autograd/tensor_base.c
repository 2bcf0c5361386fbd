/* loom._autograd.TensorBase: the C base of loom.Tensor. It holds the two
 * slots every tensor has (_h, the cffi handle; _ag, the autograd metadata)
 * and drops the handle's C reference in its dealloc. A Python __del__ did
 * that before, at ~0.2 us per tensor: a noticeable part of a small op.
 *
 * The lm_tensor behind _h is read through cffi's exported C API (the table
 * in the capsule _cffi_backend._C_API that every compiled cffi module uses,
 * entry 11: _cffi_to_c_pointer), never through cffi's object layout. */
#include "tensor_base.h"

#include <structmember.h>

PyTypeObject *lmag_Tensor, *lmag_GradTensor;

typedef char *(*to_c_pointer_fn)(PyObject *, PyObject *ctype);
enum { CFFI_TO_C_POINTER = 11 };          /* _cffi_include.h: _cffi_to_c_pointer is _cffi_exports[11] */
static to_c_pointer_fn to_c_pointer;      /* cffi's conversion of a cdata to a C pointer of a ctype */
static PyObject *ptr_type;                /* ffi.typeof("lm_tensor *") */
static void (*release_fn)(lm_tensor *);   /* lm_release in loom._C */
static PyObject *s_h;

/* h's pointer; NULL with an exception set when h is no lm_tensor * (NULL without one for ffi.NULL) */
static lm_tensor *pointer_of(PyObject *h) {
    if (!to_c_pointer) {
        PyErr_SetString(PyExc_RuntimeError, "loom autograd: used before loom._autograd.init");
        return NULL;
    }
    return (lm_tensor *)to_c_pointer(h, ptr_type);
}

lm_tensor *lmag_handle(PyObject *x) {
    PyObject *h;
    if (PyObject_TypeCheck(x, &lmag_TensorBaseType)) {
        h = Py_XNewRef(((TensorObj *)x)->h);
        if (!h) { PyErr_SetString(PyExc_AttributeError, "loom autograd: tensor without a handle"); return NULL; }
    } else if (!(h = PyObject_GetAttr(x, s_h))) {
        return NULL;
    }
    lm_tensor *t = pointer_of(h);
    Py_DECREF(h);
    if (!t && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "loom autograd: tensor without a handle");
    return t;
}

int lmag_tensor_base_init(PyObject *tensor, PyObject *grad_tensor, PyObject *type, PyObject *release_address) {
    if (!PyType_Check(tensor) || !PyType_IsSubtype((PyTypeObject *)tensor, &lmag_TensorBaseType) ||
        !PyType_Check(grad_tensor) || !PyType_IsSubtype((PyTypeObject *)grad_tensor, (PyTypeObject *)tensor)) {
        PyErr_SetString(PyExc_TypeError, "init: Tensor must subclass TensorBase, and GradTensor Tensor");
        return -1;
    }
    if (((PyTypeObject *)tensor)->tp_basicsize != ((PyTypeObject *)grad_tensor)->tp_basicsize) {
        PyErr_SetString(PyExc_TypeError, "init: GradTensor must add no slots to Tensor");
        return -1;
    }
    void *release = PyLong_AsVoidPtr(release_address);
    if (!release) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "init: lm_release's address is NULL");
        return -1;
    }
    PyObject *backend = PyImport_ImportModule("_cffi_backend");
    PyObject *capsule = backend ? PyObject_GetAttrString(backend, "_C_API") : NULL;
    void **exports = capsule ? PyCapsule_GetPointer(capsule, "cffi") : NULL;
    Py_XDECREF(capsule);
    Py_XDECREF(backend);
    if (!exports) return -1;
    if (!s_h && !(s_h = PyUnicode_InternFromString("_h"))) return -1;
    to_c_pointer = (to_c_pointer_fn)exports[CFFI_TO_C_POINTER];
    Py_XSETREF(ptr_type, Py_NewRef(type));
    release_fn = (void (*)(lm_tensor *))release;
    Py_XSETREF(lmag_Tensor, (PyTypeObject *)Py_NewRef(tensor));
    Py_XSETREF(lmag_GradTensor, (PyTypeObject *)Py_NewRef(grad_tensor));
    return 0;
}

static int Tensor_traverse(TensorObj *t, visitproc visit, void *arg) {
    Py_VISIT(t->ag);   /* a node it points to may have saved this tensor */
    return 0;
}

static int Tensor_clear(TensorObj *t) {
    Py_CLEAR(t->ag);
    return 0;
}

/* Dropping the last reference may run a storage's deleter in Python (memory
 * lent by NumPy, through cffi): an exception in flight, as when a call fails
 * and its temporaries go, is set aside for it and restored after. */
static void release_handle(PyObject *h) {
    PyObject *et = NULL, *ev = NULL, *tb = NULL;
    if (PyErr_Occurred()) PyErr_Fetch(&et, &ev, &tb);
    lm_tensor *p = release_fn ? pointer_of(h) : NULL;   /* before init no tensor exists to release */
    if (p) release_fn(p);
    else if (PyErr_Occurred()) PyErr_WriteUnraisable(h);
    if (et) PyErr_Restore(et, ev, tb);
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
