"""DLPack for CUDA tensors (kDLCUDA) and for CPU dtypes NumPy lacks (bfloat16), both ways, zero-copy.

Other CPU tensors go through NumPy's DLPack (loom's CPU memory already is a
NumPy array's); NumPy refuses device memory and bfloat16, so those capsules are
made and read here with ctypes over the DLPack C structs (the unversioned
"dltensor" capsule that every producer and consumer accepts). loom works on the
legacy default stream, which orders after other streams' work, so an exchange
synchronizes the device once instead of tracking the consumer's stream."""
import ctypes
import itertools

from . import cuda
from ._C import ffi, lib
from ._dtype import BY_CODE
from ._errors import raise_error
from ._tensor import _export_cuda, _lazy_cuda, _new

KDL_CPU, KDL_CUDA = 1, 2


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32), ("dtype", _DType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Managed))
_Managed._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# the same two for a capsule being destroyed, by raw address (a py_object would revive it)
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))

_exported = {}    # manager_ctx -> (tensor, the ctypes struct and arrays it points into)
_keys = itertools.count(1)


@_DELETER
def _release_export(managed):
    _exported.pop(managed.contents.manager_ctx, None)


@_CAPSULE_DESTRUCTOR
def _capsule_gone(capsule_ptr):
    """A capsule nobody consumed: free what it holds (a consumer renames it first)."""
    if _is_valid_raw(capsule_ptr, b"dltensor"):
        m = ctypes.cast(_get_pointer_raw(capsule_ptr, b"dltensor"), ctypes.POINTER(_Managed))
        _release_export(m)


def export(t):
    """A "dltensor" capsule of tensor t (CUDA, or a CPU dtype NumPy lacks; the consumer's deleter
    call releases it)."""
    on_cuda = t._h.device == lib.LM_CUDA
    if on_cuda:
        cuda.synchronize()
    h = t._h
    ndim = h.ndim
    shape = (ctypes.c_int64 * max(ndim, 1))(*ffi.unpack(h.shape, ndim))
    strides = (ctypes.c_int64 * max(ndim, 1))(*ffi.unpack(h.strides, ndim))
    code, bits = t.dtype.dlpack
    key = next(_keys)
    m = _Managed()
    m.dl_tensor = _DLTensor(t.data_ptr(), _Device(KDL_CUDA if on_cuda else KDL_CPU, 0), ndim, _DType(code, bits, 1),
                            ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)),
                            ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64)), 0)
    m.manager_ctx = key
    m.deleter = _release_export
    _exported[key] = (t, m, shape, strides)
    return _api.PyCapsule_New(ctypes.addressof(m), b"dltensor", ctypes.cast(_capsule_gone, ctypes.c_void_p))


_BY_DLPACK = {d.dlpack: d for d in BY_CODE}


class _Consumed:
    """A consumed capsule's DLManagedTensor: its deleter runs when loom's tensor over it dies."""

    def __init__(self, managed, capsule):
        self.managed, self.capsule = managed, capsule

    def __del__(self):
        if self.managed.contents.deleter:
            self.managed.contents.deleter(self.managed)


def is_cuda_capsule(capsule):
    if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
        return False
    m = ctypes.cast(_api.PyCapsule_GetPointer(capsule, b"dltensor"), ctypes.POINTER(_Managed))
    return m.contents.dl_tensor.device.device_type == KDL_CUDA


def numpy_lacks(capsule):
    """Whether an unconsumed capsule holds a loom dtype NumPy has none of (bfloat16)."""
    if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
        return False
    dl = ctypes.cast(_api.PyCapsule_GetPointer(capsule, b"dltensor"), ctypes.POINTER(_Managed)).contents.dl_tensor
    dt = _BY_DLPACK.get((dl.dtype.code, dl.dtype.bits))
    return dt is not None and dt.numpy is None


def consume(capsule, lend):
    """A tensor over a CUDA (or CPU) "dltensor" capsule's memory (the capsule is marked used).
    lend(obj) keeps obj alive for the tensor's life and returns (deleter, ctx) for lm_from_blob."""
    if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
        raise BufferError("from_dlpack(): the capsule is not an unconsumed 'dltensor' capsule")
    m = ctypes.cast(_api.PyCapsule_GetPointer(capsule, b"dltensor"), ctypes.POINTER(_Managed))
    dl = m.contents.dl_tensor
    on_cuda = dl.device.device_type == KDL_CUDA
    if not on_cuda and dl.device.device_type != KDL_CPU:
        raise BufferError(f"from_dlpack(): expected a CPU or CUDA capsule, got device type {dl.device.device_type}")
    if on_cuda and dl.device.device_id != 0:
        raise BufferError(f"from_dlpack(): loom uses CUDA device 0, the capsule is on device {dl.device.device_id}")
    dt = _BY_DLPACK.get((dl.dtype.code, dl.dtype.bits))
    if dt is None or dl.dtype.lanes != 1:
        raise BufferError(f"from_dlpack(): no loom dtype for DLPack type code {dl.dtype.code}, {dl.dtype.bits} bits")
    if on_cuda:
        cuda._lazy_init()
    ndim = dl.ndim
    shape = [dl.shape[i] for i in range(ndim)]
    if dl.strides:
        strides = [dl.strides[i] for i in range(ndim)]
    else:   # NULL strides: row-major
        strides, acc = [0] * ndim, 1
        for i in range(ndim - 1, -1, -1):
            strides[i], acc = acc, acc * max(shape[i], 1)
    if any(s < 0 for s in strides):
        raise BufferError("from_dlpack(): negative strides are not supported")
    _api.PyCapsule_SetName(capsule, b"used_dltensor")
    deleter, ctx = lend(_Consumed(m, capsule))
    if on_cuda:
        cuda.synchronize()   # the producer's pending writes land before loom reads
    data = ffi.cast("void *", (dl.data or 0) + dl.byte_offset)
    h = lib.lm_from_blob(data, ndim, shape, strides, dt.code, lib.LM_CUDA if on_cuda else lib.LM_CPU, deleter, ctx)
    if not h:
        deleter(ctx)
        raise_error("from_dlpack")
    return _new(h)


_export_cuda[0] = export
_lazy_cuda[0] = cuda._lazy_init