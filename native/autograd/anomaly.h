/* Anomaly mode (autograd.detect_anomaly): while on, each node made keeps the
 * forward traceback that created it, an error in a node's backward warns with
 * it, and (check_nan) a backward returning NaN raises. Off, it costs one
 * test of lmag_anomaly_mode per node made and per node run. */
#ifndef LOOM_ANOMALY_H
#define LOOM_ANOMALY_H

#include "autograd.h"

extern int lmag_anomaly_mode;   /* 0 off, 1 on, 2 on and checking for NaN */

/* set_anomaly(mode, capture, check, report): the mode and its three Python steps */
PyObject *lmag_py_set_anomaly(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

int lmag_anomaly_record(PyObject *node);                  /* keep the forward traceback; -1 with an exception */
int lmag_anomaly_check(PyObject *node, PyObject *grads);  /* raise if a gradient holds NaN; -1 with it */
void lmag_anomaly_report(PyObject *node);                 /* warn with node's traceback; keeps the exception */

#endif
