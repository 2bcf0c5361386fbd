"""Composite ops of ops/reduction.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/reduction.yaml names it with
`composite: true`."""
from .. import _ops


def max(self):
    return _ops.amax(self)


def max_other(self, other):
    return _ops.maximum(self, other)


def min(self):
    return _ops.amin(self)


def min_other(self, other):
    return _ops.minimum(self, other)
