/* loom._autograd: the per-op autograd work in C — the metadata a tensor in
 * the graph carries, the node base class, recording (edges, input shapes,
 * attaching a node to results) and the backward engine's loop.
 *
 * Why C: recording in Python cost ~2.5 us per op and the engine ~2 us per node,
 * several times the op itself on small tensors. The formulas (node.backward),
 * hooks and the rare paths stay in Python and are called from here.
 *
 * Tensors reach this module as loom Tensor objects whose `_h` is a cffi
 * pointer to an lm_tensor. Reading the pointer through cffi's object layout
 * is verified once at init; if the layout ever differs, a Python function
 * gives the address instead (slower, same results). */
#include "autograd.h"

#include <structmember.h>
#include <string.h>

typedef struct { PyObject_HEAD void *c_type; char *c_data; } CDataLayout;

PyTypeObject *lmag_Tensor, *lmag_GradTensor;
PyObject *lmag_AccumulateGrad, *lmag_grad_state, *lmag_accumulate, *lmag_run_hooks, *lmag_sum_to;
PyObject *lmag_s_ag, *lmag_s_backward, *lmag_s_release, *lmag_s_n_outputs, *lmag_s_variable;
static PyObject *py_address, *s_h, *empty_tuple;
static int cdata_direct;
static PyTypeObject *cdata_type;

/* ------------------------------------------------------------------ AutogradMeta */

static PyTypeObject Meta_T;

static Meta *meta_new(int requires_grad, PyObject *grad_fn, Py_ssize_t output_nr) {
    Meta *m = PyObject_GC_New(Meta, &Meta_T);
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
    return (PyObject *)meta_new(rg, fn == Py_None ? NULL : fn, nr);
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

static PyTypeObject Meta_T = {
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

/* ------------------------------------------------------------------ Node base */


static PyObject *Node_tp_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    NodeObj *n = (NodeObj *)type->tp_alloc(type, 0);
    if (!n) return NULL;
    n->next_edges = PyTuple_New(0);
    n->input_shapes = PyTuple_New(0);
    if (!n->next_edges || !n->input_shapes) { Py_DECREF(n); return NULL; }
    return (PyObject *)n;
}

static int Node_traverse(NodeObj *n, visitproc visit, void *arg) {
    Py_VISIT(n->next_edges); Py_VISIT(n->input_shapes); Py_VISIT(n->pre_hooks);
    return 0;
}

static int Node_clear(NodeObj *n) {
    Py_CLEAR(n->next_edges); Py_CLEAR(n->input_shapes); Py_CLEAR(n->pre_hooks);
    return 0;
}

/* Python subclasses visit and release their own type (CPython's subtype_*
 * functions do, above a static base), so this base never touches it */
static void Node_dealloc(NodeObj *n) {
    PyObject_GC_UnTrack(n);
    if (n->weakrefs) PyObject_ClearWeakRefs((PyObject *)n);
    Node_clear(n);
    Py_TYPE(n)->tp_free((PyObject *)n);
}

static PyObject *get_released(NodeObj *n, void *c) { return PyBool_FromLong(n->released); }
static int set_released(NodeObj *n, PyObject *v, void *c) {
    int b = v ? PyObject_IsTrue(v) : 0;
    if (b < 0) return -1;
    n->released = (char)b;
    return 0;
}

static const char SECOND_BACKWARD[] =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward.";

/* release(): drop the saved tensors (the slots the class names in saved_fields) */
static PyObject *Node_release(NodeObj *n, PyObject *unused) {
    n->released = 1;
    PyObject *names = PyObject_GetAttrString((PyObject *)Py_TYPE(n), "saved_fields");
    PyObject *seq = names ? PySequence_Fast(names, "saved_fields must be a sequence") : NULL;
    Py_XDECREF(names);
    if (!seq) return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++)
        if (PyObject_SetAttr((PyObject *)n, PySequence_Fast_GET_ITEM(seq, i), Py_None) < 0) {
            Py_DECREF(seq);
            return NULL;
        }
    Py_DECREF(seq);
    Py_RETURN_NONE;
}

/* unpack(saved): a saved (tensor, version) pair's tensor, refused once the
 * node is released (unpack(None) is how callers ask for that error) or when
 * the tensor was written in place since it was saved */
