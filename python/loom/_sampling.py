"""PyTorch's sampling API over the seeded kernels of ops/random.yaml: multinomial, randperm, bernoulli,
normal, poisson, the in-place fills (uniform_, normal_, exponential_, ...) and generator= on rand/randn/randint.

The kernels take a seed; here it comes from the `generator` given (a loom.Generator) or, without one,
from loom.manual_seed's global stream, so both ways are reproducible."""
import numbers

import numpy as np

from . import _ops
from ._args import takes_tensors, _apply_memory_format, _int, _int_list, _type_error, _write_out
from ._dtype import float64, int64
from ._generator import Generator
from ._tensor import Tensor

__all__ = ["multinomial", "randperm", "bernoulli", "normal", "poisson", "rand", "randn", "randint", "randint_like"]


def _standard_gamma(concentration, generator=None):
    """Gamma(concentration, 1) draws, one per element (no gradient)."""
    return _ops.random_draw(concentration.detach(), 2, seed=_seed(generator, "_standard_gamma"))


def _seed(generator, op, seed=None):
    """The kernel's seed: drawn from generator, else `seed` (loom's own keyword; None: the global stream)."""
    if generator is None:
        return seed
    if not isinstance(generator, Generator):
        raise TypeError(f"{op}(): generator should be a loom.Generator, but got {type(generator).__name__}")
    return int(generator._integers(2 ** 62, None))


def _doc_from(op):
    """The generated op's docstring (from ops/*.yaml), plus what the wrapper adds."""
    def wrap(fn):
        fn.__doc__ = f"{op.__doc__}\n\n{fn.__doc__}"
        return fn
    return wrap


def _into(out, result, op):
    """out= as every loom function takes it (the shared check, cast and resize of an empty out)."""
    return result if out is None else _write_out(out, result, op)


def _like_out(out, dtype, device):
    """A factory's dtype= and device= default to out's, as torch.rand(3, out=t) makes t's dtype."""
    if out is None:
        return dtype, device
    return (out.dtype if dtype is None and isinstance(out, Tensor) else dtype,
            out.device if device is None and isinstance(out, Tensor) else device)


@_doc_from(_ops.multinomial)
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None, seed=None):
    """generator: a loom.Generator to draw from instead of loom.manual_seed's stream."""
    return _into(out, _ops.multinomial(input, num_samples, replacement, seed=_seed(generator, "multinomial", seed)),
                 "multinomial")


@_doc_from(_ops.randperm)
def randperm(n, *, generator=None, out=None, dtype=None, device=None, requires_grad=False, seed=None):
    """generator: a loom.Generator to draw from instead of loom.manual_seed's stream."""
    dtype, device = _like_out(out, dtype, device)
    r = _ops.randperm(n, seed=_seed(generator, "randperm", seed), dtype=dtype, device=device)
    return _into(out, r.requires_grad_(True) if requires_grad else r, "randperm")


@takes_tensors("input", p="float")
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 draws with probabilities input (or with probability p everywhere, shaped like input)."""
    if p is not None:
        return _into(out, input.detach().clone().random_fill_(3, float(p), seed=_seed(generator, "bernoulli")),
                     "bernoulli")
    return _into(out, _ops.random_draw(input.detach(), 0, seed=_seed(generator, "bernoulli")), "bernoulli")


@takes_tensors("input")
def poisson(input, generator=None):
    """A Poisson draw per element with rate input."""
    return _ops.random_draw(input.detach(), 1, seed=_seed(generator, "poisson"))


@takes_tensors(size="int[]")
def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False):
    """Normal draws: mean and std tensors (broadcast) or numbers with size=, as torch.normal."""
    for name, v in (("mean", mean), ("std", std)):
        if not isinstance(v, (Tensor, numbers.Real)):
            _type_error("normal", name, "Tensor or float", v)
    seed = _seed(generator, "normal")
    dtype, device = _like_out(out, dtype, device)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() with float mean and std needs a size")
        r = _ops.empty(tuple(size), dtype=dtype, device=device).random_fill_(1, float(mean), float(std), seed=seed)
        if requires_grad:
            r.requires_grad_(True)
        return _into(out, r, "normal")
    if st and (std.detach() < 0).any().item():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    shape = np.broadcast_shapes(*[tuple(t.shape) for t in (mean, std) if isinstance(t, Tensor)])
    like = mean if mt else std
    z = _ops.empty(tuple(shape), dtype=like.dtype, device=like.device).random_fill_(1, 0.0, 1.0, seed=seed)
    return _into(out, (mean + std * z).detach(), "normal")


_rand, _randn, _randint = _ops.rand, _ops.randn, _ops.randint


def _size(args, size, op):
    if size is None:
        size = args[0] if len(args) == 1 and not isinstance(args[0], numbers.Integral) else args
    return tuple(_int_list(size, op, "size")[0])


@_doc_from(_ops.rand)
def rand(*size, generator=None, out=None, dtype=None, device=None, requires_grad=False, **kw):
    """generator: a loom.Generator to draw from instead of loom.manual_seed's stream."""
    shape = _size(size, kw.pop("size", None), "rand")
    dtype, device = _like_out(out, dtype, device)
    if generator is None:
        r = _rand(shape, dtype=dtype, device=device, requires_grad=requires_grad, **kw)
    else:
        r = _ops.empty(shape, dtype=dtype, device=device).random_fill_(0, 0.0, 1.0, seed=_seed(generator, "rand"))
        r = r.requires_grad_(True) if requires_grad else r
    return _into(out, r, "rand")


