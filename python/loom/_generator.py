"""Generator objects for host-side sampling (DataLoader shuffling, samplers, nn.init), as torch.Generator.

loom's random ops draw from the global C generator (loom.manual_seed); a Generator
is a separate, seedable stream (NumPy's PCG64) drawn on the host, so a DataLoader
can shuffle, and nn.init fill weights, reproducibly without touching the global state."""
import json
import os

import numpy as np

from ._dtype import device as _device, int64, uint8
from ._numpy import tensor
from ._ops import randint

_DEFAULT_SEED = 67280421310721   # PyTorch's default initial seed
_MASK = 0xFFFFFFFFFFFFFFFF


class Generator:
    def __init__(self, device="cpu"):
        self.device = _device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Reseed; negative seeds wrap to 64 bits, as PyTorch. Returns the generator."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            try:
                seed = int(seed)
            except (TypeError, ValueError):
                raise TypeError(f"manual_seed expected an int, but got {type(seed).__name__}") from None
        self._seed = int(seed) & _MASK
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self):
        """Reseed from the OS's entropy and return the new seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The generator's state as a uint8 tensor (for set_state)."""
        blob = json.dumps({"seed": self._seed, "state": self._rng.bit_generator.state}).encode()
        return tensor(np.frombuffer(blob, dtype=np.uint8).copy(), dtype=uint8)

    def set_state(self, new_state):
        try:
            saved = json.loads(bytes(np.asarray(new_state, dtype=np.uint8)).decode())
            rng = np.random.Generator(np.random.PCG64())
            rng.bit_generator.state = saved["state"]
        except (ValueError, KeyError, TypeError) as e:
            raise RuntimeError(f"Generator.set_state(): not a state from Generator.get_state() ({e})") from None
        self._seed, self._rng = saved["seed"], rng
        return self

    # host-side draws used by samplers
    def _permutation(self, n):
        return self._rng.permutation(n)

    def _integers(self, high, size):
        return self._rng.integers(0, high, size=size)

    def _uniform(self, shape, dtype):
        """Draws from U[0, 1) of a NumPy float dtype (drawn in that dtype, so rounding never reaches 1)."""
        return self._rng.random(shape, dtype=dtype)

    def _normal(self, shape, dtype):
        """Draws from N(0, 1) of a NumPy float dtype."""
        return self._rng.standard_normal(shape, dtype=dtype)

    def __repr__(self):
        return f"<loom.Generator object, device={self.device}>"


def _seed_from(generator):
    """A seed drawn from `generator`, or from loom's global generator when None (so loom.manual_seed fixes it)."""
    if generator is not None:
        return int(generator._integers(2 ** 62, None))
    return int(randint(0, 2 ** 62, (), dtype=int64).item())


def _from_global():
    """A Generator seeded from loom's global generator, so loom.manual_seed makes it reproducible."""
    return Generator().manual_seed(_seed_from(None))
