"""C error codes as Python exceptions.

A PyTorch user catches RuntimeError for a bad shape or dtype; a Python user
expects ValueError/TypeError. loom's exceptions are both."""
import re

from ._C import ffi, lib


class LoomValueError(ValueError, RuntimeError):
    pass


class LoomTypeError(TypeError, RuntimeError):
    pass


class LoomIndexError(IndexError, RuntimeError):
    pass


class LoomZeroDivisionError(ZeroDivisionError, RuntimeError):
    pass


class LoomOverflowError(OverflowError, RuntimeError):
    pass


EXCEPTIONS = {lib.LM_ERR_TYPE: LoomTypeError, lib.LM_ERR_VALUE: LoomValueError, lib.LM_ERR_INDEX: LoomIndexError,
              lib.LM_ERR_RUNTIME: RuntimeError, lib.LM_ERR_MEMORY: MemoryError, lib.LM_ERR_NOTIMPL: NotImplementedError,
              lib.LM_ERR_ZERODIV: LoomZeroDivisionError, lib.LM_ERR_OVERFLOW: LoomOverflowError}


def raise_error(op):
    code = lib.lm_error_code()
    msg = ffi.string(lib.lm_error_message()).decode("utf-8", "replace") if code else "failed without a message"
    lib.lm_clear_error()
    raise EXCEPTIONS.get(code, RuntimeError)(f"{op}(): {msg}")


_PREFIX = re.compile(r"^[A-Za-z_]\w*\(\): ")


_ALSO_RUNTIME = {ValueError: LoomValueError, TypeError: LoomTypeError, IndexError: LoomIndexError}


def renamed(e, op):
    """An error raised by an op inside a composite op, re-attributed to the op
    the user called (`logsumexp(): Dimension out of range ...`, not `amax(): ...`)."""
    msg = str(e)
    if msg.startswith(f"{op}(") or not isinstance(e, (TypeError, ValueError, IndexError, RuntimeError)):
        return e
    m = _PREFIX.match(msg)
    cls = _ALSO_RUNTIME.get(type(e), type(e))   # as a kernel's error is: PyTorch raises RuntimeError for most
    try:
        new = cls(f"{op}(): {msg[m.end():] if m else msg}")
    except Exception:   # an exception type that does not take one message
        return e
    new.__cause__ = e.__cause__
    return new


class SparseOperandError(NotImplementedError):
    """A sparse COO tensor reached an op that only takes dense (strided) tensors. Raised by a sparse
    tensor's missing handle; the generated argument conversion re-raises it naming the op."""


def sparse_operand_message(op):
    return (f"Could not run '{op}' with arguments from the 'SparseCPU' backend: loom's sparse COO tensors "
            f"support construction, coalesce, to_dense, transpose, +, * and / by a scalar, sum, mm/matmul/addmm "
            f"with a dense matrix (loom.sparse), and nothing else; convert with .to_dense() first")
