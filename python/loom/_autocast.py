"""Autocast's state and the cast the generated op functions make (ops whose ops/ entry says
`autocast:`): inside `loom.autocast(device_type, dtype)`, floating Tensor arguments of such
an op become the region's dtype ("lower": matmul, conv, linear) or float32 ("float32":
losses; softmax, norms and reductions on CUDA), as PyTorch's autocast op lists do. float64
is left alone, as PyTorch does. The state is per thread, as PyTorch's."""
import functools
import threading
import warnings

from ._dtype import BY_NAME, dtype as _dtype_cls

_DEVICES = ("cpu", "cuda")
_DEFAULT = {"cpu": BY_NAME["bfloat16"], "cuda": BY_NAME["float16"]}
_FLOAT32, _FLOAT64 = BY_NAME["float32"], BY_NAME["float64"]
_LOWER = {"cpu": (BY_NAME["bfloat16"], BY_NAME["float16"]), "cuda": (BY_NAME["bfloat16"], BY_NAME["float16"])}

# regions entered in any thread: the one check an autocast op makes when none is
active = [0]
_local = threading.local()


def _state():
    s = getattr(_local, "dtypes", None)
    if s is None:
        s = _local.dtypes = [None, None]   # per device code (cpu 0, cuda 1): the region's dtype, or None
    return s


def cast(kinds, *tensors):
    """The arguments as an autocast op takes them: kinds[device code] is "lower", "float32" or ""."""
    state = _state()
    out = []
    for t in tensors:
        if t is not None and hasattr(t, "_h") and t.dtype.is_floating_point and t.dtype is not _FLOAT64:
            dev = t._h.device
            region = state[dev] if dev < len(state) else None
            kind = kinds[dev] if dev < len(kinds) else ""
            want = region if kind == "lower" else _FLOAT32 if kind == "float32" else None
            if region is not None and want is not None and t.dtype is not want:
                t = t.to(want)
        out.append(t)
    return out


def is_autocast_enabled(device_type="cuda"):
    return _state()[_DEVICES.index(_check_device(device_type, "is_autocast_enabled"))] is not None


def get_autocast_dtype(device_type):
    d = _check_device(device_type, "get_autocast_dtype")
    return _state()[_DEVICES.index(d)] or _DEFAULT[d]


def _check_device(device_type, op):
    if not isinstance(device_type, str):
        raise TypeError(f"{op}(): argument 'device_type' (position 1) must be str, not {type(device_type).__name__}")
    if device_type not in _DEVICES:
        raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {device_type}")
    return device_type


class autocast:
    """Mixed precision in a region (or a decorated function), as torch.autocast: the ops PyTorch
    runs in lower precision (matmul, mm, bmm, linear, conv, baddbmm, addmm, prelu, attention) take
    `dtype` (bfloat16 on the CPU, float16 on CUDA by default), losses take float32."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = _check_device(device_type, "autocast")
        self.dtype = _DEFAULT[self.device] if dtype is None else dtype
        if not isinstance(self.dtype, _dtype_cls):
            raise TypeError(f"autocast(): dtype must be a loom.dtype, not {type(self.dtype).__name__}")
        self.enabled = bool(enabled)
        if self.enabled and self.dtype not in _LOWER[self.device]:   # as torch: a warning, and no autocast
            warnings.warn(f"In {self.device.upper()} autocast, but the target dtype is not supported. Disabling "
                          f"autocast.\n{self.device.upper()} Autocast only supports dtypes of "
                          f"{', '.join('loom.' + d.name for d in _LOWER[self.device])} currently.")
            self.enabled = False
        self._prev = []

    def __enter__(self):
        state = _state()
        i = _DEVICES.index(self.device)
        self._prev.append(state[i])
        state[i] = self.dtype if self.enabled else None
        active[0] += 1
        return self

    def __exit__(self, *exc):
        _state()[_DEVICES.index(self.device)] = self._prev.pop()
        active[0] -= 1
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with autocast(self.device, self.dtype, self.enabled):
                return fn(*args, **kwargs)
        return wrapped
