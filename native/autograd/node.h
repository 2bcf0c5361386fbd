/* NodeBase, the C base of every backward node, and SavedMeta, what a node
 * keeps of a tensor whose values its formula does not read. */
#ifndef LOOM_NODE_H
#define LOOM_NODE_H

#include "autograd.h"

typedef struct {
    PyObject_HEAD
    PyObject *next_edges;     /* tuple: (node, output_nr) or None per input */
    PyObject *input_shapes;   /* None, or a list: a shape tuple where that input was broadcast, else None */
    PyObject *pre_hooks;
    PyObject *weakrefs;
    PyObject *metadata;       /* NULL, or the dict Node.metadata hands out (anomaly mode's traceback) */
    char released;
} NodeObj;

extern PyTypeObject lmag_NodeType, lmag_SavedMetaType;

/* init()'s share: loom.Size and the dtype and device objects by code, for SavedMeta */
void lmag_node_init(PyObject *size, PyObject *dtypes, PyObject *devices);

PyObject *lmag_save(PyObject *mod, PyObject *t);        /* (t, its storage version) */
/* set_saved_hooks(stack): the list of (pack, unpack) pairs saved_tensors_hooks pushes; save() packs
 * with the last one while it is not empty */
PyObject *lmag_set_saved_hooks(PyObject *mod, PyObject *stack);
PyObject *lmag_save_meta(PyObject *mod, PyObject *t);   /* t's SavedMeta */

#endif