static PyObject *Node_unpack(NodeObj *n, PyObject *saved) {
    if (n->released) { PyErr_SetString(PyExc_RuntimeError, SECOND_BACKWARD); return NULL; }
    if (saved == Py_None) Py_RETURN_NONE;
    if (!PyTuple_Check(saved) || PyTuple_GET_SIZE(saved) != 2) {
        PyErr_SetString(PyExc_TypeError, "unpack: expected a (tensor, version) pair from save()");
        return NULL;
    }
    PyObject *t = PyTuple_GET_ITEM(saved, 0), *version = PyTuple_GET_ITEM(saved, 1);
    if (version != Py_None) {
        lm_tensor *h = lmag_handle(t);
        if (!h) return NULL;
        long long want = PyLong_AsLongLong(version);
        if (want == -1 && PyErr_Occurred()) return NULL;
        if (h->storage->version != want)
            return PyObject_CallMethod((PyObject *)n, "_modified", "OO", t, version);   /* raises */
    }
    return Py_NewRef(t);
}

static PyMethodDef Node_methods[] = {
    {"release", (PyCFunction)Node_release, METH_NOARGS, "Drop the saved tensors; a later backward raises."},
    {"unpack", (PyCFunction)Node_unpack, METH_O, "A saved tensor, checked against in-place changes since."},
    {NULL},
};

static PyGetSetDef Node_getset[] = {
    {"_released", (getter)get_released, (setter)set_released, NULL, NULL},
    {NULL},
};

static PyMemberDef Node_members[] = {
    {"next_edges", T_OBJECT, offsetof(NodeObj, next_edges), 0, NULL},
    {"input_shapes", T_OBJECT, offsetof(NodeObj, input_shapes), 0, NULL},
    {"pre_hooks", T_OBJECT, offsetof(NodeObj, pre_hooks), 0, NULL},
    {NULL},
};

PyTypeObject lmag_NodeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom._autograd.NodeBase",
    .tp_doc = "The C part of a backward node: its edges, broadcast input shapes and hooks.",
    .tp_basicsize = sizeof(NodeObj),
    .tp_weaklistoffset = offsetof(NodeObj, weakrefs),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = Node_tp_new,
    .tp_dealloc = (destructor)Node_dealloc,
    .tp_traverse = (traverseproc)Node_traverse,
    .tp_clear = (inquiry)Node_clear,
    .tp_members = Node_members,
    .tp_getset = Node_getset,
    .tp_methods = Node_methods,
};

/* ------------------------------------------------------------------ tensors */

/* x's lm_tensor, or NULL with an exception set */
/* Tensor's two __slots__, read at the offsets their descriptors give (found
 * at init): the generic attribute lookup cost more than the rest of a read */
static Py_ssize_t h_offset = -1, ag_offset = -1;

#define SLOT(x, off) (*(PyObject **)((char *)(x) + (off)))

static Py_ssize_t slot_offset(const char *name) {
    PyObject *d = PyObject_GetAttrString((PyObject *)lmag_Tensor, name);
    Py_ssize_t off = -1;
    if (d && Py_TYPE(d) == &PyMemberDescr_Type) {
        PyMemberDef *md = ((PyMemberDescrObject *)d)->d_member;
        if (md->type == T_OBJECT_EX && !(md->flags & READONLY)) off = md->offset;
    }
    Py_XDECREF(d);
    PyErr_Clear();
    return off;
}

lm_tensor *lmag_cdata_pointer(PyObject *h) {
    return cdata_direct && Py_TYPE(h) == cdata_type ? (lm_tensor *)((CDataLayout *)h)->c_data : NULL;
}

lm_tensor *lmag_handle(PyObject *x) {
    PyObject *h;
    if (h_offset >= 0 && PyObject_TypeCheck(x, lmag_Tensor)) {
        h = SLOT(x, h_offset);
        if (!h) { PyErr_SetString(PyExc_AttributeError, "loom autograd: tensor without a handle"); return NULL; }
        Py_INCREF(h);
    } else if (!(h = PyObject_GetAttr(x, s_h))) {
        return NULL;
    }
    lm_tensor *t = lmag_cdata_pointer(h);
    if (!t) {
        PyObject *a = PyObject_CallOneArg(py_address, h);
        t = a ? (lm_tensor *)PyLong_AsVoidPtr(a) : NULL;
        Py_XDECREF(a);
    }
    Py_DECREF(h);
    if (!t && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "loom autograd: tensor without a handle");
    return t;
}

/* x's AutogradMeta (borrowed), or NULL without an exception when x has none.
 * Plain Tensors never carry one: that is what lets ops on them skip autograd. */
