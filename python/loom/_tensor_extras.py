"""Tensor methods PyTorch code calls that are one-liners over the ops: the shape or dtype of
another tensor (expand_as, view_as, reshape_as), the alias ndimension, equal,
and the new_* factories, which default to the tensor's own dtype and device; nonzero(as_tuple=) and
one-argument where(condition), whose results change kind with an argument. install() puts them on
Tensor, as _indexing puts its dunders."""
from ._args import takes_tensors
from . import _ops
from ._numpy import tensor
from ._ops import empty, full, imag, ones, real, zeros
from ._tensor import Tensor


def ndimension(self):
    return self.ndim


@takes_tensors("self", "other")
def equal(self, other):
    """True when self and other have the same shape and elements (NaN equals nothing), as torch.equal."""
    if not isinstance(other, Tensor):
        raise TypeError(f"equal(): argument 'other' must be a Tensor, not {type(other).__name__}")
    return tuple(self.shape) == tuple(other.shape) and bool((self == other).all())


@takes_tensors("other")
def expand_as(self, other):
    return self.expand(tuple(other.shape))


@takes_tensors("other")
def view_as(self, other):
    return self.view(tuple(other.shape))


@takes_tensors("other")
def reshape_as(self, other):
    return self.reshape(tuple(other.shape))


def _like(self, dtype, device):
    return dict(dtype=self.dtype if dtype is None else dtype, device=self.device if device is None else device)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, **_like(self, dtype, device), requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return ones(*size, **_like(self, dtype, device), requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return empty(*size, **_like(self, dtype, device), requires_grad=requires_grad)


@takes_tensors(size="int[]", fill_value="Number")
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, **_like(self, dtype, device), requires_grad=requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of data (detached when data is a tensor), in self's dtype by default."""
    if isinstance(data, Tensor):
        data = data.detach().numpy()
    return tensor(data, **_like(self, dtype, device), requires_grad=requires_grad)


def nonzero(input, *, out=None, as_tuple=False):
    """as_tuple=True: one 1-D tensor of indices per dim (a 0-d input counts as 1-d), as torch.nonzero."""
    if not as_tuple:
        return _ops.nonzero(input, out=out)
    if out is not None:
        raise TypeError("nonzero(): out= is not supported with as_tuple=True")
    if not isinstance(input, Tensor):
        raise TypeError(f"nonzero(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    idx = _ops.nonzero(input.reshape(1) if input.ndim == 0 else input)
    return tuple(idx[:, d].contiguous() for d in range(idx.shape[1]))


@takes_tensors("condition")
def where(condition, input=None, other=None, *, out=None):
    """where(condition) alone: condition.nonzero(as_tuple=True), as torch.where."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() takes a condition alone, or a condition, an input and an other")
    return _ops.where(condition, input, other, out=out)


# the generated functions' documentation first (from ops/*.yaml), then what the wrappers add
nonzero.__doc__ = f"{_ops.nonzero.__doc__}\n\n{nonzero.__doc__}"
where.__doc__ = f"{_ops.where.__doc__}\n\n{where.__doc__}"


METHODS = (ndimension, equal, expand_as, view_as, reshape_as,
           new_zeros, new_ones, new_empty, new_full, new_tensor)


def _set_part(part):
    def setter(self, value):
        part(self).copy_(value)   # copy_ broadcasts a number or a tensor into the view
    return setter


# Tensor.real and Tensor.imag: views of a complex tensor's parts (real of a real tensor is itself)
PROPERTIES = {"real": property(real, _set_part(real)), "imag": property(imag, _set_part(imag))}


def install():
    """Put the methods on Tensor, leaving any the generated ops already define."""
    for fn in METHODS:
        if not hasattr(Tensor, fn.__name__):
            setattr(Tensor, fn.__name__, fn)
    Tensor.nonzero = nonzero
    for name, prop in PROPERTIES.items():
        setattr(Tensor, name, prop)
