"""loom: a tensor library whose operators are declared in YAML and generated."""
import os as _os
import sys as _sys

import scipy_openblas32 as _openblas  # noqa: F401  (loads libscipy_openblas before _C needs it)

# libgomp's default keeps idle OpenMP threads spinning for ~0.3 s, which made a
# small-CNN step 17x slower when OpenBLAS's own pool ran beside them; sleeping at
# once (PASSIVE) costs a ~40 us wake-up per parallel region on a VM's idle vCPU,
# half of a 64x128x512 product. A short spin keeps back-to-back kernels warm
# (digits MLP epoch 3.8 -> 2.1 ms, CNN 44 -> 32 ms, GPT step 14.5 -> 11.7 ms) and
# OpenBLAS's pool stays idle (gemm.c splits products over these threads instead).
# libgomp reads it once, when _C loads it, just below; a user's setting wins.
if "OMP_WAIT_POLICY" not in _os.environ:
    _os.environ.setdefault("GOMP_SPINCOUNT", "30000")

from ._C import lib as _lib
_lib.lm_install_gil_hooks()
if "LOOM_PARALLEL_THRESHOLD" in _os.environ:   # elements from which an op uses threads
    _lib.lm_set_parallel_threshold(int(_os.environ["LOOM_PARALLEL_THRESHOLD"]))
from ._dtype import bool_, uint8, int32, int64, float32, float64, dtype, device
from ._memory_format import memory_format, contiguous_format, channels_last, channels_last_3d, preserve_format
from . import _dtype
from ._tensor import Tensor, Size
from ._numpy import tensor, as_tensor, from_numpy, from_dlpack, is_tensor
from ._promotion import result_type, promote_types, can_cast
from ._dtype_info import iinfo, finfo
from ._errors import LoomValueError, LoomTypeError, LoomIndexError, LoomZeroDivisionError, LoomOverflowError
from ._ops import *  # noqa: F401,F403  (every function declared in ops/)
from . import _ops
from ._multi import *  # noqa: F401,F403  (split, chunk, unbind, meshgrid, ...: several results)
from ._everyday import *  # noqa: F401,F403  (einsum's and tensordot's call forms over their ops)
from ._everyday2 import *  # noqa: F401,F403  (unique's and unique_consecutive's call forms over their ops)
from ._everyday3 import *  # noqa: F401,F403  (vander's N= and unravel_index's tuple over their ops)
from . import _indexing  # noqa: F401  (installs Tensor.__getitem__/__setitem__, built on the ops)
from . import _tensor_extras  # noqa: E402  (expand_as, view_as, new_zeros, clip, equal, ...: Tensor methods)
_tensor_extras.install()
from ._tensor_extras import equal, nonzero, where  # noqa: E402,F401  (functions as well, as torch's)
from . import _storage  # noqa: E402  (Tensor.untyped_storage, Tensor.storage)
_storage.install()
from ._storage import TypedStorage, UntypedStorage  # noqa: E402,F401
from ._compile import compile  # noqa: E402,F401
from ._layout import layout, strided, sparse_coo  # noqa: E402,F401
from . import _sparse, _sparse_ops  # noqa: E402
_sparse.install()
_sparse_ops.install()
from ._sparse import sparse_coo_tensor  # noqa: E402,F401
from ._sparse_ops import mm, matmul, spmm  # noqa: E402,F401  (mm/matmul take a sparse operand too)
from . import sparse  # noqa: E402,F401
from . import autograd
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from .autograd.api import install as _install_autograd
_install_autograd(Tensor)
from . import nn   # after the ops: nn's modules build on them

# every dtype name and alias of dtypes.yaml (loom.bool, loom.float, loom.long, ...), as torch's
globals().update(_dtype.NAMES)

__version__ = "0.1.0"

from ._runtime import manual_seed, get_num_threads, set_num_threads, set_parallel_threshold  # noqa: E402
from ._rng_state import get_rng_state, set_rng_state  # noqa: E402
from ._runtime import get_default_dtype, set_default_dtype  # noqa: E402
from . import optim, utils  # noqa: E402  (pure Python over the ops above)
from . import cuda, backends, accelerator  # noqa: E402  (the CUDA device: loom._cuda loads on first use)
from ._legacy import TYPES as _LEGACY_TYPES, type_ as _type  # noqa: E402
globals().update(_LEGACY_TYPES)   # loom.FloatTensor, loom.LongTensor, ...: constructors and isinstance targets
Tensor.type = _type
from . import amp  # noqa: E402
from . import _cuda_amp  # noqa: E402
cuda.amp = _sys.modules["loom.cuda.amp"] = _cuda_amp   # torch.cuda.amp's spellings (cuda is a module here)
from .amp import autocast, is_autocast_enabled, get_autocast_dtype  # noqa: E402,F401
from . import fft, linalg, special  # noqa: E402
from .linalg import _tensor_norm as norm, allclose  # noqa: E402  (Python: their p/result are no schema types)
# torch.* spellings of linalg functions
from .linalg import det, slogdet, matrix_power, matrix_exp, inv as inverse, householder_product as orgqr  # noqa: E402,F401
from ._linalg_api import logdet, cholesky_solve, cholesky_inverse, torch_svd as svd  # noqa: E402,F401
from ._linalg_api import torch_lu_solve as lu_solve  # noqa: E402,F401
from ._linalg_composite import pinverse  # noqa: E402,F401
Tensor.norm = norm
Tensor.allclose = allclose
from ._spectral import stft, istft, hann_window, hamming_window, blackman_window, bartlett_window  # noqa: E402
Tensor.stft, Tensor.istft = stft, istft
from .serialization import save, load  # noqa: E402
from ._generator import Generator  # noqa: E402
from ._sampling import *  # noqa: F401,F403,E402  (multinomial, normal, ... and rand/randn/randint with generator=)
from ._sampling import install as _install_sampling  # noqa: E402
_install_sampling()
from . import distributions  # noqa: E402
from . import testing  # noqa: E402,F401
from . import func  # noqa: E402  (vmap, grad, jacrev, ...: transforms over the ops and autograd)
from .func import vmap  # noqa: E402
from . import profiler  # noqa: E402,F401  (torch.profiler's spelling of autograd.profiler)
from . import array_api  # noqa: E402,F401  (the Array API standard namespace; installs Tensor.__array_namespace__)