Meta *lmag_meta(PyObject *x, int *err) {
    *err = 0;
    if (Py_TYPE(x) == lmag_Tensor || !PyObject_TypeCheck(x, lmag_Tensor)) return NULL;
    PyObject *m;
    if (ag_offset >= 0) {
        m = SLOT(x, ag_offset);   /* borrowed: x keeps it alive */
    } else {
        if (lookup_attr(x, lmag_s_ag, &m) < 0) { *err = 1; return NULL; }
        Py_XDECREF(m);
    }
    return m && Py_TYPE(m) == &Meta_T ? (Meta *)m : NULL;
}

/* where x's gradient goes: (grad_fn, output_nr), (accumulator, 0), or None */
static PyObject *edge_of(PyObject *x) {
    int err;
    Meta *m = lmag_meta(x, &err);
    if (err) return NULL;
    if (!m || !m->requires_grad) Py_RETURN_NONE;
    if (m->grad_fn && m->grad_fn != Py_None) return Py_BuildValue("(On)", m->grad_fn, m->output_nr);
    if (!m->accumulator || m->accumulator == Py_None) {
        PyObject *acc = PyObject_CallOneArg(lmag_AccumulateGrad, x);
        if (!acc) return NULL;
        Py_XSETREF(m->accumulator, acc);
    }
    return Py_BuildValue("(Oi)", m->accumulator, 0);
}

static PyObject *shape_tuple(const lm_tensor *t) {
    PyObject *s = PyTuple_New(t->ndim);
    for (int d = 0; s && d < t->ndim; d++) {
        PyObject *v = PyLong_FromLongLong(t->shape[d]);
        if (!v) { Py_CLEAR(s); break; }
        PyTuple_SET_ITEM(s, d, v);
    }
    return s;
}

static PyObject *py_edge(PyObject *mod, PyObject *x) { return edge_of(x); }

/* The Tensor properties read on every optimizer step, as C getters (Python
 * property functions cost ~0.3 us a read): a tensor without autograd
 * metadata has no grad, no grad_fn, requires no grad and is a leaf. */
static PyObject *py_grad_of(PyObject *mod, PyObject *t) {
    int err;
    Meta *m = lmag_meta(t, &err);
    if (err) return NULL;
    return Py_NewRef(m && m->grad ? m->grad : Py_None);
}

/* Tensor.grad's setter where the tensor already has metadata (zero_grad's
 * case); the rest goes to the Python setter, which creates it */
static PyObject *py_set_grad_slow;

static PyObject *py_set_grad(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) { PyErr_SetString(PyExc_TypeError, "set_grad(t, value)"); return NULL; }
    int err;
    Meta *m = lmag_meta(args[0], &err);
    if (err) return NULL;
    if (!m) return py_set_grad_slow ? PyObject_Vectorcall(py_set_grad_slow, args, 2, NULL) : NULL;
    Py_XSETREF(m->grad, args[1] == Py_None ? NULL : Py_NewRef(args[1]));
    Py_RETURN_NONE;
}

static PyObject *py_init_set_grad(PyObject *mod, PyObject *fn) {
    Py_XSETREF(py_set_grad_slow, Py_NewRef(fn));
    Py_RETURN_NONE;
}

static PyObject *py_grad_fn_of(PyObject *mod, PyObject *t) {
    int err;
    Meta *m = lmag_meta(t, &err);
    if (err) return NULL;
    return Py_NewRef(m && m->grad_fn ? m->grad_fn : Py_None);
}

static PyObject *py_requires_grad_of(PyObject *mod, PyObject *t) {
    int err;
    Meta *m = lmag_meta(t, &err);
    if (err) return NULL;
    return PyBool_FromLong(m && m->requires_grad);
}

static PyObject *py_is_leaf(PyObject *mod, PyObject *t) {
    int err;
    Meta *m = lmag_meta(t, &err);
    if (err) return NULL;
    return PyBool_FromLong(!m || !m->grad_fn || m->grad_fn == Py_None);
}

/* ------------------------------------------------------------------ SavedMeta */

/* What a node keeps of a tensor its formulas read only the metadata of
 * (shape, dtype, ndim, device): the numbers, not the tensor. Python objects
 * for them are made only when backward asks. */
typedef struct {
    PyObject_HEAD
    int ndim, dtype, device;
    int64_t shape[LM_MAX_DIMS];
} SavedMeta;

