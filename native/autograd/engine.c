/* The backward engine's loop: walk the graph from the roots in dependency
 * order, sum the gradients arriving at each node output, let the node's
 * generated backward (Python) turn them into input gradients, reduce
 * broadcast ones to the input's shape, and hand leaves theirs.
 * Python calls it as loom._autograd.run (see lmag_run below for the arguments). */
#include "engine.h"

#include "anomaly.h"
#include "meta.h"
#include "node.h"
#include "tensor_base.h"

PyObject *lmag_AccumulateGrad;
static PyObject *py_accumulate, *py_run_hooks, *py_sum_to;   /* loom.autograd.engine's _accumulate, _run_hooks, sum_to */
static PyObject *s_backward, *s_release, *s_n_outputs, *s_variable;   /* interned attribute names */

int lmag_engine_init(PyObject *accumulate_grad, PyObject *accumulate, PyObject *run_hooks, PyObject *sum_to) {
    const char *names[] = {"backward", "release", "n_outputs", "variable"};
    PyObject **slots[] = {&s_backward, &s_release, &s_n_outputs, &s_variable};
    for (int i = 0; i < 4; i++)
        if (!*slots[i] && !(*slots[i] = PyUnicode_InternFromString(names[i]))) return -1;
    Py_XSETREF(lmag_AccumulateGrad, Py_NewRef(accumulate_grad));
    Py_XSETREF(py_accumulate, Py_NewRef(accumulate));
    Py_XSETREF(py_run_hooks, Py_NewRef(run_hooks));
    Py_XSETREF(py_sum_to, Py_NewRef(sum_to));
    return 0;
}

static Py_ssize_t n_outputs(PyObject *node) {
    PyObject *v = PyObject_GetAttr(node, s_n_outputs);
    if (!v) return -1;
    Py_ssize_t n = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    if (n < 1 && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "autograd: a node with no outputs");
    return n < 1 ? -1 : n;
}

/* buffers[node], created as [None] * n_outputs when missing; borrowed */
static PyObject *buffer_of(PyObject *buffers, PyObject *node) {
    PyObject *buf = PyDict_GetItemWithError(buffers, node);
    if (buf || PyErr_Occurred()) return buf;
    Py_ssize_t n = n_outputs(node);
    if (n < 0 || !(buf = PyList_New(n))) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyList_SET_ITEM(buf, i, Py_NewRef(Py_None));
    int rc = PyDict_SetItem(buffers, node, buf);
    Py_DECREF(buf);
    return rc < 0 ? NULL : buf;
}

/* list[i] += g, where None is zero */
/* a tensor without a C handle: a sparse COO tensor (loom._sparse), whose values live in Python */
static int handleless(PyObject *x) {
    return PyObject_TypeCheck(x, &lmag_TensorBaseType) && !((TensorObj *)x)->h;
}

/* a + b for two gradients of one slot; dense + sparse is the order that is defined (PyTorch's
 * add(dense, sparse)), so a sparse gradient goes on the right */
static PyObject *sum_grads(PyObject *a, PyObject *b) {
    return handleless(a) && !handleless(b) ? PyNumber_Add(b, a) : PyNumber_Add(a, b);
}

static int add_into(PyObject *list, Py_ssize_t i, PyObject *g) {
    if (i < 0 || i >= PyList_GET_SIZE(list)) {
        PyErr_SetString(PyExc_RuntimeError, "autograd: a gradient for an output the node does not have");
        return -1;
    }
    PyObject *cur = PyList_GET_ITEM(list, i);
    if (g == Py_None) return 0;
    PyObject *sum = cur == Py_None ? Py_NewRef(g) : sum_grads(cur, g);
    return sum ? PyList_SetItem(list, i, sum) : -1;
}

static int is_node(PyObject *x) {
    return PyObject_TypeCheck(x, &lmag_NodeType);
}

static PyObject *edges_of(PyObject *node) {   /* new reference to a list or tuple */
    if (!is_node(node)) {
        PyErr_SetString(PyExc_TypeError, "autograd: a graph edge leads to something that is not a Node");
        return NULL;
    }
    PyObject *e = ((NodeObj *)node)->next_edges;
    return PySequence_Fast(e ? e : Py_None, "autograd: a node's next_edges must be a sequence");
}

