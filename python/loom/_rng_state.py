"""loom.get_rng_state / set_rng_state: the CPU generator's state as a tensor, as torch's (what
checkpointing replays so that dropout draws the same masks)."""
import numpy as np

from ._C import ffi, lib
from ._errors import raise_error
from ._numpy import from_numpy
from ._tensor import Tensor


def get_rng_state():
    """The CPU generator's state as a uint8 tensor (40 bytes), for set_rng_state."""
    words = ffi.new("uint64_t[5]")
    lib.lm_get_rng_state(words)
    return from_numpy(np.frombuffer(ffi.buffer(words), dtype=np.uint8).copy())


def set_rng_state(new_state):
    """Restore the CPU generator from get_rng_state()'s tensor: the same draws follow."""
    if not isinstance(new_state, Tensor) or new_state.dtype.name != "uint8" or new_state.numel() != 40:
        raise TypeError("set_rng_state(): expected the uint8 tensor of 40 bytes get_rng_state() returns")
    words = ffi.new("uint64_t[5]", np.ascontiguousarray(new_state.numpy()).view(np.uint64).tolist())
    if lib.lm_set_rng_state(words):
        raise_error("set_rng_state")
