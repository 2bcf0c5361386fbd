"""Composite ops of ops/special.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/special.yaml names it with
`composite: true`."""
from .. import _ops


def mvlgamma(self, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    out = _ops.lgamma(self) + p * (p - 1) / 4 * 1.1447298858494002
    for j in range(1, p):
        out = out + _ops.lgamma(self - j / 2)
    return out
