"""NCCL, loaded at run time from the nvidia-nccl-cu13 package (the `nccl` extra) or the system.

cffi's ABI mode reads the few entry points loom calls from NCCL's stable C API, so the
backend needs no NCCL headers or libraries when loom is built, and the CUDA build works
where NCCL is absent (CI). loom's CUDA work runs on the device's legacy default stream; NCCL
kernels are enqueued there too (stream NULL), so they are ordered with loom's kernels
without events between them."""
import ctypes.util
import importlib.util
import os

import cffi

_CDEF = """
typedef struct ncclComm *ncclComm_t;
typedef struct { char internal[128]; } ncclUniqueId;
int ncclGetVersion(int *version);
int ncclGetUniqueId(ncclUniqueId *uniqueId);
int ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank);
int ncclCommDestroy(ncclComm_t comm);
int ncclCommAbort(ncclComm_t comm);
const char *ncclGetErrorString(int result);
const char *ncclGetLastError(ncclComm_t comm);
int ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, int datatype, int op, ncclComm_t comm,
                  void *stream);
int ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, int datatype, int root, ncclComm_t comm,
                  void *stream);
int ncclReduce(const void *sendbuff, void *recvbuff, size_t count, int datatype, int op, int root,
               ncclComm_t comm, void *stream);
int ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, int datatype, ncclComm_t comm,
                  void *stream);
int ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, int datatype, int op,
                      ncclComm_t comm, void *stream);
int ncclSend(const void *sendbuff, size_t count, int datatype, int peer, ncclComm_t comm, void *stream);
int ncclRecv(void *recvbuff, size_t count, int datatype, int peer, ncclComm_t comm, void *stream);
int ncclGroupStart(void);
int ncclGroupEnd(void);
"""

INSTALL = "pip install loom[nccl]"

# ncclDataType_t and ncclRedOp_t values (nccl.h; stable since NCCL 2.10, which added ncclAvg)
DTYPES = {"int8": 0, "uint8": 1, "bool": 1, "int32": 2, "int64": 4, "float16": 6, "float32": 7, "float64": 8,
          "bfloat16": 9, "complex64": 7, "complex128": 8}
SUM, PROD, MAX, MIN, AVG = 0, 1, 2, 3, 4

ffi = cffi.FFI()
ffi.cdef(_CDEF)
_lib = {"handle": None, "error": None}


def _candidates():
    given = os.environ.get("LOOM_NCCL_LIBRARY")
    if given:
        yield given
        return
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("nccl/lib", "cu13/lib"):
            path = os.path.join(root, sub, "libnccl.so.2")
            if os.path.exists(path):
                yield path
    found = ctypes.util.find_library("nccl")
    yield found or "libnccl.so.2"


def library():
    """The loaded NCCL library, or a RuntimeError naming the package and the install command."""
    if _lib["handle"] is not None:
        return _lib["handle"]
    errors = []
    for path in _candidates():
        try:
            _lib["handle"] = ffi.dlopen(path)
            return _lib["handle"]
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise RuntimeError("loom.distributed's 'nccl' backend needs the NCCL library (the nvidia-nccl-cu13 package): "
                       f"install it with `{INSTALL}`, or point LOOM_NCCL_LIBRARY at libnccl.so.2 "
                       f"({'; '.join(errors)})")


def available():
    try:
        library()
    except RuntimeError:
        return False
    return True


def version():
    v = ffi.new("int *")
    check(library().ncclGetVersion(v), "ncclGetVersion")
    return v[0]


def check(result, what, comm=None):
    if result != 0:
        lib = library()
        detail = ffi.string(lib.ncclGetErrorString(result)).decode("utf-8", "replace")
        last = ffi.string(lib.ncclGetLastError(comm if comm is not None else ffi.NULL)).decode("utf-8", "replace")
        raise RuntimeError(f"{what}: NCCL error {result}: {detail}" + (f" ({last})" if last else ""))
