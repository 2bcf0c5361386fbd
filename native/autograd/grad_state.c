/* Grad mode, per thread as in PyTorch: a thread that enters no_grad (a data
 * loader, an evaluation thread) must not stop another thread's recording.
 * Every thread starts enabled. Python reads it on every op call with
 * grad_enabled() (METH_FASTCALL: the interpreter specialises the call). */
#include "autograd.h"

static _Thread_local char grad_disabled;

int lmag_grad_enabled(void) { return !grad_disabled; }
void lmag_set_grad_enabled(int on) { grad_disabled = !on; }

/* grad_enabled(): this thread's grad mode */
PyObject *lmag_py_grad_enabled(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs) {
        PyErr_SetString(PyExc_TypeError, "grad_enabled() takes no arguments");
        return NULL;
    }
    return Py_NewRef(grad_disabled ? Py_False : Py_True);
}

/* set_grad_enabled(on): set this thread's grad mode (any truthy value enables) */
PyObject *lmag_py_set_grad_enabled(PyObject *mod, PyObject *on) {
    int b = PyObject_IsTrue(on);
    if (b < 0) return NULL;
    grad_disabled = !b;
    Py_RETURN_NONE;
}
