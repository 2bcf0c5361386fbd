"""grad, grad_and_value and vjp: reverse mode as functions (torch.func's), over loom's autograd.

The inputs differentiated are fresh leaves (or, where an outer transform tracks them, differentiable
aliases, so grad(grad(f)) works); under vmap they carry a dim per level (_canon), so the
gradients come out per sample."""
import functools

from .._ops import ones_like, zeros_like
from .._tensor import Tensor
from ..autograd.api import grad as _autograd_grad
from ..autograd import forward_ad
from ..autograd.grad_mode import enable_grad
from . import _pytree
from ._canon import active, canon, rewrap

_depth = [0]   # grad transforms in progress: an inner one keeps its graph for the outer


def _argnums_check(argnums, args, name):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -len(args) <= a < len(args):
            raise RuntimeError(f"Got argnum={a}, but only {len(args)} positional inputs")
    if len(set(n % len(args) for n in nums)) != len(nums):
        raise RuntimeError(f"argnums must be unique, got {argnums}")
    return [n % len(args) for n in nums]


def prepare(tree, lvls):
    """(tree of differentiable inputs at lvls, [(leaf, was tracked)]) for a tree of tensors."""
    leaves, spec = _pytree.flatten(tree)
    made, track = [], []
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
        p = canon(x, lvls)
        if forward_ad._state[0] and forward_ad.unpack_dual(p).tangent is not None:   # under jvp: keep the tangent
            leaf = p.view_as(p).requires_grad_() if not p.requires_grad else p.view_as(p)
            track.append(True)
        elif p.requires_grad:
            leaf = p.view_as(p)   # a new node of the outer graph: its gradient is this transform's own
            track.append(True)
        else:
            leaf = p.detach().requires_grad_()
            track.append(False)
        made.append(leaf)
    return _pytree.unflatten([rewrap(m, lvls) for m in made], spec), made, any(track)


def grads_of(out, leaves, lvls, cotangent, create):
    o = canon(out, lvls)
    v = ones_like(o) if cotangent is None else canon(cotangent, lvls)
    if not o.requires_grad:
        return [zeros_like(x) for x in leaves]
    gs = _autograd_grad([o], leaves, [v], retain_graph=True, create_graph=create, allow_unused=True)
    return [zeros_like(x) if g is None else (g if create else g.detach()) for g, x in zip(gs, leaves)]


def grad_and_value(func, argnums=0, has_aux=False):
    """func's gradient with respect to args[argnums] and its value, as (grad, value) (with has_aux:
    ((grad, (value, aux))))."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_check(argnums, args, "grad")
        lvls = active()
        _depth[0] += 1
        try:
            with enable_grad():
                diff = tuple(args[n] for n in nums)
                made_tree, leaves, tracked = prepare(diff, lvls)
                new_args = list(args)
                for n, m in zip(nums, made_tree):
                    new_args[n] = m
                out = func(*new_args, **kwargs)
                aux = None
                if has_aux:
                    if not (isinstance(out, tuple) and len(out) == 2):
                        raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                           "(output, aux) if has_aux is True")
                    out, aux = out
                if not isinstance(out, Tensor):
                    raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                       f"{type(out)}")
                if out.ndim != 0:
                    raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                                       f"got tensor with {out.ndim} dims. Maybe you wanted to use the vjp or jacrev "
                                       f"APIs instead?")
                create = tracked or _depth[0] > 1
                gs = grads_of(out, leaves, lvls, None, create)
        finally:
            _depth[0] -= 1
        g = _pytree.unflatten([rewrap(x, lvls) for x in gs], _pytree.flatten(diff)[1])
        if not isinstance(argnums, tuple):
            g = g[0]
        value = out if create else rewrap(canon(out, lvls).detach(), lvls)
        return (g, (value, aux)) if has_aux else (g, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar-valued func with respect to args[argnums] (with has_aux: (grad, aux))."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn): vjp_fn(cotangents) gives the vector-Jacobian products, one per primal."""
    lvls = active()
    _depth[0] += 1
    try:
        with enable_grad():
            made, leaves, tracked = prepare(primals, lvls)
            out = func(*made)
    finally:
        _depth[0] -= 1
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
                               "has_aux is True")
        out, aux = out
    outs, out_spec = _pytree.flatten(out)
    for o in outs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has non-empty output of "
                               f"Tensors, got {type(o)}")
    create = tracked or _depth[0] > 0

    def vjp_fn(cotangents):
        cts, ct_spec = _pytree.flatten(cotangents)
        if len(cts) != len(outs):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               "outputs to the function")
        for c, o in zip(cts, outs):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {tuple(c.shape)} and output[0] "
                                   f"has a shape of {tuple(o.shape)}.")
        now = active()
        if now != lvls:   # called under a vmap of its own (jacrev): run func again at the new levels
            return _vjp_again(func, primals, cts, out_spec, has_aux)
        gs = None
        with enable_grad():
            for c, o in zip(cts, outs):
                part = grads_of(o, leaves, lvls, c, create or _depth[0] > 0)
                gs = part if gs is None else [a + b for a, b in zip(gs, part)]
        return tuple(rewrap(g, lvls) for g in gs)

    res = out if create else _pytree.unflatten([rewrap(canon(o, lvls).detach(), lvls) for o in outs], out_spec)
    return (res, vjp_fn, aux) if has_aux else (res, vjp_fn)


def _vjp_again(func, primals, cts, out_spec, has_aux):
    def dotted(*p):
        o = func(*p)
        if has_aux:
            o = o[0]
        total = None
        for x, c in zip(_pytree.flatten(o)[0], cts):
            t = (x * c).sum()
            total = t if total is None else total + t
        return total
    g = grad(dotted, argnums=tuple(range(len(primals))))(*primals)
    return tuple(g)


__all__ = ["grad", "grad_and_value", "vjp"]
