/* loom._cuda is a Python extension only so that Python finds it where it finds
 * loom's other extensions (installed or editable); it defines no functions.
 * loom._C loads it by path (lm_cuda_load) and reads lm_cuda_backend_get. */
#include <Python.h>

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cuda", "loom's CUDA kernels and runtime", -1, NULL,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cuda(void) { return PyModule_Create(&module); }
