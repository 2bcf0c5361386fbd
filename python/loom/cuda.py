"""loom.cuda: the CUDA device, as torch.cuda.

The CUDA kernels live in loom._cuda, built where nvcc was found at install
time and loaded on the first use of a CUDA device (or is_available()): `import
loom` needs no GPU, driver or toolkit. All work runs on the device's default
stream, in order; copies to the host wait for it."""
import importlib.util
import os

from ._C import ffi, lib
from ._errors import raise_error

_state = {"loaded": False, "error": None, "allow_tf32": False}


def _library_path():
    spec = importlib.util.find_spec("loom._cuda")
    return spec.origin if spec is not None else None


def _lazy_init():
    """Load loom._cuda and register the CUDA device; RuntimeError saying why not."""
    if _state["loaded"]:
        return
    if _state["error"] is None:
        path = _library_path()
        if path is None:
            _state["error"] = ("device cuda is not available: loom was not compiled with CUDA enabled (reinstall "
                               "it where nvcc is found, or with -Csetup-args=-Dcuda=enabled)")
        elif lib.lm_cuda_load(path.encode()):
            _state["error"] = ffi.string(lib.lm_error_message()).decode()
            lib.lm_clear_error()
        else:
            _state["loaded"] = True
            hint = _cublas_hint()
            if hint:
                os.environ.setdefault("LOOM_CUBLAS", hint)
            _set_allow_tf32(_state["allow_tf32"])
            return
    raise RuntimeError(_state["error"])


def is_available():
    """Whether a CUDA device can be used (loads the CUDA library to find out)."""
    try:
        _lazy_init()
    except RuntimeError:
        return False
    return lib.lm_cuda_device_count() > 0


def is_initialized():
    return _state["loaded"]


def device_count():
    return lib.lm_cuda_device_count() if is_available() else 0


def current_device():
    _lazy_init()
    return 0


def get_device_name(device=None):
    _lazy_init()
    buf = ffi.new("char[256]")
    if lib.lm_cuda_device_name(buf, 256):
        raise_error("cuda.get_device_name")
    return ffi.string(buf).decode()


def mem_get_info(device=None):
    """(free, total) bytes of the device's memory, as the driver reports them."""
    _lazy_init()
    out = ffi.new("int64_t[2]")
    if lib.lm_cuda_mem_info(out):
        raise_error("cuda.mem_get_info")
    return int(out[0]), int(out[1])


def synchronize(device=None):
    """Wait for all work issued to the GPU to finish."""
    if _state["loaded"] and lib.lm_cuda_synchronize():
        raise_error("cuda.synchronize")


def _stats():
    out = ffi.new("int64_t[3]")
    lib.lm_cuda_memory_stats(out)
    return out


def memory_allocated(device=None):
    """Bytes held by live CUDA tensors (in the allocator's rounded sizes)."""
    return int(_stats()[0]) if _state["loaded"] else 0


def max_memory_allocated(device=None):
    return int(_stats()[1]) if _state["loaded"] else 0


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the driver: live tensors plus cached blocks."""
    return int(_stats()[2]) if _state["loaded"] else 0


def reset_peak_memory_stats(device=None):
    if _state["loaded"]:
        lib.lm_cuda_reset_peak()


def empty_cache():
    """Give cached, unused blocks back to the driver (live tensors keep theirs)."""
    if _state["loaded"] and lib.lm_cuda_empty_cache():
        raise_error("cuda.empty_cache")


def manual_seed(seed):
    """Seed the CUDA generator (Philox, counter-based: a seed gives the same values
    whatever the launch shape)."""
    lib.lm_cuda_manual_seed(seed & 0xFFFFFFFFFFFFFFFF)


manual_seed_all = manual_seed


def _set_allow_tf32(on):
    """loom.backends.cuda.matmul.allow_tf32's setter: kept here, applied once the library is loaded."""
    _state["allow_tf32"] = bool(on)
    if _state["loaded"]:
        lib.lm_cuda_set_allow_tf32(1 if on else 0)


def _cublas_hint():
    """Where cuBLAS may be: $LOOM_CUBLAS, else the nvidia-cublas wheel (loom[cuda]), else the loader's path."""
    if os.environ.get("LOOM_CUBLAS"):
        return os.environ["LOOM_CUBLAS"]
    for mod in ("nvidia.cu13", "nvidia.cublas"):
        try:
            spec = importlib.util.find_spec(mod)
        except ModuleNotFoundError:
            continue
        for root in (spec.submodule_search_locations or []) if spec else []:
            for name in ("libcublas.so.13", "libcublas.so.12"):
                p = os.path.join(root, "lib", name)
                if os.path.exists(p):
                    return p
    return None


class Event:
    """A point in the device's work (the default stream's), as torch.cuda.Event: record() marks it,
    synchronize() waits for it, query() polls it, elapsed_time(end) gives the milliseconds between
    two recorded events."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("loom.cuda.Event: interprocess events are not supported")
        _lazy_init()
        self._ev = lib.lm_cuda_event_create()
        if self._ev == ffi.NULL:
            raise_error("cuda.Event")
        self._recorded = False

    def record(self, stream=None):
        if lib.lm_cuda_event_record(self._ev):
            raise_error("cuda.Event.record")
        self._recorded = True

    def synchronize(self):
        if self._recorded and lib.lm_cuda_event_synchronize(self._ev):
            raise_error("cuda.Event.synchronize")

    def query(self):
        r = lib.lm_cuda_event_query(self._ev) if self._recorded else 1
        if r < 0:
            raise_error("cuda.Event.query")
        return bool(r)

    def wait(self, stream=None):
        self.synchronize()   # one stream: work after it is ordered after it already; the host waits

    def elapsed_time(self, end_event):
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        ms = ffi.new("float *")
        if lib.lm_cuda_event_elapsed(self._ev, end_event._ev, ms):
            raise_error("cuda.Event.elapsed_time")
        return float(ms[0])

    def __del__(self):
        ev = getattr(self, "_ev", None)
        if ev is not None and ev != ffi.NULL:
            lib.lm_cuda_event_destroy(ev)


class Stream:
    """The device's default stream: loom issues all its work there, in order. Other streams are
    not supported yet (Stream() gives the default one; wait/record go through it)."""

    def __init__(self, device=None, priority=0):
        _lazy_init()

    def synchronize(self):
        synchronize()

    def query(self):
        e = Event()
        e.record()
        return e.query()

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        pass   # one stream: already ordered

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream)

    def __hash__(self):
        return 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def current_stream(device=None):
    return Stream()


def default_stream(device=None):
    return Stream()


def stream(s):
    """As torch.cuda.stream(s): a context making s current (with one stream, a no-op)."""
    return s if s is not None else Stream()