static PyObject *meta_size_type, *meta_dtypes, *meta_devices;   /* loom.Size, BY_CODE, DEVICES */

static PyObject *SavedMeta_shape(SavedMeta *m, void *c) {
    PyObject *t = PyTuple_New(m->ndim);
    for (int d = 0; t && d < m->ndim; d++) {
        PyObject *v = PyLong_FromLongLong(m->shape[d]);
        if (!v) { Py_CLEAR(t); break; }
        PyTuple_SET_ITEM(t, d, v);
    }
    if (!t || !meta_size_type) return t;
    PyObject *size = PyObject_CallOneArg(meta_size_type, t);
    Py_DECREF(t);
    return size;
}

static PyObject *lookup_code(PyObject *table, int code) {
    if (!table) return PyLong_FromLong(code);
    PyObject *k = PyLong_FromLong(code);
    PyObject *v = k ? PyObject_GetItem(table, k) : NULL;
    Py_XDECREF(k);
    return v;
}

static PyObject *SavedMeta_dtype(SavedMeta *m, void *c) { return lookup_code(meta_dtypes, m->dtype); }
static PyObject *SavedMeta_device(SavedMeta *m, void *c) { return lookup_code(meta_devices, m->device); }
static PyObject *SavedMeta_ndim(SavedMeta *m, void *c) { return PyLong_FromLong(m->ndim); }

static PyGetSetDef SavedMeta_getset[] = {
    {"shape", (getter)SavedMeta_shape, NULL, NULL, NULL},
    {"dtype", (getter)SavedMeta_dtype, NULL, NULL, NULL},
    {"device", (getter)SavedMeta_device, NULL, NULL, NULL},
    {"ndim", (getter)SavedMeta_ndim, NULL, NULL, NULL},
    {NULL},
};

static PyTypeObject SavedMeta_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom._autograd.SavedMeta",
    .tp_doc = "A saved tensor's shape, dtype, ndim and device, without the tensor.",
    .tp_basicsize = sizeof(SavedMeta),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_getset = SavedMeta_getset,
};

/* save_meta(t): t's metadata for a formula that reads nothing else of it */
static PyObject *py_save_meta(PyObject *mod, PyObject *t) {
    if (t == Py_None) Py_RETURN_NONE;
    lm_tensor *h = lmag_handle(t);
    if (!h) return NULL;
    SavedMeta *m = PyObject_New(SavedMeta, &SavedMeta_T);
    if (!m) return NULL;
    m->ndim = h->ndim;
    m->dtype = h->dtype;
    m->device = h->device;
    memcpy(m->shape, h->shape, sizeof(int64_t) * (size_t)h->ndim);
    return (PyObject *)m;
}

static PyObject *py_init_meta(PyObject *mod, PyObject *args) {
    PyObject *size, *dtypes, *devices;
    if (!PyArg_ParseTuple(args, "OOO:init_meta", &size, &dtypes, &devices)) return NULL;
    Py_XSETREF(meta_size_type, Py_NewRef(size));
    Py_XSETREF(meta_dtypes, Py_NewRef(dtypes));
    Py_XSETREF(meta_devices, Py_NewRef(devices));
    Py_RETURN_NONE;
}

/* save(t): (t, its storage version) for a Tensor, (t, None) for anything else, None for None */
static PyObject *py_save(PyObject *mod, PyObject *t) {
    if (t == Py_None) Py_RETURN_NONE;
    if (!PyObject_TypeCheck(t, lmag_Tensor)) return Py_BuildValue("(OO)", t, Py_None);
    lm_tensor *h = lmag_handle(t);
    return h ? Py_BuildValue("(OL)", t, (long long)h->storage->version) : NULL;
}

static int attach_one(PyObject *t, PyObject *node, Py_ssize_t nr);

/* make_node(cls, inputs, result, attach=False): a cls node over inputs
 * (Tensors or anything else, which gets no edge), or None when no input
 * requires grad. An input's shape is kept only when it differs from result's:
 * then the engine must reduce a broadcast gradient. With attach, result
 * becomes the node's output 0 (one call instead of two on the hot path). */