@_doc_from(_ops.randn)
def randn(*size, generator=None, out=None, dtype=None, device=None, requires_grad=False, **kw):
    """generator: a loom.Generator to draw from instead of loom.manual_seed's stream."""
    shape = _size(size, kw.pop("size", None), "randn")
    dtype, device = _like_out(out, dtype, device)
    if generator is None:
        r = _randn(shape, dtype=dtype, device=device, requires_grad=requires_grad, **kw)
    else:
        r = _ops.empty(shape, dtype=dtype, device=device).random_fill_(1, 0.0, 1.0, seed=_seed(generator, "randn"))
        r = r.requires_grad_(True) if requires_grad else r
    return _into(out, r, "randn")


@_doc_from(_ops.randint)
@takes_tensors(low="int")
def randint(low, high=None, size=None, *, generator=None, out=None, dtype=None, device=None, requires_grad=False):
    """randint(high, size) starts at 0; generator: a loom.Generator to draw from instead of the global stream."""
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    _int(high, "randint", "high")   # here, not in takes_tensors: randint(high, size) shifts the positions
    _int_list(size, "randint", "size")
    dtype, device = _like_out(out, dtype, device)
    if generator is None:
        r = _randint(low, high, tuple(size), dtype=dtype, device=device)
    else:
        u = _ops.empty(tuple(size), dtype=float64).random_fill_(0, float(low), float(high),
                                                                seed=_seed(generator, "randint"))
        r = u.floor().clamp(low, high - 1).to(int64 if dtype is None else dtype)
        r = r if device is None else r.to(device)
    return _into(out, r, "randint")


@takes_tensors(low="int", high="int")
def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None, requires_grad=False,
                 memory_format=None):
    """Integers drawn uniformly from [low, high) (randint_like(x, high): [0, high)) in a tensor shaped like
    input, of input's dtype and device unless given, as torch.randint_like."""
    if not isinstance(input, Tensor):
        raise TypeError(f"randint_like(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if high is None:
        low, high = 0, low
    r = randint(low, high, tuple(input.shape), generator=generator, dtype=input.dtype if dtype is None else dtype,
                device=input.device if device is None else device)
    r = _apply_memory_format(r, memory_format, input, "randint_like")
    return r.requires_grad_(True) if requires_grad else r


# ---- Tensor methods: in-place fills with PyTorch's names and defaults
def _fill(kind, name, defaults):
    def method(self, *args, generator=None, **kwargs):
        vals = list(defaults)
        for i, v in enumerate(args):
            vals[i] = v
        for k, v in kwargs.items():
            if k not in _ARGS[name]:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
            vals[_ARGS[name].index(k)] = v
        a, b = (float(v) for v in (vals + [0.0])[:2])
        return self.random_fill_(kind, a, b, seed=_seed(generator, name))
    method.__name__ = name
    method.__doc__ = f"Fill self in place with draws of {name[:-1]} ({', '.join(_ARGS[name])}), as torch.Tensor.{name}."
    return method


_ARGS = {"uniform_": ["from", "to"], "normal_": ["mean", "std"], "exponential_": ["lambd"],
         "cauchy_": ["median", "sigma"], "log_normal_": ["mean", "std"], "geometric_": ["p"]}


@takes_tensors(label="bernoulli_", p="float")
def _bernoulli_(self, p=0.5, *, generator=None):
    """Fill self in place with 0/1 draws of probability p (a number or a tensor broadcast to self)."""
    seed = _seed(generator, "bernoulli_")
    if isinstance(p, Tensor):
        return self.copy_(_ops.random_draw(p.detach().to(float64).expand(self.shape).contiguous(), 0, seed=seed))
    return self.random_fill_(3, float(p), seed=seed)


@takes_tensors(label="random_", from_="int", to="int")
def _random_(self, from_=0, to=None, *, generator=None):
    """Fill self in place with integers in [from, to) (to None: [0, from) when given one bound)."""
    if to is None:
        from_, to = 0, from_ if from_ else 2 ** 24 if self.dtype.is_floating_point else 2 ** 31
    u = _ops.empty(tuple(self.shape), dtype=float64).random_fill_(0, float(from_), float(to),
                                                                       seed=_seed(generator, "random_"))
    return self.copy_(u.floor().clamp(from_, to - 1))


def install():
    for name, (kind, defaults) in {"uniform_": (0, [0.0, 1.0]), "normal_": (1, [0.0, 1.0]),
                                   "exponential_": (2, [1.0]), "cauchy_": (4, [0.0, 1.0]),
                                   "log_normal_": (5, [1.0, 2.0]), "geometric_": (6, [0.5])}.items():
        setattr(Tensor, name, _fill(kind, name, defaults))
    Tensor.bernoulli_ = _bernoulli_
    Tensor.random_ = _random_
    Tensor.multinomial = multinomial
    Tensor.bernoulli = bernoulli
    Tensor.poisson = poisson