static int edge_target(PyObject *edge, PyObject **child, Py_ssize_t *nr) {
    if (!PyTuple_Check(edge) || PyTuple_GET_SIZE(edge) != 2) {
        PyErr_SetString(PyExc_TypeError, "autograd: an edge must be a (node, output_nr) tuple");
        return -1;
    }
    *child = PyTuple_GET_ITEM(edge, 0);
    *nr = PyLong_AsSsize_t(PyTuple_GET_ITEM(edge, 1));
    return *nr == -1 && PyErr_Occurred() ? -1 : 0;
}

/* how many edges lead into each node reachable from roots */
static PyObject *dependencies(PyObject *roots) {
    PyObject *deps = PyDict_New(), *seen = PySet_New(roots), *stack = PySequence_List(roots);
    if (!deps || !seen || !stack) goto fail;
    while (PyList_GET_SIZE(stack)) {
        Py_ssize_t last = PyList_GET_SIZE(stack) - 1;
        PyObject *node = Py_NewRef(PyList_GET_ITEM(stack, last));
        PyList_SetSlice(stack, last, last + 1, NULL);
        PyObject *edges = edges_of(node);
        Py_DECREF(node);
        if (!edges) goto fail;
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(edges); k++) {
            PyObject *edge = PySequence_Fast_GET_ITEM(edges, k), *child;
            Py_ssize_t nr;
            if (edge == Py_None) continue;
            if (edge_target(edge, &child, &nr) < 0) { Py_DECREF(edges); goto fail; }
            PyObject *cnt = PyDict_GetItemWithError(deps, child);
            PyObject *next = PyLong_FromLong(cnt ? PyLong_AsLong(cnt) + 1 : 1);
            int rc = next ? PyDict_SetItem(deps, child, next) : -1;
            Py_XDECREF(next);
            int fresh = rc < 0 ? -1 : PySet_Contains(seen, child);
            if (fresh == 0) rc = PySet_Add(seen, child) < 0 || PyList_Append(stack, child) < 0 ? -1 : 0;
            if (rc < 0 || fresh < 0) { Py_DECREF(edges); goto fail; }
        }
        Py_DECREF(edges);
    }
    Py_DECREF(seen);
    Py_DECREF(stack);
    return deps;
fail:
    Py_XDECREF(deps); Py_XDECREF(seen); Py_XDECREF(stack);
    return NULL;
}

/* g may become a leaf's .grad as is: nothing else references the tensor or
 * its memory (the caller's list holds the one Python reference), and it is
 * dense, as PyTorch's AccumulateGrad requires before it steals a gradient */
static int owned(PyObject *g) {
    if (Py_REFCNT(g) != 1 || !PyObject_TypeCheck(g, lmag_Tensor)) return 0;
    lm_tensor *t = lmag_handle(g);
    if (!t) { PyErr_Clear(); return 0; }
    if (t->refcount != 1 || t->storage->refcount != 1) return 0;
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] != 1 && t->strides[d] != expect) return 0;
        expect *= t->shape[d];
    }
    return 1;
}

static int accumulate(PyObject *node, PyObject *g, int create_graph) {
    PyObject *leaf = PyObject_GetAttr(node, s_variable);
    if (!leaf) return -1;
    int err, rc = -1, own = owned(g);
    Meta *m = lmag_meta(leaf, &err);
    int fresh = m && (!m->grad || m->grad == Py_None);
    if (!err && m && !create_graph && Py_TYPE(g) == lmag_Tensor && (fresh ? own : Py_TYPE(m->grad) == lmag_Tensor)) {
        /* a first gradient is stolen; later ones are added in place, as PyTorch does outside create_graph */
        PyObject *sum = fresh ? Py_NewRef(g) : PyNumber_InPlaceAdd(m->grad, g);
        if (sum) Py_XSETREF(m->grad, sum);
        rc = sum ? 0 : -1;
    } else if (!err) {
        PyObject *r = PyObject_CallFunction(py_accumulate, "OOOO", leaf, g, create_graph ? Py_True : Py_False,
                                            own ? Py_True : Py_False);
        rc = r ? 0 : -1;
        Py_XDECREF(r);
    }
    Py_DECREF(leaf);
    return rc;
}

