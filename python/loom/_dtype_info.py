"""loom.iinfo / loom.finfo: the numeric limits of a dtype, as torch.iinfo / torch.finfo
(from NumPy's, for the NumPy type of the same width)."""
import numpy as np

from ._dtype import dtype as _dtype_cls, float32 as _float32


def _check(d, what, want_float):
    if not isinstance(d, _dtype_cls):
        raise TypeError(f"{what}(): argument 'type' must be loom.dtype, not {type(d).__name__}")
    if (d.is_floating_point or (want_float and d.is_complex)) != want_float or d.name == "bool":
        kind = "a floating point" if want_float else "an integer"
        raise TypeError(f"{what}(): loom.{d.name} is not {kind} dtype; use loom.{'finfo' if not want_float else 'iinfo'}")


class iinfo:
    """bits, min, max and dtype of an integer dtype."""
    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type):
        _check(type, "iinfo", False)
        info = np.iinfo(type.numpy)
        self.bits, self.min, self.max, self.dtype = info.bits, int(info.min), int(info.max), type.name

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


class finfo:
    """bits, eps, max, min, tiny (smallest_normal), resolution and dtype of a floating dtype (of a
    complex dtype: of its parts)."""
    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):
        if type is None:
            type = _float32
        _check(type, "finfo", True)
        if type.numpy is None:   # bfloat16: float32's exponent, 8 significant bits
            self.bits, self.eps, self.max = 16, 2.0 ** -7, float.fromhex("0x1.fep+127")
            self.min, self.tiny, self.smallest_normal = -self.max, 2.0 ** -126, 2.0 ** -126
            self.resolution, self.dtype = 0.01, type.name
            return
        info = np.finfo(type.numpy)   # a complex dtype's: its parts' (complex64: float32), as torch's
        self.bits, self.eps, self.max, self.min = info.bits, float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution, self.dtype = 10.0 ** -info.precision, info.dtype.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")
