"""Composite ops of ops/conversion.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/conversion.yaml names it with
`composite: true`."""


def to_other(self, other, non_blocking, copy):
    return self.to(other.device, other.dtype, non_blocking=non_blocking, copy=copy)


def zero_(self):
    return self.fill_(0)
