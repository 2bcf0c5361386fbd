"""PyTorch's dtype queries (torch.result_type, promote_types, can_cast) over the
C core's promotion rules, the ones every op applies."""
from ._C import lib
from ._args import _tensor_arg
from ._batched import BatchedOperand, BatchedTensor
from ._meta import MetaTensor
from ._meta_dispatch import stand_in
from ._dtype import BY_CODE, dtype as _dtype_cls
from ._dtype_table import PROMOTE, REFUSED
from ._errors import raise_error


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op of tensor1 and tensor2 (tensors or Python numbers) computes in:
    dimensioned tensors decide, then 0-d ones, then numbers, each only from a higher category."""
    try:
        hs = [_tensor_arg(tensor1, "result_type", "tensor1"), _tensor_arg(tensor2, "result_type", "tensor2")]
    except BatchedOperand:   # vmap: a sample's dtype and rank are its batch's less the batch dim
        return result_type(*[_one_sample(t) for t in (tensor1, tensor2)])
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
    a, b = _dtype_arg(type1, "promote_types", "type1"), _dtype_arg(type2, "promote_types", "type2")
    return promoted(a, b)


def promoted(a, b):
    """promoteTypes(a, b) of two dtypes; PyTorch's RuntimeError for a pair it refuses (uint16 with int64)."""
    code = PROMOTE[a.code][b.code]
    if code < 0:
        raise RuntimeError(REFUSED % (a.scalar_type, b.scalar_type))
    return BY_CODE[code]



def can_cast(from_, to):
    """Whether PyTorch's casting rules allow an op computing in from_ to write into to (no float
    into an integer, no number into bool)."""
    return bool(lib.lm_can_cast(_dtype_arg(from_, "can_cast", "from_").code, _dtype_arg(to, "can_cast", "to").code))


def _one_sample(t):
    while t.__class__ is BatchedTensor:
        t = t._value.select(0, 0)
    if isinstance(t, MetaTensor):   # a one-element CPU tensor of its dtype and rank decides the same
        return stand_in(t)
    return t
