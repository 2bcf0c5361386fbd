"""loom.backends.cpu.matmul.allow_bf16_amx: bfloat16 products (matmul, linear, their backwards) may run
on AMX tiles where the host has them (Intel Xeon from Sapphire Rapids on, with a Linux that grants
them). Those are float32 sums of exact bfloat16 products, as oneDNN's (PyTorch's) on such hosts, but
not bit for bit the float32 path on float32 copies of the operands (the tiles add products in pairs
and flush subnormals): False brings that path back. On by default, as PyTorch uses them."""
from .._C import ffi, lib


def get_cpu_capability():
    """The vector instructions loom's generated loops use here: "AVX512", "AVX2" or "DEFAULT", as
    torch.backends.cpu.get_cpu_capability(). A build tuned for its host (the default, -march=native) has
    them fixed; a generic one (-Dnative=false) carries loops for each and picks by this CPU."""
    return ffi.string(lib.lm_cpu_capability()).decode()


def is_amx_available():
    """Whether bfloat16 products can run on AMX tiles here (the host has them and Linux grants them)."""
    return bool(lib.lm_has_amx_bf16())


class _Matmul:
    def __init__(self):
        self._allow_bf16_amx = True

    @property
    def allow_bf16_amx(self):
        return self._allow_bf16_amx

    @allow_bf16_amx.setter
    def allow_bf16_amx(self, on):
        self._allow_bf16_amx = bool(on)
        lib.lm_set_bf16_amx(1 if self._allow_bf16_amx else 0)


matmul = _Matmul()
