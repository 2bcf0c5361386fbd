/* AutogradMeta, the metadata a tensor taking part in autograd carries, and
 * the Tensor properties that read it (grad, grad_fn, requires_grad, is_leaf). */
#include "meta.h"

#include "tensor_base.h"

#include <structmember.h>

/* ------------------------------------------------------------------ AutogradMeta */

/* x's AutogradMeta (borrowed), or NULL without an exception when x has none.
 * Plain Tensors never carry one: that is what lets ops on them skip autograd. */
Meta *lmag_meta(PyObject *x, int *err) {
    *err = 0;
    if (Py_TYPE(x) == lmag_Tensor || !PyObject_TypeCheck(x, &lmag_TensorBaseType)) return NULL;
    PyObject *m = ((TensorObj *)x)->ag;   /* borrowed: x keeps it alive */
    return m && Py_TYPE(m) == &lmag_MetaType ? (Meta *)m : NULL;
}

Meta *lmag_meta_new(int requires_grad, PyObject *grad_fn, Py_ssize_t output_nr) {
    Meta *m = PyObject_GC_New(Meta, &lmag_MetaType);
    if (!m) return NULL;
    m->grad = m->hooks = m->accumulator = m->fw_grad = m->view_base = m->view_fn = NULL;
    Py_XINCREF(grad_fn);
    m->grad_fn = grad_fn;
    m->output_nr = output_nr;
    m->requires_grad = (char)requires_grad;
    m->retains_grad = m->is_view = 0;
    PyObject_GC_Track(m);
    return m;
}

static PyObject *Meta_tp_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *names[] = {"requires_grad", "grad_fn", "output_nr", NULL};
    int rg = 0;
    PyObject *fn = Py_None;
    Py_ssize_t nr = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|pOn:AutogradMeta", names, &rg, &fn, &nr)) return NULL;
    return (PyObject *)lmag_meta_new(rg, fn == Py_None ? NULL : fn, nr);
}

static int Meta_traverse(Meta *m, visitproc visit, void *arg) {
    Py_VISIT(m->grad); Py_VISIT(m->grad_fn); Py_VISIT(m->hooks); Py_VISIT(m->accumulator); Py_VISIT(m->fw_grad);
    Py_VISIT(m->view_base); Py_VISIT(m->view_fn);
    return 0;
}

static int Meta_clear(Meta *m) {
    Py_CLEAR(m->grad); Py_CLEAR(m->grad_fn); Py_CLEAR(m->hooks); Py_CLEAR(m->accumulator); Py_CLEAR(m->fw_grad);
    Py_CLEAR(m->view_base); Py_CLEAR(m->view_fn);
    return 0;
}

static void Meta_dealloc(Meta *m) {
    PyObject_GC_UnTrack(m);
    Meta_clear(m);
    PyObject_GC_Del(m);
}

/* the three flags accept any truthy value, as the Python class did */
#define FLAG_GETSET(field)                                                              \
    static PyObject *get_##field(Meta *m, void *c) { return PyBool_FromLong(m->field); } \
    static int set_##field(Meta *m, PyObject *v, void *c) {                             \
        int b = v ? PyObject_IsTrue(v) : 0;                                              \
        if (b < 0) return -1;                                                            \
        m->field = (char)b;                                                              \
        return 0;                                                                        \
    }
FLAG_GETSET(requires_grad)
FLAG_GETSET(retains_grad)
FLAG_GETSET(is_view)

static PyGetSetDef Meta_getset[] = {
    {"requires_grad", (getter)get_requires_grad, (setter)set_requires_grad, NULL, NULL},
    {"retains_grad", (getter)get_retains_grad, (setter)set_retains_grad, NULL, NULL},
    {"is_view", (getter)get_is_view, (setter)set_is_view, NULL, NULL},
    {NULL},
};

static PyMemberDef Meta_members[] = {
    {"grad", T_OBJECT, offsetof(Meta, grad), 0, NULL},
    {"grad_fn", T_OBJECT, offsetof(Meta, grad_fn), 0, NULL},
    {"hooks", T_OBJECT, offsetof(Meta, hooks), 0, NULL},
    {"accumulator", T_OBJECT, offsetof(Meta, accumulator), 0, NULL},
    {"fw_grad", T_OBJECT, offsetof(Meta, fw_grad), 0, NULL},
    {"view_base", T_OBJECT, offsetof(Meta, view_base), 0, NULL},
    {"view_fn", T_OBJECT, offsetof(Meta, view_fn), 0, NULL},
    {"output_nr", T_PYSSIZET, offsetof(Meta, output_nr), 0, NULL},
    {NULL},
};

PyTypeObject lmag_MetaType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom._autograd.AutogradMeta",
    .tp_doc = "What a tensor that takes part in autograd carries (Tensor._ag).",
    .tp_basicsize = sizeof(Meta),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = Meta_tp_new,
    .tp_dealloc = (destructor)Meta_dealloc,
    .tp_traverse = (traverseproc)Meta_traverse,
    .tp_clear = (inquiry)Meta_clear,
    .tp_members = Meta_members,
    .tp_getset = Meta_getset,
};

/* The Tensor properties read on every optimizer step, as C getters (Python
 * property functions cost ~0.3 us a read): a tensor without autograd
 * metadata has no grad, no grad_fn, requires no grad and is a leaf. */
PyObject *lmag_grad_of(PyObject *mod, PyObject *t) {
    int err;
    Meta *m = lmag_meta(t, &err);
    if (err) return NULL;
    return Py_NewRef(m && m->grad ? m->grad : Py_None);
}

/* Tensor.grad's setter where the tensor already has metadata (zero_grad's
 * case); the rest goes to the Python setter, which creates it */
static PyObject *py_set_grad_slow;

PyObject *lmag_set_grad(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) { PyErr_SetString(PyExc_TypeError, "set_grad(t, value)"); return NULL; }
    int err;
    Meta *m = lmag_meta(args[0], &err);
    if (err) return NULL;
    if (!m) return py_set_grad_slow ? PyObject_Vectorcall(py_set_grad_slow, args, 2, NULL) : NULL;
    Py_XSETREF(m->grad, args[1] == Py_None ? NULL : Py_NewRef(args[1]));
    Py_RETURN_NONE;
}

void lmag_meta_init(PyObject *set_grad_slow) {
    Py_XSETREF(py_set_grad_slow, Py_NewRef(set_grad_slow));
}

PyObject *lmag_grad_fn_of(PyObject *mod, PyObject *t) {
    int err;
    Meta *m = lmag_meta(t, &err);
    if (err) return NULL;
    return Py_NewRef(m && m->grad_fn ? m->grad_fn : Py_None);
}

PyObject *lmag_requires_grad_of(PyObject *mod, PyObject *t) {
    int err;
    Meta *m = lmag_meta(t, &err);
    if (err) return NULL;
    return PyBool_FromLong(m && m->requires_grad);
}

PyObject *lmag_is_leaf(PyObject *mod, PyObject *t) {
    int err;
    Meta *m = lmag_meta(t, &err);
    if (err) return NULL;
    return PyBool_FromLong(!m || !m->grad_fn || m->grad_fn == Py_None);
}

