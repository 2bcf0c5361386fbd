"""Parameter: a Tensor that a Module registers as learnable state."""
from .._C import lib
from .._numpy import tensor
from .._ops import empty
from .._meta import MetaTensor, make as meta_make
from .._tensor import GradTensor, Tensor
from ..autograd.node import AutogradMeta


class Parameter(GradTensor):
    """A leaf tensor sharing `data`'s memory, with requires_grad=True by default.

    It is a GradTensor (so generated ops take the autograd path for it) whose
    autograd metadata is fresh: whatever history `data` had is cut, as
    torch.nn.Parameter does."""
    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty([0])
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): expected a Tensor as data, got {type(data).__name__}")
        if requires_grad and not data.dtype.differentiable:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        if isinstance(data, MetaTensor):   # no handle to share: a parameter of the meta device
            return meta_make(data.shape, data.dtype, data.stride(), data.storage_offset(), requires_grad,
                             cls=MetaParameter)
        self = Tensor.__new__(cls)
        lib.lm_retain(data._h)
        self._h = data._h
        self._ag = AutogradMeta(bool(requires_grad))
        return self

    def __init__(self, data=None, requires_grad=True):
        pass   # all done in __new__ (Tensor.__init__ refuses direct construction)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce__(self):
        return (_rebuild, (tensor(self.numpy().copy()), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = Parameter(self.detach().clone(), self.requires_grad)
        if self.grad is not None:
            new.grad = self.grad.detach().clone()
        memo[id(self)] = new
        return new


class MetaParameter(MetaTensor, Parameter):
    """A Parameter on the meta device (isinstance(p, Parameter) holds): metadata only, until
    Module.to_empty gives it memory."""
    __slots__ = ()

    def __repr__(self):
        return "Parameter containing:\n" + MetaTensor.__repr__(self)

    def __reduce__(self):
        return (Parameter, (MetaTensor.detach(self), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(MetaTensor.detach(self), self.requires_grad)
        return memo[id(self)]


def _rebuild(data, requires_grad):
    return Parameter(data, requires_grad)


def _swap_data(t, new):
    """Make tensor t hold new's memory (t keeps its identity, .grad and hooks):
    what `param.data = new` does in PyTorch."""
    lib.lm_retain(new._h)
    old, t._h = t._h, new._h
    lib.lm_release(old)
