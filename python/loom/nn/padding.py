"""Padding layers (ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad over 1, 2 or 3 dims): F.pad
with the padding as PyTorch stores it, (left, right[, top, bottom[, front, back]])."""
from . import functional as F
from ._factory import ntuple
from .module import Module


class _PadNd(Module):
    n = 2
    mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = ntuple(padding, 2 * self.n, "padding")

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _layer(name, base, n, mode=None):
    attrs = {"n": n, "__doc__": f"{name}: F.pad over the last {n} dim(s)" + (f", mode '{mode}'." if mode else ".")}
    if mode:
        attrs["mode"] = mode
    return type(name, (base,), attrs)


ConstantPad1d, ConstantPad2d, ConstantPad3d = (_layer(f"ConstantPad{n}d", _ConstantPadNd, n) for n in (1, 2, 3))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (_layer(f"ReflectionPad{n}d", _PadNd, n, "reflect")
                                                     for n in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (_layer(f"ReplicationPad{n}d", _PadNd, n, "replicate")
                                                        for n in (1, 2, 3))
CircularPad1d, CircularPad2d, CircularPad3d = (_layer(f"CircularPad{n}d", _PadNd, n, "circular") for n in (1, 2, 3))


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


ZeroPad1d, ZeroPad2d, ZeroPad3d = (_layer(f"ZeroPad{n}d", _ZeroPadNd, n) for n in (1, 2, 3))

__all__ = [f"{kind}Pad{n}d" for kind in ("Constant", "Reflection", "Replication", "Circular", "Zero")
           for n in (1, 2, 3)]
