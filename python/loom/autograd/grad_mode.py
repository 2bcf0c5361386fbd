"""Grad mode: whether ops record the graph, per thread as in PyTorch. Context
managers and decorators."""
import functools

from .._autograd import grad_enabled, set_grad_enabled as _set_enabled   # a C thread-local, read on every op call


def is_grad_enabled():
    return grad_enabled()


class _Mode:
    def __init__(self, enabled):
        self._enabled = enabled
        self._prev = []

    def __enter__(self):
        self._prev.append(grad_enabled())
        _set_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        _set_enabled(self._prev.pop())
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return fn(*args, **kwargs)
        return wrapper

    def _args(self):
        return (self._enabled,)


class no_grad(_Mode):
    """Ops inside do not record the graph."""

    def __init__(self):
        super().__init__(False)

    def _args(self):
        return ()


class enable_grad(_Mode):
    def __init__(self):
        super().__init__(True)

    def _args(self):
        return ()


class set_grad_enabled(_Mode):
    """set_grad_enabled(False) as a call, a context manager or a decorator."""

    def __init__(self, mode):
        super().__init__(bool(mode))
        self._prev.append(grad_enabled())
        _set_enabled(mode)   # a plain call takes effect at once, as in PyTorch

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set_enabled(self._prev.pop())
        return False


inference_mode = no_grad
