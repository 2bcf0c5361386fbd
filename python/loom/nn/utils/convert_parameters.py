"""Flatten parameters into one vector and back, as torch.nn.utils.parameters_to_vector / vector_to_parameters."""
from ... import _ops as _L   # the generated ops: _L.cat is loom.cat
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _params(parameters, op):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    params = list(parameters)
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"{op}(): parameters must be Tensors, but got {type(p).__name__}")
    return params


def parameters_to_vector(parameters):
    """One 1-d tensor holding every parameter's elements in order (differentiable, as torch's)."""
    params = _params(parameters, "parameters_to_vector")
    if not params:
        raise ValueError("parameters_to_vector(): expected a non-empty list of Tensors")
    return _L.cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of vec into the parameters (replacing their data; no autograd)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected loom.Tensor, but got: {type(vec).__name__}")
    if vec.ndim != 1:
        raise ValueError(f"vector_to_parameters(): vec must be 1-d, but got {vec.ndim} dimensions")
    params = _params(parameters, "vector_to_parameters")
    total = sum(p.numel() for p in params)
    if total != vec.numel():
        raise ValueError(f"vector_to_parameters(): vec has {vec.numel()} elements, but the parameters have {total}")
    offset = 0
    with no_grad():
        for p in params:
            n = p.numel()
            p.copy_(vec.narrow(0, offset, n).view(tuple(p.shape)))
            offset += n
