/* Anomaly mode's C share: the mode flag the recorder and the engine test, and
 * the calls into loom.autograd.anomaly_mode that do the work (capture the
 * traceback, look for NaN, warn). */
#include "anomaly.h"

int lmag_anomaly_mode;
static PyObject *py_capture, *py_check, *py_report;

PyObject *lmag_py_set_anomaly(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "set_anomaly(mode, capture, check, report)");
        return NULL;
    }
    long mode = PyLong_AsLong(args[0]);
    if (mode == -1 && PyErr_Occurred()) return NULL;
    Py_XSETREF(py_capture, Py_NewRef(args[1]));
    Py_XSETREF(py_check, Py_NewRef(args[2]));
    Py_XSETREF(py_report, Py_NewRef(args[3]));
    lmag_anomaly_mode = mode < 0 ? 0 : mode > 2 ? 2 : (int)mode;
    Py_RETURN_NONE;
}

int lmag_anomaly_record(PyObject *node) {
    if (!py_capture) return 0;
    PyObject *r = PyObject_CallOneArg(py_capture, node);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

int lmag_anomaly_check(PyObject *node, PyObject *grads) {
    if (!py_check) return 0;
    PyObject *r = PyObject_CallFunctionObjArgs(py_check, node, grads, NULL);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

void lmag_anomaly_report(PyObject *node) {
    if (!py_report) return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *r = PyObject_CallOneArg(py_report, node);
    if (r) Py_DECREF(r);
    else PyErr_Clear();   /* the node's error is the one to raise; a warning turned error would hide it */
    PyErr_Restore(type, value, tb);
}
