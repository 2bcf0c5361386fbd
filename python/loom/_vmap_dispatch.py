"""How an op runs on vmap's batched operands: its batching rule, found by the op's C name.

A generated op whose argument conversion meets a BatchedTensor calls `call` from its `except`
branch with its arguments by schema name. The innermost vmap level among the arguments is peeled
off: its operands become their whole-batch values (batch dim 0), the op runs once on those (an
outer level's BatchedTensors among them dispatch again), and the results are wrapped back. The
rules generated from the op model (codegen/vmapgen.py) are interpreted here; hand-written ones
(loom.func._rules) are registered into HAND and win."""
from . import _batched, _meta_dispatch
from ._batched import BatchedTensor, levels, wrap
from ._dims import wrap_dim
from ._tensor import Tensor

GENERATED = {}   # cname -> (name, rule tuple): from the generated _ops
HAND = {}        # cname -> fn(name, fn, args, level, size): hand-written rules


def install_generated(table):
    GENERATED.update(table)


def _tensors(v):
    if isinstance(v, Tensor):
        yield v
    elif isinstance(v, (list, tuple)):
        for e in v:
            if isinstance(e, Tensor):
                yield e


def call(cname, fn, args, out=None, inplace=False):
    fn = _meta_dispatch.by_schema_names(fn)
    level = max((_batched.level_of(t) for v in args.values() for t in _tensors(v)), default=0)
    if level == 0 and _meta_dispatch.involved(args):   # the other handle-less operand: a meta tensor
        return _meta_dispatch.call(cname, fn, args, out, inplace)
    name = GENERATED[cname][0] if cname in GENERATED else HAND_NAMES.get(cname, cname)
    if level == 0:   # only random ops reach here unbatched (a factory under vmap)
        return _random_unbatched(cname, name, fn, args, out)
    size = _batched.current(level)[1]
    if out is not None:
        raise RuntimeError(f"vmap: {name}(..., out=...) is not supported: write the result without out=")
    if inplace:
        return _inplace(cname, name, fn, args, level)
    rule = HAND.get(cname)
    if rule is not None:
        return rule(name, fn, args, level, size)
    gen = GENERATED.get(cname)
    if gen is None:
        raise NotImplementedError(f"vmap: no batching rule for loom.{name}")
    kind = gen[1][0]
    return RULES[kind](name, fn, args, level, size, *gen[1][1:])


HAND_NAMES = {}


# ---- helpers the rules share ----

def unwrap(x, level):
    """(value with the batch in dim 0, True) for x batched at level, else (x, False)."""
    if x.__class__ is BatchedTensor and x._level == level:
        return x._value, True
    return x, False


def materialize(x, level, size):
    """x's value with a batch dim in front at level: expanded (no copy) when x is not batched there."""
    v, b = unwrap(x, level)
    if b:
        return v
    return x.unsqueeze(0).expand((size,) + tuple(x.shape))


def result(r, level):
    if isinstance(r, tuple):
        return type(r)(*[result(e, level) for e in r]) if hasattr(r, "_fields") else tuple(result(e, level) for e in r)
    return wrap(r, level) if isinstance(r, Tensor) else r


def _logical_ndim(x):
    return x.ndim if isinstance(x, Tensor) else 0


# ---- the generated rules' interpreters ----

def pointwise(name, fn, args, level, size, tensors):
    new = dict(args)
    rank = max(_logical_ndim(args[n]) for n in tensors if args[n] is not None)
    for n in tensors:
        x = args[n]
        if x is None:
            continue
        v, b = unwrap(x, level)
        if b and v.ndim - 1 < rank:
            v = v.reshape((size,) + (1,) * (rank - v.ndim + 1) + tuple(v.shape[1:]))
        new[n] = v
    return result(fn(**new), level)


def _shift(v, nd, op):
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [wrap_dim(d, nd) + 1 for d in v]
    return wrap_dim(v, nd) + 1


