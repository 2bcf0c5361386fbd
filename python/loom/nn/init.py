"""loom.nn.init: in-place initialisers with torch.nn.init's names and maths, drawn from loom's RNG
(seed with loom.manual_seed) or, given generator=, from that loom.Generator. They run under no_grad,
so they work on parameters."""
import math
import warnings

from .. import _ops
from .._args import takes_tensors as _takes_tensors   # private: these modules are public namespaces
from .._runtime import get_default_dtype
from .._generator import Generator
from .._linalg_api import qr as _qr
from .._numpy import as_tensor as _as_tensor
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad


def _check(tensor, name, generator=None):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}(): expected a loom.Tensor, got {type(tensor).__name__}")
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{name}(): generator should be a loom.Generator, but got {type(generator).__name__}")


def _fill_random(tensor, sample):
    if tensor.is_meta:   # no values to draw (PyTorch's initialisers leave meta tensors as they are)
        return tensor
    dtype = tensor.dtype if tensor.dtype.is_floating_point else get_default_dtype()
    with no_grad():
        tensor.copy_(sample(tuple(tensor.shape), dtype))
    return tensor


def _standard(shape, dtype, generator, normal):
    """N(0, 1) (normal) or U[0, 1) draws of `dtype`: from loom's global generator, or drawn on the host
    from `generator` (a NumPy stream, so its values differ from the global one's for the same seed)."""
    if generator is None:
        return (_ops.randn if normal else _ops.rand)(shape, dtype=dtype)
    return _as_tensor((generator._normal if normal else generator._uniform)(shape, dtype.numpy))


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


@_takes_tensors("tensor", a="float", b="float", generator=Generator)
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b)."""
    _check(tensor, "uniform_", generator)
    return _fill_random(tensor, lambda shape, dt: _standard(shape, dt, generator, False) * (b - a) + a)


@_takes_tensors("tensor", mean="float", std="float", generator=Generator)
def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std^2)."""
    _check(tensor, "normal_", generator)
    return _fill_random(tensor, lambda shape, dt: _standard(shape, dt, generator, True) * std + mean)


@_takes_tensors("tensor", sparsity="float", std="float", generator=Generator)
def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D tensor as a sparse matrix (Martens 2010): N(0, std^2) entries, then in each column
    ceil(sparsity * rows) entries at random rows set to zero (PyTorch's order of draws)."""
    _check(tensor, "sparse_", generator)
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    normal_(tensor, 0, std, generator)
    with no_grad():
        for col in range(cols):
            perm = (_as_tensor(generator._permutation(rows)) if generator is not None
                    else _ops.randperm(rows, device=tensor.device))
            tensor[perm[:num_zeros], col] = 0
    return tensor


@_takes_tensors("tensor", val="Number")
def constant_(tensor, val):
    _check(tensor, "constant_")
    with no_grad():
        tensor.fill_(val)
    return tensor


@_takes_tensors("tensor")
def ones_(tensor):
    return constant_(tensor, 1.0)


@_takes_tensors("tensor")
def zeros_(tensor):
    return constant_(tensor, 0.0)


@_takes_tensors("tensor", gain="float", generator=Generator)
def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


@_takes_tensors("tensor", gain="float", generator=Generator)
def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


@_takes_tensors("tensor", a="float", mode="str", nonlinearity="str", generator=Generator)
def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


@_takes_tensors("tensor", a="float", mode="str", nonlinearity="str", generator=Generator)
def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


@_takes_tensors("tensor", mean="float", std="float", a="float", b="float", generator=Generator)
def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std^2) truncated to [a, b]: uniform draws pushed through the normal's
    inverse CDF between the bounds' CDF values (PyTorch's method)."""
    _check(tensor, "trunc_normal_", generator)
    cdf = lambda x: (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0
    lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)

    def sample(shape, dt):
        u = _standard(shape, dt, generator, False) * (2 * hi - 2 * lo) + (2 * lo - 1)
        return (u.erfinv() * (std * math.sqrt(2.0)) + mean).clamp(a, b)
    return _fill_random(tensor, sample)


@_takes_tensors("tensor", gain="float", generator=Generator)
def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix, the Q of a Gaussian matrix's QR with R's diagonal signs
    folded in (Saxe et al. 2013); dims past the first are flattened."""
    _check(tensor, "orthogonal_", generator)
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows, cols = tensor.shape[0], tensor.numel() // tensor.shape[0]
    dtype = tensor.dtype if tensor.dtype.is_floating_point else get_default_dtype()
    flat = _standard((rows, cols), dtype, generator, True)
    if rows < cols:
        flat = flat.t()
    q, r = _qr(flat)
    q = q * r.diagonal(0, -2, -1).sign()
    if rows < cols:
        q = q.t()
    with no_grad():
        tensor.copy_((q * gain).reshape(list(tensor.shape)))
    return tensor


@_takes_tensors("tensor")
def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix (a Linear layer that passes its inputs through)."""
    _check(tensor, "eye_")
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_ops.eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))
    return tensor


@_takes_tensors("tensor", groups="int")
def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: each group passes as many input
    channels through unchanged as it has outputs."""
    _check(tensor, "dirac_")
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per = sizes[0] // groups
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per, sizes[1])):
                tensor[(g * per + d, d) + centre] = 1
    return tensor


def _deprecated(new):
    old = new.__name__[:-1]

    def init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.", FutureWarning,
                      stacklevel=2)
        return new(*args, **kwargs)
    init.__name__ = init.__qualname__ = old
    init.__doc__ = f"Deprecated spelling of {new.__name__}."
    init.__wrapped__ = new   # its signature is new's, and its errors name new, as PyTorch's do
    return init


# PyTorch's old names, kept with its FutureWarning
uniform, normal, constant, eye, dirac = (_deprecated(f) for f in (uniform_, normal_, constant_, eye_, dirac_))
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
orthogonal, sparse = _deprecated(orthogonal_), _deprecated(sparse_)