static PyObject *py_make_node(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 && nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "make_node(cls, inputs, result, attach=False)");
        return NULL;
    }
    PyObject *cls = args[0], *inputs = PySequence_Fast(args[1], "make_node: inputs must be a sequence");
    if (!inputs) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(inputs);
    PyObject **items = PySequence_Fast_ITEMS(inputs);
    PyObject *edges = PyTuple_New(n), *shapes = NULL, *node = NULL;
    int any = 0;
    if (!edges) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = edge_of(items[i]);
        if (!e) goto done;
        any |= e != Py_None;
        PyTuple_SET_ITEM(edges, i, e);
    }
    if (!any) { node = Py_NewRef(Py_None); goto done; }
    lm_tensor *r = lmag_handle(args[2]);
    if (!r) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {   /* shapes stays None while no input is broadcast */
        if (PyTuple_GET_ITEM(edges, i) == Py_None) continue;
        lm_tensor *x = lmag_handle(items[i]);
        if (!x) goto done;
        int same = x->ndim == r->ndim;
        for (int d = 0; same && d < x->ndim; d++) same = x->shape[d] == r->shape[d];
        if (same) continue;
        if (!shapes) {
            if (!(shapes = PyList_New(n))) goto done;
            for (Py_ssize_t j = 0; j < n; j++) PyList_SET_ITEM(shapes, j, Py_NewRef(Py_None));
        }
        PyObject *s = shape_tuple(x);
        if (!s) goto done;
        PyList_SetItem(shapes, i, s);
    }
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &lmag_NodeType)) {
        PyErr_SetString(PyExc_TypeError, "make_node: cls must be a Node subclass");
        goto done;
    }
    node = ((PyTypeObject *)cls)->tp_new((PyTypeObject *)cls, empty_tuple, NULL);
    if (!node) goto done;
    NodeObj *nd = (NodeObj *)node;
    Py_SETREF(nd->next_edges, Py_NewRef(edges));
    Py_SETREF(nd->input_shapes, Py_NewRef(shapes ? shapes : Py_None));
    if (nargs == 4 && PyObject_IsTrue(args[3]) && attach_one(args[2], node, 0) < 0) Py_CLEAR(node);
done:
    Py_DECREF(inputs);
    Py_XDECREF(edges);
    Py_XDECREF(shapes);
    return node;
}

static int attach_one(PyObject *t, PyObject *node, Py_ssize_t nr) {
    if (!PyObject_TypeCheck(t, lmag_Tensor)) {
        PyErr_SetString(PyExc_TypeError, "attach: not a loom Tensor");
        return -1;
    }
    int err;
    Meta *old = lmag_meta(t, &err);
    if (err) return -1;
    if (Py_TYPE(t) == lmag_Tensor) {   /* same layout: GradTensor adds no slots */
        Py_INCREF(lmag_GradTensor);
        Py_SET_TYPE(t, lmag_GradTensor);
        Py_DECREF(lmag_Tensor);
    }
    Meta *m = meta_new(1, node, nr);
    if (!m) return -1;
    if (old && old->fw_grad) m->fw_grad = Py_NewRef(old->fw_grad);   /* a forward-mode tangent set earlier */
    if (ag_offset >= 0) {
        Py_XSETREF(SLOT(t, ag_offset), (PyObject *)m);
        return 0;
    }
    int rc = PyObject_SetAttr(t, lmag_s_ag, (PyObject *)m);
    Py_DECREF(m);
    return rc;
}

/* attach(t, node, output_nr=0): t becomes output output_nr of node */
static PyObject *py_attach(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 2 || nargs > 3) { PyErr_SetString(PyExc_TypeError, "attach(t, node, output_nr=0)"); return NULL; }
    Py_ssize_t nr = nargs == 3 ? PyLong_AsSsize_t(args[2]) : 0;
    if (nr == -1 && PyErr_Occurred()) return NULL;
    if (attach_one(args[0], args[1], nr) < 0) return NULL;
    return Py_NewRef(args[0]);
}

static PyObject *py_init(PyObject *mod, PyObject *args) {
    if (!PyArg_ParseTuple(args, "O!O!OOOOOO:init", &PyType_Type, &lmag_Tensor, &PyType_Type, &lmag_GradTensor,
                          &lmag_AccumulateGrad, &lmag_grad_state, &py_address, &lmag_accumulate, &lmag_run_hooks,
                          &lmag_sum_to))
        return NULL;
    if (lmag_Tensor->tp_basicsize != lmag_GradTensor->tp_basicsize) {
        PyErr_SetString(PyExc_TypeError, "init: GradTensor must add no slots to Tensor");
        return NULL;
    }
    PyObject *objs[] = {(PyObject *)lmag_Tensor, (PyObject *)lmag_GradTensor, lmag_AccumulateGrad, lmag_grad_state,
                        py_address, lmag_accumulate, lmag_run_hooks, lmag_sum_to};
    for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) Py_INCREF(objs[i]);   /* kept for the process */
    h_offset = slot_offset("_h");
    ag_offset = slot_offset("_ag");
    Py_RETURN_NONE;
}

