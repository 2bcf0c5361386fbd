"""C error codes as Python exceptions.

A PyTorch user catches RuntimeError for a bad shape or dtype; a Python user
expects ValueError/TypeError. loom's exceptions are both."""
from ._C import ffi, lib


class LoomValueError(ValueError, RuntimeError):
    pass


class LoomTypeError(TypeError, RuntimeError):
    pass


class LoomIndexError(IndexError, RuntimeError):
    pass


EXCEPTIONS = {1: LoomTypeError, 2: LoomValueError, 3: LoomIndexError, 4: RuntimeError,
              5: MemoryError, 6: NotImplementedError}


def raise_error(op):
    code = lib.lm_error_code()
    msg = ffi.string(lib.lm_error_message()).decode("utf-8", "replace") if code else "failed without a message"
    lib.lm_clear_error()
    raise EXCEPTIONS.get(code, RuntimeError)(f"{op}(): {msg}")