/* whether tensor g already has the shape tuple `shape` (then no reduction is due) */
static int has_shape(PyObject *g, PyObject *shape) {
    if (!PyObject_TypeCheck(g, lmag_Tensor) || !PyTuple_Check(shape) || handleless(g)) return 0;
    lm_tensor *t = lmag_handle(g);
    if (!t) return -1;
    if (t->ndim != PyTuple_GET_SIZE(shape)) return 0;
    for (int d = 0; d < t->ndim; d++) {
        long long s = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
        if (s == -1 && PyErr_Occurred()) return -1;
        if (s != t->shape[d]) return 0;
    }
    return 1;
}

/* the gradients a node passes on: node.backward(grads), or NULL */
static PyObject *call_backward(PyObject *node, PyObject *grads, Py_ssize_t n_edges) {
    PyObject *out = PyObject_CallMethodOneArg(node, s_backward, grads);
    if (!out) return NULL;
    PyObject *seq = PySequence_Fast(out, "autograd: a node's backward must return a sequence");
    Py_DECREF(out);
    if (seq && PySequence_Fast_GET_SIZE(seq) < n_edges) {
        PyErr_Format(PyExc_RuntimeError, "autograd: %s.backward returned %zd gradients for %zd inputs",
                     Py_TYPE(node)->tp_name, PySequence_Fast_GET_SIZE(seq), n_edges);
        Py_CLEAR(seq);
    }
    return seq;
}

/* one node's turn: its gradients are complete */
static int process(PyObject *node, PyObject *buffers, PyObject *deps, PyObject *ready, PyObject *capture,
                   PyObject *captured, int retain, int create) {
    PyObject *grads = NULL, *edges = NULL, *inputs = NULL;
    int rc = -1;
    grads = buffer_of(buffers, node);   /* a node reached with no gradient gets [None, ...] */
    if (!grads) return -1;
    Py_INCREF(grads);
    if (PyDict_DelItem(buffers, node) < 0) { Py_DECREF(grads); return -1; }
    if (!is_node(node)) { PyErr_SetString(PyExc_TypeError, "autograd: not a Node"); goto done; }
    PyObject *hooks = ((NodeObj *)node)->pre_hooks;
    if (hooks && hooks != Py_None && PyObject_IsTrue(hooks)) {
        PyObject *r = PyObject_CallFunctionObjArgs(py_run_hooks, node, grads, NULL);
        if (!r) goto done;
        Py_DECREF(r);
    }
    Py_ssize_t ng = PyList_GET_SIZE(grads);
    if (capture != Py_None) {
        for (Py_ssize_t nr = 0; nr < ng; nr++) {
            PyObject *key = Py_BuildValue("(On)", node, nr);
            PyObject *slot = key ? PyDict_GetItemWithError(capture, key) : NULL;
            Py_XDECREF(key);
            if (!slot) { if (PyErr_Occurred()) goto done; continue; }
            PyObject *g = PyList_GET_ITEM(grads, nr), *cur = PyDict_GetItemWithError(captured, slot);
            if (!cur && PyErr_Occurred()) goto done;
            PyObject *sum = !cur || cur == Py_None ? Py_NewRef(g) : g == Py_None ? Py_NewRef(cur) : sum_grads(cur, g);
            int bad = !sum || PyDict_SetItem(captured, slot, sum) < 0;
            Py_XDECREF(sum);
            if (bad) goto done;
        }
    }
    if ((PyObject *)Py_TYPE(node) == lmag_AccumulateGrad) {
        PyObject *g = PyList_GET_ITEM(grads, 0);
        rc = capture == Py_None && g != Py_None ? accumulate(node, g, create) : 0;
        goto done;
    }
    if (!(edges = edges_of(node))) goto done;
    Py_ssize_t ne = PySequence_Fast_GET_SIZE(edges);
    int any = 0;
    for (Py_ssize_t i = 0; i < ng; i++) any |= PyList_GET_ITEM(grads, i) != Py_None;
    if (any && !(inputs = call_backward(node, grads, ne))) goto done;
    if (inputs && lmag_anomaly_mode == 2 && lmag_anomaly_check(node, inputs) < 0) goto done;
    if (!retain) {
        PyObject *r = PyObject_CallMethodNoArgs(node, s_release);
        if (!r) goto done;
        Py_DECREF(r);
    }
    PyObject *shapes = ((NodeObj *)node)->input_shapes;
    for (Py_ssize_t k = 0; k < ne; k++) {
        PyObject *edge = PySequence_Fast_GET_ITEM(edges, k), *child;
        Py_ssize_t nr;
        if (edge == Py_None) continue;
        if (edge_target(edge, &child, &nr) < 0) goto done;
        PyObject *g = inputs ? PySequence_Fast_GET_ITEM(inputs, k) : Py_None;
        if (g != Py_None) {
            PyObject *shape = shapes && PyList_Check(shapes) && k < PyList_GET_SIZE(shapes)
                              ? PyList_GET_ITEM(shapes, k) : Py_None;
            int fits = shape == Py_None || has_shape(g, shape);
            if (fits < 0) goto done;
            g = fits ? Py_NewRef(g) : PyObject_CallFunctionObjArgs(py_sum_to, g, shape, NULL);
            if (!g) goto done;
            PyObject *buf = buffer_of(buffers, child);
            int bad = !buf || add_into(buf, nr, g) < 0;
            Py_DECREF(g);
            if (bad) goto done;
        }
        PyObject *cnt = PyDict_GetItemWithError(deps, child);
        if (!cnt) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "autograd: graph changed"); goto done; }
        long left = PyLong_AsLong(cnt) - 1;
        PyObject *v = PyLong_FromLong(left);
        int bad = !v || PyDict_SetItem(deps, child, v) < 0 || (left == 0 && PyList_Append(ready, child) < 0);
        Py_XDECREF(v);
        if (bad) goto done;
    }
    rc = 0;
