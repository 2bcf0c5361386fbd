"""Composite ops of ops/conversion.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/conversion.yaml names it with
`composite: true`."""
from .. import _ops


def to_other(self, other, non_blocking, copy, memory_format):
    return self.to(other.device, other.dtype, non_blocking=non_blocking, copy=copy, memory_format=memory_format)


def to_memory_format(self, non_blocking, copy, memory_format):
    if copy:
        return _ops.clone(self, memory_format=memory_format)
    return self if memory_format is None else _ops.contiguous(self, memory_format=memory_format)


def zero_(self):
    return self.fill_(0)
