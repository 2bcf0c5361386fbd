"""loom.backends.cuda.matmul.allow_tf32: float32 matmuls on CUDA may use TF32
tensor cores (10-bit mantissa products, float32 accumulation). Off by default,
as in PyTorch."""
from .. import cuda as _cuda


class _Matmul:
    def __init__(self):
        self._allow_tf32 = False

    @property
    def allow_tf32(self):
        return self._allow_tf32

    @allow_tf32.setter
    def allow_tf32(self, on):
        self._allow_tf32 = bool(on)
        _cuda._set_allow_tf32(self._allow_tf32)


matmul = _Matmul()
