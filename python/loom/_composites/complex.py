"""Complex composites: conjugates and complex tensors built from real parts."""
from .. import _ops
from .._multi import broadcast_shapes


def conj(self):
    return _ops.conj_physical(self) if self.dtype.is_complex else self


def resolve_conj(self):
    return self


def complex(real, imag):
    if real.dtype != imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {real.dtype.name} but got scalar type "
                           f"{imag.dtype.name} for second argument")
    if real.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{real.dtype.name} and {imag.dtype.name}")
    shape = broadcast_shapes(real.shape, imag.shape)
    real, imag = real.expand(shape), imag.expand(shape)
    return _ops.view_as_complex(_ops.stack([real, imag], -1))


def polar(abs, angle):
    return complex(abs * _ops.cos(angle), abs * _ops.sin(angle))
