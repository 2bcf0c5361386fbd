/* The node base class (edges, broadcast shapes, hooks, release and the
 * checked unpacking of saved tensors) and what nodes save: a tensor with its
 * version (save) or only its metadata (SavedMeta, save_meta). */
#include "node.h"

#include "tensor_base.h"

#include <string.h>
#include <structmember.h>

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
    Py_VISIT(n->next_edges); Py_VISIT(n->input_shapes); Py_VISIT(n->pre_hooks); Py_VISIT(n->metadata);
    return 0;
}

static int Node_clear(NodeObj *n) {
    Py_CLEAR(n->next_edges); Py_CLEAR(n->input_shapes); Py_CLEAR(n->pre_hooks); Py_CLEAR(n->metadata);
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

static PyObject *get_metadata(NodeObj *n, void *c) {
    if (!n->metadata && !(n->metadata = PyDict_New())) return NULL;
    return Py_NewRef(n->metadata);
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

static PyObject *unpack_hooked(PyObject *saved);

/* unpack(saved): a saved (tensor, version) pair's tensor, refused once the
 * node is released (unpack(None) is how callers ask for that error) or when
 * the tensor was written in place since it was saved; a (packed, None,
 * unpack_hook) triple, saved under saved_tensors_hooks, is unpack_hook(packed) */
static PyObject *Node_unpack(NodeObj *n, PyObject *saved) {
    if (n->released) { PyErr_SetString(PyExc_RuntimeError, SECOND_BACKWARD); return NULL; }
    if (saved == Py_None) Py_RETURN_NONE;
    if (PyTuple_Check(saved) && PyTuple_GET_SIZE(saved) == 3) return unpack_hooked(saved);
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
    {"metadata", (getter)get_metadata, NULL, "A dict for anything kept with the node (anomaly mode's forward traceback).", NULL},
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

PyTypeObject lmag_SavedMetaType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom._autograd.SavedMeta",
    .tp_doc = "A saved tensor's shape, dtype, ndim and device, without the tensor.",
    .tp_basicsize = sizeof(SavedMeta),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_getset = SavedMeta_getset,
};

/* save_meta(t): t's metadata for a formula that reads nothing else of it */
PyObject *lmag_save_meta(PyObject *mod, PyObject *t) {
    if (t == Py_None) Py_RETURN_NONE;
    lm_tensor *h = lmag_handle(t);
    if (!h) return NULL;
    SavedMeta *m = PyObject_New(SavedMeta, &lmag_SavedMetaType);
    if (!m) return NULL;
    m->ndim = h->ndim;
    m->dtype = h->dtype;
    m->device = h->device;
    memcpy(m->shape, h->shape, sizeof(int64_t) * (size_t)h->ndim);
    return (PyObject *)m;
}

void lmag_node_init(PyObject *size, PyObject *dtypes, PyObject *devices) {
    Py_XSETREF(meta_size_type, Py_NewRef(size));
    Py_XSETREF(meta_dtypes, Py_NewRef(dtypes));
    Py_XSETREF(meta_devices, Py_NewRef(devices));
}

/* ------------------------------------------------------------------ saved tensors */

static PyObject *hooks_stack;   /* saved_tensors_hooks' list of (pack, unpack) pairs */

PyObject *lmag_set_saved_hooks(PyObject *mod, PyObject *stack) {
    if (!PyList_Check(stack)) { PyErr_SetString(PyExc_TypeError, "set_saved_hooks: a list"); return NULL; }
    Py_XSETREF(hooks_stack, Py_NewRef(stack));
    Py_RETURN_NONE;
}

static const char PACK_MODIFIES[] =
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot "
    "be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if "
    "you need to perform in-place operations on the input to a pack hook.";

/* (pack(t), None, unpack) with the innermost hooks; t may not be written by pack */
static PyObject *save_hooked(PyObject *t, lm_tensor *h) {
    PyObject *pair = PyList_GET_ITEM(hooks_stack, PyList_GET_SIZE(hooks_stack) - 1);
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "saved_tensors_hooks: a (pack_hook, unpack_hook) pair");
        return NULL;
    }
    Py_INCREF(pair);
    int64_t version = h->storage->version;
    PyObject *packed = PyObject_CallOneArg(PyTuple_GET_ITEM(pair, 0), t), *r = NULL;
    if (packed && h->storage->version != version) PyErr_SetString(PyExc_RuntimeError, PACK_MODIFIES);
    else if (packed) r = PyTuple_Pack(3, packed, Py_None, PyTuple_GET_ITEM(pair, 1));
    Py_XDECREF(packed);
    Py_DECREF(pair);
    return r;
}

static PyObject *unpack_hooked(PyObject *saved) {
    PyObject *t = PyObject_CallOneArg(PyTuple_GET_ITEM(saved, 2), PyTuple_GET_ITEM(saved, 0));
    if (t && !PyObject_TypeCheck(t, lmag_Tensor)) {
        PyErr_Format(PyExc_TypeError, "Output of saved tensor unpack_hook expected to be a Tensor but got result "
                     "of type %s", Py_TYPE(t)->tp_name);
        Py_CLEAR(t);
    }
    return t;
}

/* save(t): (t, its storage version) for a Tensor, (t, None) for anything else, None for None;
 * under saved_tensors_hooks, a Tensor is kept as (pack_hook(t), None, unpack_hook) */
PyObject *lmag_save(PyObject *mod, PyObject *t) {
    if (t == Py_None) Py_RETURN_NONE;
    if (!PyObject_TypeCheck(t, lmag_Tensor)) return Py_BuildValue("(OO)", t, Py_None);
    lm_tensor *h = lmag_handle(t);
    if (!h) return NULL;
    if (hooks_stack && PyList_GET_SIZE(hooks_stack)) return save_hooked(t, h);
    return Py_BuildValue("(OL)", t, (long long)h->storage->version);
}

