"""PyTorch's dtype queries (torch.result_type, promote_types, can_cast) over the
C core's promotion rules, the ones every op applies."""
from ._C import lib
from ._args import _tensor_arg
from ._dtype import BY_CODE, dtype as _dtype_cls
from ._errors import raise_error
from ._tensor import _new


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op of tensor1 and tensor2 (tensors or Python numbers) computes in:
    dimensioned tensors decide, then 0-d ones, then numbers, each only from a higher category."""
    hs = [_tensor_arg(tensor1, "result_type", "tensor1"), _tensor_arg(tensor2, "result_type", "tensor2")]
    code = lib.lm_result_type(hs, 2)
    if code < 0:
        raise_error("result_type")
    return BY_CODE[code]


def _dtype_arg(d, fn, name):
    if not isinstance(d, _dtype_cls):
        raise TypeError(f"{fn}(): argument '{name}' must be loom.dtype, not {type(d).__name__}")
    return d


def promote_types(type1, type2):
    """The smallest dtype both dtypes convert to without losing range or kind."""
    a = _one_element(_dtype_arg(type1, "promote_types", "type1"))
    b = _one_element(_dtype_arg(type2, "promote_types", "type2"))
    return result_type(a, b)


def _one_element(d):
    """An uninitialised 1-element tensor of dtype d: dimensioned, so promotion treats it as a tensor."""
    h = lib.lm_empty_strided(1, [1], [1], d.code, lib.LM_CPU)
    if not h:
        raise_error("promote_types")
    return _new(h)


def can_cast(from_, to):
    """Whether PyTorch's casting rules allow an op computing in from_ to write into to (no float
    into an integer, no number into bool)."""
    return bool(lib.lm_can_cast(_dtype_arg(from_, "can_cast", "from_").code, _dtype_arg(to, "can_cast", "to").code))
