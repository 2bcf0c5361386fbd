"""Anomaly detection (PyTorch's autograd.detect_anomaly): while it is on, every
node made keeps the traceback of the forward call that made it; an error in a
node's backward first warns with that traceback, and with check_nan a backward
returning NaN raises. The flag lives in C (loom._autograd.set_anomaly): off, it
costs the recorder and the engine one integer test."""
import functools
import sys
import traceback
import warnings

from .. import _ops   # generated; it imports this package, so its names are read at call time
from .._autograd import set_anomaly
from .._tensor import Tensor

_mode = [False, True]   # enabled, check_nan


def _outside_loom(walk):
    for frame, lineno in walk:
        name = frame.f_globals.get("__name__", "")
        if name != "loom" and not name.startswith("loom."):
            yield frame, lineno
            yield from walk
            return


def _capture(node):
    """The forward traceback, without loom's own frames at its end (the op's internals)."""
    frames = traceback.StackSummary.extract(_outside_loom(traceback.walk_stack(sys._getframe())))
    frames.reverse()
    node.metadata["traceback_"] = "".join(frames.format())


def _check(node, grads):
    for i, g in enumerate(grads):
        if isinstance(g, Tensor) and g.is_sparse:
            g = g._values()
        if isinstance(g, Tensor) and g.dtype.differentiable and bool(_ops.isnan(g).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _report(node):
    tb = node.metadata.get("traceback_")
    if tb is None:
        warnings.warn("Error detected in " + node.name() + ". No forward pass information available. Enable detect "
                      "anomaly during forward pass for more information.", stacklevel=2)
    else:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{tb}",
                      stacklevel=2)


def set_anomaly_enabled(enabled, check_nan=True):
    for pos, (arg, v) in enumerate((("enabled", enabled), ("check_nan", check_nan)), 1):
        if not isinstance(v, bool):   # a global switch: anything else is a mistake, as in PyTorch
            raise TypeError(f"set_anomaly_enabled(): argument '{arg}' (position {pos}) must be bool, "
                            f"not {type(v).__name__}")
    _mode[0], _mode[1] = bool(enabled), bool(check_nan)
    set_anomaly((2 if check_nan else 1) if enabled else 0, _capture, _check, _report)


def is_anomaly_enabled():
    return _mode[0]


def is_anomaly_check_nan_enabled():
    return _mode[1]


class detect_anomaly:
    """Context manager (or decorator) turning anomaly detection on: backward errors
    show the forward traceback of the op involved; with check_nan, a backward
    producing NaN raises."""

    def __init__(self, check_nan=True):
        self.prev, self.prev_check_nan = _mode
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __call__(self, fn):
        check_nan = self.check_nan

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = tuple(_mode)
            set_anomaly_enabled(True, check_nan)
            try:
                return fn(*args, **kwargs)
            finally:
                set_anomaly_enabled(*prev)
        return wrapper

    def __enter__(self):
        self.prev, self.prev_check_nan = _mode
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False


class set_detect_anomaly:
    """Turn anomaly detection on or off, as a call or as a context manager
    (restoring the previous setting on exit)."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = _mode
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False
