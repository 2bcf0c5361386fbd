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
    return "CUDA device 0"


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
