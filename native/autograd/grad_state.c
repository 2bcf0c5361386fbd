/* Grad mode, per thread as in PyTorch: a thread that enters no_grad (a data
 * loader, an evaluation thread) must not stop another thread's recording.
 * Python reads and writes it as `_state[0]`, the one-item list it replaces, so
 * the generated ops keep their single subscript; every thread starts enabled. */
#include "autograd.h"

static _Thread_local char grad_disabled;
static PyObject *zero;   /* the int 0, the one key: compared by identity first */

int lmag_grad_enabled(void) { return !grad_disabled; }
void lmag_set_grad_enabled(int on) { grad_disabled = !on; }

static int only_item(PyObject *key) {
    Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred()) return -1;
    if (i != 0 && i != -1) {
        PyErr_SetString(PyExc_IndexError, "grad mode has one item: [0]");
        return -1;
    }
    return 0;
}

static PyObject *state_get(PyObject *self, PyObject *key) {
    if (!zero && !(zero = PyLong_FromLong(0))) return NULL;
    if (key != zero && only_item(key) < 0) return NULL;
    return PyBool_FromLong(!grad_disabled);
}

static int state_set(PyObject *self, PyObject *key, PyObject *value) {
    if (!zero && !(zero = PyLong_FromLong(0))) return -1;
    if (key != zero && only_item(key) < 0) return -1;
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "grad mode cannot be deleted");
        return -1;
    }
    int on = PyObject_IsTrue(value);
    if (on < 0) return -1;
    grad_disabled = !on;
    return 0;
}

static Py_ssize_t state_len(PyObject *self) { return 1; }

static PyObject *state_repr(PyObject *self) { return PyUnicode_FromFormat("[%s]", grad_disabled ? "False" : "True"); }

static PyMappingMethods state_mapping = {state_len, state_get, state_set};

PyTypeObject lmag_GradStateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom._autograd.GradState",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "This thread's grad mode as item 0: read by every op, set by no_grad and friends.",
    .tp_as_mapping = &state_mapping,
    .tp_repr = state_repr,
    .tp_new = PyType_GenericNew,
};