done:
    if (rc < 0 && lmag_anomaly_mode && is_node(node)) lmag_anomaly_report(node);
    Py_XDECREF(grads);
    Py_XDECREF(edges);
    Py_XDECREF(inputs);
    return rc;
}

/* run(roots, retain_graph, create_graph, capture=None): roots are [(node,
 * output_nr, grad)]; capture is {(node, output_nr): slot} for autograd.grad,
 * and run returns {slot: grad}; without it, leaves accumulate. */
PyObject *lmag_run(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 3 || nargs > 4) {
        PyErr_SetString(PyExc_TypeError, "run(roots, retain_graph, create_graph, capture=None)");
        return NULL;
    }
    int retain = PyObject_IsTrue(args[1]), create = PyObject_IsTrue(args[2]);
    PyObject *capture = nargs == 4 ? args[3] : Py_None;
    if (retain < 0 || create < 0) return NULL;
    if (capture != Py_None && !PyDict_Check(capture)) {
        PyErr_SetString(PyExc_TypeError, "run: capture must be a dict or None");
        return NULL;
    }
    PyObject *captured = PyDict_New(), *buffers = PyDict_New(), *roots = PySequence_Fast(args[0], "run: roots");
    PyObject *keys = NULL, *deps = NULL, *ready = NULL;
    if (!captured || !buffers || !roots) goto fail;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(roots); i++) {
        PyObject *node, *g;
        Py_ssize_t nr;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(roots, i), "OnO:run", &node, &nr, &g)) goto fail;
        PyObject *buf = buffer_of(buffers, node);
        if (!buf || add_into(buf, nr, g) < 0) goto fail;
    }
    if (!(keys = PyDict_Keys(buffers)) || !(deps = dependencies(keys)) || !(ready = PyList_New(0))) goto fail;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
        int has = PyDict_Contains(deps, PyList_GET_ITEM(keys, i));
        if (has < 0 || (!has && PyList_Append(ready, PyList_GET_ITEM(keys, i)) < 0)) goto fail;
    }
    /* formulas record a graph of their own only for create_graph */
    int was_enabled = lmag_grad_enabled();
    lmag_set_grad_enabled(create);
    int rc = 0;
    while (rc == 0 && PyList_GET_SIZE(ready)) {
        Py_ssize_t last = PyList_GET_SIZE(ready) - 1;
        PyObject *node = Py_NewRef(PyList_GET_ITEM(ready, last));
        PyList_SetSlice(ready, last, last + 1, NULL);
        rc = process(node, buffers, deps, ready, capture, captured, retain, create);
        Py_DECREF(node);
    }
    lmag_set_grad_enabled(was_enabled);   /* restored on errors too */
    if (rc < 0) goto fail;
    Py_DECREF(buffers); Py_DECREF(roots); Py_DECREF(keys); Py_DECREF(deps); Py_DECREF(ready);
    return captured;
fail:
    Py_XDECREF(captured); Py_XDECREF(buffers); Py_XDECREF(roots); Py_XDECREF(keys); Py_XDECREF(deps);
    Py_XDECREF(ready);
    return NULL;
}
