/* loom._autograd: the per-op autograd work in C — the metadata a tensor in
 * the graph carries (meta.c), the node base class (node.c), the tensor base
 * (tensor_base.c), the backward engine's loop (engine.c) and, here, recording
 * (edges, input shapes, attaching a node to results) and the module with
 * its one init().
 *
 * Why C: recording in Python cost ~2.5 us per op and the engine ~2 us per node,
 * several times the op itself on small tensors. The formulas (node.backward),
 * hooks and the rare paths stay in Python and are called from here.
 *
 * Each part has its own file and header: tensor_base (loom.Tensor's C base,
 * through which this module reads a tensor), meta, node, engine; grad mode
 * (grad_state.c) is declared in autograd.h. This file includes them all and
 * nothing includes it. */
#include "anomaly.h"
#include "engine.h"
#include "meta.h"
#include "node.h"
#include "tensor_base.h"

static PyObject *empty_tuple;

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
    /* shapes stays None while no input is broadcast (an entry: the input's shape tuple), none
     * is real beside a complex result (an entry: [shape or None]: the engine's sum_to takes the
     * gradient's real part, as PyTorch's handle_r_to_c) and none is floating of another dtype than
     * the result (mixed precision: an entry [shape or None, dtype code]: the gradient is cast to
     * the input's dtype, as PyTorch's validate_outputs) */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyTuple_GET_ITEM(edges, i) == Py_None) continue;
        lm_tensor *x = lmag_handle(items[i]);
        if (!x) goto done;
        int same = x->ndim == r->ndim;
        for (int d = 0; same && d < x->ndim; d++) same = x->shape[d] == r->shape[d];
        int real_in = lm_is_complex(r->dtype) && !lm_is_complex(x->dtype);
        int cast = !real_in && x->dtype != r->dtype && lm_is_floating(x->dtype) && lm_is_floating(r->dtype);
        if (same && !real_in && !cast) continue;
        if (!shapes) {
            if (!(shapes = PyList_New(n))) goto done;
            for (Py_ssize_t j = 0; j < n; j++) PyList_SET_ITEM(shapes, j, Py_NewRef(Py_None));
        }
        PyObject *s = same ? Py_NewRef(Py_None) : shape_tuple(x);
        if (s && real_in) s = Py_BuildValue("[N]", s);
        else if (s && cast) s = Py_BuildValue("[Ni]", s, x->dtype);
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
    if (node && lmag_anomaly_mode && lmag_anomaly_record(node) < 0) Py_CLEAR(node);
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
    Meta *m = lmag_meta_new(1, node, nr);
    if (!m) return -1;
    if (old && old->fw_grad) m->fw_grad = Py_NewRef(old->fw_grad);   /* a forward-mode tangent set earlier */
    Py_XSETREF(((TensorObj *)t)->ag, (PyObject *)m);
    return 0;
}

/* attach(t, node, output_nr=0): t becomes output output_nr of node */
static PyObject *py_attach(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 2 || nargs > 3) { PyErr_SetString(PyExc_TypeError, "attach(t, node, output_nr=0)"); return NULL; }
    Py_ssize_t nr = nargs == 3 ? PyLong_AsSsize_t(args[2]) : 0;
    if (nr == -1 && PyErr_Occurred()) return NULL;
    if (attach_one(args[0], args[1], nr) < 0) return NULL;
    return Py_NewRef(args[0]);
}

/* init(...): the Python collaborators, registered once for the process, by keyword */
static PyObject *py_init(PyObject *mod, PyObject *args, PyObject *kw) {
    static char *names[] = {"Tensor", "GradTensor", "tensor_ptr_type", "release_address", "AccumulateGrad",
                            "accumulate", "run_hooks", "sum_to", "set_grad", "Size", "dtypes", "devices", NULL};
    PyObject *tensor, *grad_tensor, *ptr_type, *release, *acc_grad, *accumulate, *run_hooks, *sum_to, *set_grad,
             *size, *dtypes, *devices;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "$OOOOOOOOOOOO:init", names, &tensor, &grad_tensor, &ptr_type,
                                     &release, &acc_grad, &accumulate, &run_hooks, &sum_to, &set_grad, &size,
                                     &dtypes, &devices))
        return NULL;
    if (lmag_tensor_base_init(tensor, grad_tensor, ptr_type, release) < 0 ||
        lmag_engine_init(acc_grad, accumulate, run_hooks, sum_to) < 0)
        return NULL;
    lmag_meta_init(set_grad);
    lmag_node_init(size, dtypes, devices);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"init", (PyCFunction)(void (*)(void))py_init, METH_VARARGS | METH_KEYWORDS,
     "init(*, Tensor, GradTensor, tensor_ptr_type, release_address, AccumulateGrad, accumulate, run_hooks, "
     "sum_to, set_grad, Size, dtypes, devices): the Python side, once"},
    {"grad_enabled", (PyCFunction)(void (*)(void))lmag_py_grad_enabled, METH_FASTCALL,
     "grad_enabled(): whether ops record the graph on this thread"},
    {"set_grad_enabled", lmag_py_set_grad_enabled, METH_O, "set_grad_enabled(on): this thread's grad mode"},
    {"edge", py_edge, METH_O, "edge(x): where x's gradient goes, or None"},
    {"save", lmag_save, METH_O, "save(t): t and its storage version, for Node.unpack"},
    {"set_saved_hooks", lmag_set_saved_hooks, METH_O, "set_saved_hooks(stack): saved_tensors_hooks' stack"},
    {"set_anomaly", (PyCFunction)(void (*)(void))lmag_py_set_anomaly, METH_FASTCALL,
     "set_anomaly(mode, capture, check, report): anomaly mode (0 off, 1 on, 2 checking NaN) and its steps"},
    {"save_meta", lmag_save_meta, METH_O, "save_meta(t): t's shape, dtype, ndim and device, without t"},
    {"grad_of", lmag_grad_of, METH_O, "Tensor.grad"},
    {"set_grad", (PyCFunction)(void (*)(void))lmag_set_grad, METH_FASTCALL, "Tensor.grad = value"},
    {"grad_fn_of", lmag_grad_fn_of, METH_O, "Tensor.grad_fn"},
    {"requires_grad_of", lmag_requires_grad_of, METH_O, "Tensor.requires_grad"},
    {"is_leaf", lmag_is_leaf, METH_O, "Tensor.is_leaf"},
    {"make_node", (PyCFunction)(void (*)(void))py_make_node, METH_FASTCALL,
     "make_node(cls, inputs, result, attach=False)"},
    {"attach", (PyCFunction)(void (*)(void))py_attach, METH_FASTCALL, "attach(t, node, output_nr=0)"},
    {"run", (PyCFunction)(void (*)(void))lmag_run, METH_FASTCALL,
     "run(roots, retain_graph, create_graph, capture=None): the backward pass"},
    {NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_autograd", NULL, -1, methods};

PyMODINIT_FUNC PyInit__autograd(void) {
    if (PyType_Ready(&lmag_MetaType) < 0 || PyType_Ready(&lmag_NodeType) < 0 || PyType_Ready(&lmag_SavedMetaType) < 0 ||
        PyType_Ready(&lmag_TensorBaseType) < 0)
        return NULL;
    if (!(empty_tuple = PyTuple_New(0))) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "AutogradMeta", (PyObject *)&lmag_MetaType) < 0 ||
        PyModule_AddObjectRef(m, "NodeBase", (PyObject *)&lmag_NodeType) < 0 ||
        PyModule_AddObjectRef(m, "TensorBase", (PyObject *)&lmag_TensorBaseType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