/* init_cdata(sample, its_address): whether a handle's pointer can be read
 * straight from cffi's object (checked on a handle as ops return them) */
static PyObject *py_init_cdata(PyObject *mod, PyObject *args) {
    PyObject *sample, *addr;
    if (!PyArg_ParseTuple(args, "OO:init_cdata", &sample, &addr)) return NULL;
    void *want = PyLong_AsVoidPtr(addr);
    if (!want && PyErr_Occurred()) return NULL;
    cdata_type = (PyTypeObject *)Py_NewRef(Py_TYPE(sample));
    cdata_direct = Py_TYPE(sample)->tp_basicsize >= (Py_ssize_t)sizeof(CDataLayout) &&
                   ((CDataLayout *)sample)->c_data == (char *)want;
    return PyBool_FromLong(cdata_direct);
}

static PyMethodDef methods[] = {
    {"init", py_init, METH_VARARGS, "init(Tensor, GradTensor, AccumulateGrad, grad_state, address_fn, "
                                    "accumulate_fn, run_hooks_fn, sum_to_fn)"},
    {"init_cdata", py_init_cdata, METH_VARARGS, "init_cdata(sample_handle, its_address)"},
    {"init_tensor", lmag_init_tensor, METH_VARARGS, "init_tensor(lm_release_address, lm_release)"},
    {"edge", py_edge, METH_O, "edge(x): where x's gradient goes, or None"},
    {"save", py_save, METH_O, "save(t): t and its storage version, for Node.unpack"},
    {"save_meta", py_save_meta, METH_O, "save_meta(t): t's shape, dtype, ndim and device, without t"},
    {"init_meta", py_init_meta, METH_VARARGS, "init_meta(Size, dtypes_by_code, devices_by_code)"},
    {"grad_of", py_grad_of, METH_O, "Tensor.grad"},
    {"set_grad", (PyCFunction)(void (*)(void))py_set_grad, METH_FASTCALL, "Tensor.grad = value"},
    {"init_set_grad", py_init_set_grad, METH_O, "init_set_grad(fn): the setter for tensors without metadata"},
    {"grad_fn_of", py_grad_fn_of, METH_O, "Tensor.grad_fn"},
    {"requires_grad_of", py_requires_grad_of, METH_O, "Tensor.requires_grad"},
    {"is_leaf", py_is_leaf, METH_O, "Tensor.is_leaf"},
    {"make_node", (PyCFunction)(void (*)(void))py_make_node, METH_FASTCALL,
     "make_node(cls, inputs, result, attach=False)"},
    {"attach", (PyCFunction)(void (*)(void))py_attach, METH_FASTCALL, "attach(t, node, output_nr=0)"},
    {"run", (PyCFunction)(void (*)(void))lmag_run, METH_FASTCALL,
     "run(roots, retain_graph, create_graph, capture=None): the backward pass"},
    {NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_autograd", NULL, -1, methods};

PyMODINIT_FUNC PyInit__autograd(void) {
    if (PyType_Ready(&Meta_T) < 0 || PyType_Ready(&lmag_NodeType) < 0 || PyType_Ready(&SavedMeta_T) < 0 ||
        PyType_Ready(&lmag_TensorBaseType) < 0)
        return NULL;
    const char *names[] = {"_ag", "_h", "backward", "release", "n_outputs", "variable"};
    PyObject **slots[] = {&lmag_s_ag, &s_h, &lmag_s_backward, &lmag_s_release, &lmag_s_n_outputs, &lmag_s_variable};
    for (int i = 0; i < 6; i++)
        if (!(*slots[i] = PyUnicode_InternFromString(names[i]))) return NULL;
    if (!(empty_tuple = PyTuple_New(0))) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "AutogradMeta", (PyObject *)&Meta_T) < 0 ||
        PyModule_AddObjectRef(m, "NodeBase", (PyObject *)&lmag_NodeType) < 0 ||
        PyModule_AddObjectRef(m, "TensorBase", (PyObject *)&lmag_TensorBaseType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
