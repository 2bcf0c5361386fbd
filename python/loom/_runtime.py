"""Process-wide settings of the C core: the random seed and the threads ops use."""
from ._C import lib


def manual_seed(seed):
    """Seed loom's random number generators (the CPU's and CUDA's), as torch.manual_seed."""
    lib.lm_manual_seed(seed & 0xFFFFFFFFFFFFFFFF)
    lib.lm_cuda_manual_seed(seed & 0xFFFFFFFFFFFFFFFF)


def get_num_threads():
    return lib.lm_get_num_threads()


def set_num_threads(n):
    lib.lm_set_num_threads(n)


def set_parallel_threshold(n):
    """Ops over fewer elements than this run on one thread (default 2**18)."""
    lib.lm_set_parallel_threshold(n)
