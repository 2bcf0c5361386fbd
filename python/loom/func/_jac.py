"""jvp (forward mode, over loom.autograd.forward_ad), jacrev, jacfwd and hessian."""
import functools

from .._ops import eye, movedim, zeros_like
from .._tensor import Tensor
from ..autograd import forward_ad
from . import _pytree
from ._canon import active, canon, rewrap
from ._grad import _argnums_check, vjp
from ._vmap import vmap


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian-vector product with tangents)."""
    if not isinstance(primals, (tuple, list)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    if not isinstance(tangents, (tuple, list)) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure.")
    ps, spec = _pytree.flatten(tuple(primals))
    ts, tspec = _pytree.flatten(tuple(tangents))
    if len(ps) != len(ts):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure.")
    for p, t in zip(ps, ts):
        if not isinstance(p, Tensor) or not isinstance(t, Tensor):
            raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be Tensors")
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have the same shape, "
                               f"got {tuple(p.shape)} and {tuple(t.shape)}")
    lvls = active()
    with forward_ad.dual_level():
        duals = [rewrap(forward_ad.make_dual(canon(p, lvls), canon(t, lvls)), lvls) for p, t in zip(ps, ts)]
        out = func(*_pytree.unflatten(duals, spec))
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("jvp(f, primals, tangents): output of function f should be a tuple: (output, aux) "
                                   "if has_aux is True")
            out, aux = out
        outs, ospec = _pytree.flatten(out)
        res_p, res_t = [], []
        for o in outs:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"jvp(f, primals, tangents): Expected f to return Tensors, got {type(o)}")
            prim, tan = forward_ad.unpack_dual(canon(o, lvls))
            res_p.append(rewrap(prim.detach(), lvls))
            res_t.append(rewrap(zeros_like(prim) if tan is None else tan, lvls))
    r = (_pytree.unflatten(res_p, ospec), _pytree.unflatten(res_t, ospec))
    return r + (aux,) if has_aux else r


def _basis(x):
    n = x.numel()
    return eye(n, dtype=x.dtype, device=x.device).reshape((n,) + tuple(x.shape))


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of func with respect to args[argnums], row by row from vjps (vmapped)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_check(argnums, args, "jacrev")

        def partial(*diff):
            full = list(args)
            for n, d in zip(nums, diff):
                full[n] = d
            return func(*full, **kwargs)
        res = vjp(partial, *[args[n] for n in nums], has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        outs, ospec = _pytree.flatten(out)
        jacs = []
        for i, o in enumerate(outs):
            def row(ct, i=i):
                cts = [ct if j == i else zeros_like(x) for j, x in enumerate(outs)]
                return vjp_fn(_pytree.unflatten(cts, ospec))
            rows = vmap(row, chunk_size=chunk_size)(_basis(o))   # per input: (numel(o), *input shape)
            per = [r.reshape(tuple(o.shape) + tuple(r.shape[1:])) for r in rows]
            jacs.append(per if isinstance(argnums, tuple) else per[0])
        if isinstance(argnums, tuple):
            jacs = [tuple(j) for j in jacs]
        jac = _pytree.unflatten(jacs, ospec)
        return (jac, res[2]) if has_aux else jac
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func with respect to args[argnums], column by column from jvps (vmapped)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_check(argnums, args, "jacfwd")
        diff = [args[n] for n in nums]

        def partial(*d):
            full = list(args)
            for n, x in zip(nums, d):
                full[n] = x
            return func(*full, **kwargs)
        per_input = []
        aux = None
        for k, x in enumerate(diff):
            def column(t, k=k):
                ts = [t if j == k else zeros_like(y) for j, y in enumerate(diff)]
                r = jvp(partial, tuple(diff), tuple(ts), has_aux=has_aux)
                return (r[1], r[2]) if has_aux else r[1]
            cols = vmap(column, randomness=randomness)(_basis(x))
            if has_aux:
                cols, aux_b = cols
                aux = _pytree.unflatten([a[0] for a in _pytree.flatten(aux_b)[0]], _pytree.flatten(aux_b)[1])
            leaves, spec = _pytree.flatten(cols)   # each (numel(x), *out shape)
            per_input.append(([movedim(c.reshape(tuple(x.shape) + tuple(c.shape[1:])), tuple(range(x.ndim)),
                                       tuple(range(c.ndim - 1, c.ndim - 1 + x.ndim))) for c in leaves], spec))
        if isinstance(argnums, tuple):
            spec = per_input[0][1]
            jac = _pytree.unflatten([tuple(p[0][i] for p in per_input) for i in range(len(per_input[0][0]))], spec)
        else:
            jac = _pytree.unflatten(per_input[0][0], per_input[0][1])
        return (jac, aux) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar func (torch.func's is jacfwd of jacrev; loom's is reverse over reverse,
    as forward AD over a reverse pass does not yet carry every tangent)."""
    return jacrev(jacrev(func, argnums), argnums)
