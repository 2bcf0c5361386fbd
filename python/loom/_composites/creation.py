"""Composite ops of ops/creation.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/creation.yaml names it with
`composite: true`."""
from .. import _ops


def zeros(size, dtype, device, requires_grad):
    return _ops.full(size, 0.0 if dtype is None else 0, dtype=dtype, device=device, requires_grad=requires_grad)


def ones(size, dtype, device, requires_grad):
    return _ops.full(size, 1.0 if dtype is None else 1, dtype=dtype, device=device, requires_grad=requires_grad)


def _like(self, device):
    """A *_like factory's device: self's unless given."""
    return self.device if device is None else device


def empty_like(self, dtype, device, requires_grad):
    return _ops.empty(self.shape, dtype=self.dtype if dtype is None else dtype, device=_like(self, device),
                      requires_grad=requires_grad)


def zeros_like(self, dtype, device, requires_grad):
    return _ops.full(self.shape, 0, dtype=self.dtype if dtype is None else dtype, device=_like(self, device),
                     requires_grad=requires_grad)


def ones_like(self, dtype, device, requires_grad):
    return _ops.full(self.shape, 1, dtype=self.dtype if dtype is None else dtype, device=_like(self, device),
                     requires_grad=requires_grad)


def full_like(self, fill_value, dtype, device, requires_grad):
    return _ops.full(self.shape, fill_value, dtype=self.dtype if dtype is None else dtype,
                     device=_like(self, device), requires_grad=requires_grad)


def arange(end, dtype, device, requires_grad):
    return _ops.arange(0, end, 1, dtype=dtype, device=device, requires_grad=requires_grad)


def rand_like(self, dtype, device, requires_grad):
    return _ops.rand(self.shape, dtype=self.dtype if dtype is None else dtype, device=_like(self, device),
                     requires_grad=requires_grad)


def randn_like(self, dtype, device, requires_grad):
    return _ops.randn(self.shape, dtype=self.dtype if dtype is None else dtype, device=_like(self, device),
                      requires_grad=requires_grad)
