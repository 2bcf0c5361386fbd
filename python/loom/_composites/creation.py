"""Composite ops of ops/creation.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/creation.yaml names it with
`composite: true`."""
from .. import _ops
from .._args import _apply_memory_format


def zeros(size, dtype, device, requires_grad):
    return _ops.full(size, 0.0 if dtype is None else 0, dtype=dtype, device=device, requires_grad=requires_grad)


def ones(size, dtype, device, requires_grad):
    return _ops.full(size, 1.0 if dtype is None else 1, dtype=dtype, device=device, requires_grad=requires_grad)


def _like(self, device):
    """A *_like factory's device: self's unless given."""
    return self.device if device is None else device


def _made_like(op, self, make, dtype, device, memory_format, requires_grad):
    """A *_like factory's result: make(dtype, device), laid out as memory_format asks (preserve_format:
    self's strides where self is dense), requires_grad set last."""
    r = make(self.dtype if dtype is None else dtype, _like(self, device))
    r = _apply_memory_format(r, memory_format, self, op)
    return r.requires_grad_(True) if requires_grad else r


def empty_like(self, dtype, device, memory_format, requires_grad):
    return _made_like("empty_like", self, lambda dt, dev: _ops.empty(self.shape, dtype=dt, device=dev), dtype, device,
                      memory_format, requires_grad)


def zeros_like(self, dtype, device, memory_format, requires_grad):
    return _made_like("zeros_like", self, lambda dt, dev: _ops.full(self.shape, 0, dtype=dt, device=dev), dtype, device,
                      memory_format, requires_grad)


def ones_like(self, dtype, device, memory_format, requires_grad):
    return _made_like("ones_like", self, lambda dt, dev: _ops.full(self.shape, 1, dtype=dt, device=dev), dtype, device,
                      memory_format, requires_grad)


def full_like(self, fill_value, dtype, device, memory_format, requires_grad):
    return _made_like("full_like", self, lambda dt, dev: _ops.full(self.shape, fill_value, dtype=dt, device=dev), dtype, device,
                      memory_format, requires_grad)


def arange(end, dtype, device, requires_grad):
    return _ops.arange(0, end, 1, dtype=dtype, device=device, requires_grad=requires_grad)


def rand_like(self, dtype, device, memory_format, requires_grad):
    return _made_like("rand_like", self, lambda dt, dev: _ops.rand(self.shape, dtype=dt, device=dev), dtype, device,
                      memory_format, requires_grad)


def randn_like(self, dtype, device, memory_format, requires_grad):
    return _made_like("randn_like", self, lambda dt, dev: _ops.randn(self.shape, dtype=dt, device=dev), dtype, device,
                      memory_format, requires_grad)
