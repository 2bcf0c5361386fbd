"""Process-wide settings of the C core: the random seed and the threads ops use."""
from ._C import ffi, lib
from ._dtype import BY_CODE, dtype as _dtype_cls
from ._errors import raise_error


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


def _parallel_stats():
    """Threaded regions run, how many the calling thread waited long for (another process held a
    core), and the milliseconds left during which regions run on one thread (native/core/parallel.c)."""
    out = ffi.new("int64_t[3]")
    lib.lm_parallel_stats(out)
    return {"regions": out[0], "late": out[1], "inline_ms": out[2] / 1e6}


def get_default_dtype():
    """The floating dtype factories (loom.ones, rand, arange of floats, ...) and Python floats take."""
    return BY_CODE[lib.lm_get_default_dtype()]


def set_default_dtype(d):
    """Make d (loom.float32 or loom.float64) the default floating dtype, as torch.set_default_dtype."""
    if not isinstance(d, _dtype_cls):
        raise TypeError(f"set_default_dtype(): argument 'd' must be loom.dtype, not {type(d).__name__}")
    if lib.lm_set_default_dtype(d.code):
        raise_error("set_default_dtype")
