"""PyTorch's call forms of einsum, tensordot, block_diag and cartesian_prod, which no schema spells
(block_diag's and cartesian_prod's tensors as varargs); einsum's operands as
varargs (or a list, or the sublist form op, [0, 1], op, [1, 2], [0, 2]) and tensordot's dims= as
an int or a pair. Both hand a schema's arguments to the generated ops (ops/everyday.yaml)."""
from numbers import Integral

from . import _ops
from ._args import _type_error
from ._tensor import Tensor

__all__ = ["einsum", "tensordot", "block_diag", "cartesian_prod"]


def _varargs_or_list(args, tensors):
    """block_diag(a, b, c), as torch; or block_diag([a, b, c]) / tensors=, the schema's form."""
    if tensors is not None:
        return tensors
    return args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)


def block_diag(*args, out=None, tensors=None):
    """block_diag(*tensors), as torch.block_diag."""
    return _ops.block_diag(_varargs_or_list(args, tensors), out=out)


def cartesian_prod(*args, out=None, tensors=None):
    """cartesian_prod(*tensors), as torch.cartesian_prod."""
    return _ops.cartesian_prod(_varargs_or_list(args, tensors), out=out)


def _sublist_labels(sub):
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
        elif isinstance(s, Integral) and 0 <= s < 52:
            out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
        else:
            raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
    return "".join(out)


def einsum(*args, out=None, equation=None, tensors=None, path=None):
    """einsum(equation, *operands), einsum(equation, [operands]) or einsum(op, sublist, ..., [out sublist]),
    as torch.einsum."""
    if equation is not None or tensors is not None:   # the schema's own names
        return _ops.einsum(equation, tensors, path=path, out=out)
    if args and not isinstance(args[0], (str, Tensor)):   # neither form: the equation is what is wrong
        _type_error("einsum", "equation", "str", args[0])
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        # one argument not a Tensor: the list of operands (anything else is refused naming 'tensors')
        ops_ = args[1] if len(args) == 2 and not isinstance(args[1], Tensor) else list(args[1:])
        return _ops.einsum(args[0], ops_, path=path, out=out)
    ops_ = list(args[0::2][:len(args) // 2])
    subs = [_sublist_labels(s) for s in args[1::2][:len(args) // 2]]
    eq = ",".join(subs) + ("->" + _sublist_labels(args[-1]) if len(args) % 2 else "")
    return _ops.einsum(eq, ops_, path=path, out=out)


def tensordot(a=None, b=None, dims=2, dims_other=None, *, out=None, input=None, other=None, dims_self=None):
    """tensordot(a, b, dims=2): dims an int (a's last dims against b's first), a pair of lists, or a
    tensor of them, as torch.tensordot; or the schema's tensordot(input, other, dims_self, dims_other)."""
    if isinstance(dims_other, Tensor) and out is None:   # torch.tensordot's fourth positional is out
        dims_other, out = None, dims_other
    if input is not None or other is not None or dims_self is not None or dims_other is not None:
        return _ops.tensordot(a if input is None else input, b if other is None else other,
                              dims if dims_self is None else dims_self, dims_other, out=out)
    return _tensordot(a, b, dims, out)


def _tensordot(a, b, dims=2, out=None):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, Integral) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if isinstance(a, Tensor) and isinstance(b, Tensor) and (dims > a.ndim or dims > b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        if not all(isinstance(d, (list, tuple)) for d in dims):   # PyTorch refuses a pair of ints too
            raise TypeError(f"tensordot(): argument 'dims_self' (position 3) must be tuple of ints, "
                            f"not {type(dims[0]).__name__}")
        da, db = list(dims[0]), list(dims[1])
    else:
        raise RuntimeError(f"tensordot expects dims to be an int or a pair of lists of dims, but got {dims}")
    return _ops.tensordot(a, b, da, db, out=out)


einsum.__doc__ = f"{_ops.einsum.__doc__}\n\n{einsum.__doc__}"
tensordot.__doc__ = f"{_ops.tensordot.__doc__}\n\n{tensordot.__doc__}"


# the generated functions' documentation first (from ops/everyday.yaml), then the call form
block_diag.__doc__ = f"{_ops.block_diag.__doc__}\n\n{block_diag.__doc__}"
cartesian_prod.__doc__ = f"{_ops.cartesian_prod.__doc__}\n\n{cartesian_prod.__doc__}"