def dims(name, fn, args, level, size, tensors, dim_args, new_dim):
    new = dict(args)
    first = args[tensors[0]]
    lst = isinstance(first, (list, tuple))
    if lst:
        nd = first[0].ndim if first else 0
        new[tensors[0]] = [materialize(x, level, size) for x in first]
    else:
        nd = first.ndim
        for n in tensors:
            if args[n] is not None:
                new[n] = materialize(args[n], level, size) if len(tensors) > 1 else unwrap(args[n], level)[0]
    scalar = nd == 0 and not new_dim
    if scalar:   # a 0-d sample: give it a dim, and take it away again after
        for n in tensors:
            if lst:
                new[n] = [v.unsqueeze(1) for v in new[n]]
            elif new[n] is not None:
                new[n] = new[n].unsqueeze(1)
        nd = 1
    rank = nd + 1 if new_dim else nd
    flat = False
    for d in dim_args:
        v = args[d]
        if v is None and "dim" in d:
            if name in ("argmax", "argmin"):   # int? dim=None: over the flattened tensor
                new[tensors[0]] = new[tensors[0]].reshape(size, -1)
                new[d], flat = 1, True
            else:   # int[]? dim=None: every logical dim
                new[d] = list(range(1, rank + 1))
        else:
            new[d] = _shift(v, rank, name)
            if name == "permute":   # the full permutation: the batch dim stays first
                new[d] = [0] + new[d]
    r = fn(**new)
    if flat and args.get("keepdim"):
        r = r.reshape((size,) + (1,) * nd)
    if scalar:
        r = _drop_dim(r, size)
    return result(r, level)


def _drop_dim(r, size):
    if isinstance(r, tuple):
        return type(r)(*[_drop_dim(e, size) for e in r]) if hasattr(r, "_fields") else tuple(_drop_dim(e, size) for e in r)
    return r.reshape(size) if isinstance(r, Tensor) and r.ndim == 2 else r


def size_rule(name, fn, args, level, size, tensors, size_arg):
    new = dict(args)
    x = args[tensors[0]]
    v, _ = unwrap(x, level)
    shape = list(args[size_arg])
    if name == "expand" and len(shape) > x.ndim:
        v = v.reshape((size,) + (1,) * (len(shape) - x.ndim) + tuple(x.shape))
    new[tensors[0]] = v
    new[size_arg] = [size] + shape
    return result(fn(**new), level)


def trailing(name, fn, args, level, size, tensors):
    new = dict(args)
    x = args[tensors[0]]
    new[tensors[0]] = unwrap(x, level)[0]
    r = fn(**new)
    if r is new[tensors[0]] and isinstance(x, BatchedTensor):
        return x   # the op returned its input (x.to(x.dtype), fill_)
    return result(r, level)


def random(name, fn, args, level, size, tensors):
    mode = _batched.current(level)[2]
    if mode == "error":
        raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                           "'same' or 'different' randomness flags on vmap or perform the randomness operation "
                           "out of vmap")
    x = args[tensors[0]]
    v, _ = unwrap(x, level)
    if mode == "same":   # one draw, shared by every sample
        new = dict(args)
        new[tensors[0]] = v[0] if v is not x else v
        r = fn(**new)
        return result(r.unsqueeze(0).expand((size,) + tuple(r.shape)), level)
    return trailing(name, fn, args, level, size, tensors)


def _random_unbatched(cname, name, fn, args, out):
    """A random op with no batched operand, called under vmap: a factory (randn(3)) or a draw like an
    unbatched tensor. 'different' gives every sample its own draw."""
    lv = levels[-1]
    level, size, mode = lv
    if mode == "error":
        return random(name, fn, args, level, size, ())
    if mode == "same" or out is not None:
        return _call_plain(fn, args, out)
    if "size" in args:
        new = dict(args)
        new["size"] = [size] + list(args["size"])
        return wrap(_call_plain(fn, new, None), level)
    t = next(n for n, v in args.items() if isinstance(v, Tensor))
    new = dict(args)
    new[t] = args[t].unsqueeze(0).expand((size,) + tuple(args[t].shape)).contiguous()
    r = _call_plain(fn, new, None)
    return wrap(r, level) if r is not new[t] else wrap(new[t], level)


def _call_plain(fn, args, out):
    with _Unbatched():
        return fn(**args) if out is None else fn(**args, out=out)


class _Unbatched:
    """vmap's levels hidden while a random op runs once for real (so it does not come back here)."""
    def __enter__(self):
        self.saved = levels[:]
        del levels[:]

    def __exit__(self, *exc):
        levels[:] = self.saved


def _inplace(cname, name, fn, args, level):
    self = args.get("self")
    if not (self.__class__ is BatchedTensor and self._level == level):
        raise RuntimeError(f"vmap: {name}_(self, *extra_args) is not possible because there exists a Tensor "
                           f"`other` in extra_args that has more elements than `self`. This happened due to "
                           f"`other` being vmapped over but `self` not being vmapped over in a vmap. Please try "
                           f"to use out-of-place operators instead of {name}_.")
    r = fn(**args)
    self._value.copy_(unwrap(r, level)[0] if r.__class__ is BatchedTensor and r._level == level
                      else r.unsqueeze(0).expand(self._value.shape))
    return self


RULES = {"pointwise": pointwise, "dims": dims, "size": size_rule, "trailing": trailing, "random": random}
