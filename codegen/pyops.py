"""The Python operators (Tensor.__add__, ...) and the overload resolvers of
_ops.py, written here as code rather than in the template, which only prints
what these functions return.

An operator method is the op's function with a fast path in front: two plain
Tensors (or a Tensor and a Python number with nothing to record) go straight to
the C entry with the op's other arguments folded into their defaults, which
keeps `a + b` on one element at one cffi call. Everything else (autograd, other
operand types) goes through the op's function, the one front door that records."""
from . import pygen

UNARY_DUNDERS = ("__neg__", "__abs__", "__invert__", "__pos__")


def dunder_kind(name):
    if name in UNARY_DUNDERS:
        return "unary"
    if name.startswith("__r") and name not in ("__rshift__",):
        return "reflected"
    if name.startswith("__i") and name != "__invert__":
        return "inplace"
    return "binary"


def _parts(op, kind):
    """(statements, C args) for an operator method: the two operands are `self` and `o`,
    and the op's other arguments fold into their defaults (Scalars into prebuilt structs)."""
    convs = pygen.conversions(op, op.name)
    ins = [a.name for a in op.inputs]
    handles = {f"{ins[0]}_h": "o" if kind == "reflected" else "self._h"}
    if len(ins) > 1:
        handles[f"{ins[1]}_h"] = "self._h" if kind == "reflected" else "o"
    consts = {f"{a.name}_s": pygen.scalar_const(a.default)[0] for a in op.ctx_args
              if a.type.base == "Scalar" and a.has_default}
    stmts = [f"{a.name} = {a.default!r}" for a in op.ctx_args if a.type.base != "Scalar"]
    stmts += [c.stmt for c in convs if c.stmt and c.cargs[0] not in handles and c.cargs[0] not in consts]
    cargs = [handles.get(x, consts.get(x, x)) for c in convs for x in c.cargs]
    return stmts, cargs


def _new_tensor(call, name, indent):
    pad = " " * indent
    return (f"{pad}h = {call}\n{pad}if not h:\n{pad}    _raise(\"{name}\")\n"
            f"{pad}t = _object_new(Tensor)\n{pad}t._h = h\n{pad}return t\n")


def dunder_source(op, dname, kind, fname, inplace_fname):
    """The Python source of the operator method `_NAME` (fname, inplace_fname: the Python names
    of the op's function and in-place method, which the slow paths call)."""
    stmts, cargs = _parts(op, kind)
    args = ", ".join(cargs)
    fast = ", ".join("other._h" if a == "o" else a for a in cargs)
    operands = "other, self" if kind == "reflected" else "self, other"
    out = [f"def _{dname.strip('_')}(self{'' if kind == 'unary' else ', other'}):\n"]
    if op.autocast and kind in ("binary", "reflected"):   # autocast casts in the function: no fast path then
        out.append(f"    if _amp_active[0]:\n        return {fname}({operands})\n")
    out += [f"    {s}\n" for s in stmts]
    out.append(f"    if self.__class__ is Tensor{'' if kind == 'unary' else ' and other.__class__ is Tensor'}:\n")
    if kind == "inplace":
        out.append(f"        if lm_op_{op.cname}_inplace({fast}):\n            _raise(\"{op.name}_\")\n        return self\n")
    else:
        out.append(f"        h = lm_op_{op.cname}({fast})\n        if h:\n            t = _object_new(Tensor)\n"
                   f"            t._h = h\n            return t\n        _raise(\"{op.name}\")\n")
    if kind == "unary":
        out.append("    if not _grad_enabled():   # nothing to record (backward formulas run this way)\n")
        out.append(_new_tensor(f"lm_op_{op.cname}({args})", op.name, 8))
        out.append(f"    return {fname}(self)\n")
    elif kind == "inplace":
        out.append("    o = _tensor_arg_or_none(other)\n    if o is None:\n        return NotImplemented\n")
        out.append("    if self.__class__ is Tensor and not isinstance(other, Tensor):   # a number: no autograd\n")
        out.append(f"        if lm_op_{op.cname}_inplace({args}):\n            _raise(\"{op.name}_\")\n        return self\n")
        out.append(f"    return {inplace_fname}(self, other)\n")
    else:
        out.append("    grad_on = _grad_enabled()\n")
        out.append("    if grad_on and isinstance(other, GradTensor):   # the common autograd case, without converting twice\n")
        out.append(f"        return {fname}({operands})\n")
        out.append("    o = _tensor_arg_or_none(other)\n    if o is None:\n        return NotImplemented\n")
        out.append("    if not grad_on or self.__class__ is Tensor and not isinstance(other, Tensor):   # nothing to record\n")
        out.append(_new_tensor(f"lm_op_{op.cname}({args})", op.name, 8))
        out.append(f"    return {fname}({operands})\n")
    return "".join(out)


def resolver_source(name, group, fnames, doc, with_out=True):
    """`name(*args, **kwargs)` picking among an overloaded op's functions (fnames, one per
    op of group) by the runtime resolver, from each overload's argument kinds."""
    rows = "".join(f"    ({fn}, {pygen.overload_spec(op, with_out=with_out)}),\n" for op, fn in zip(group, fnames))
    return (f"_{name}_overloads = (\n{rows})\n\n\n"
            f"def {name}(*args, **kwargs):\n    {doc}\n"
            + (f"    if \"axis\" in kwargs or \"keepdims\" in kwargs:\n        kwargs = _np_kwargs(kwargs, \"{name}\")\n"
               if any(pygen.numpy_aliases(op) for op in group) else "")
            + f"    fn, args = _resolve_overload(\"{name}\", _{name}_overloads, args, kwargs)\n"
            f"    return fn(*args, **kwargs)\n")


def batched_dunder_source(op, dname, kind, fname, inplace_fname):
    """vmap's BatchedTensor takes the operator through the op's function (its fast paths read handles,
    which a BatchedTensor has none of): `_b_NAME`."""
    if kind == "unary":
        return f"def _b_{dname.strip('_')}(self):\n    return {fname}(self)\n"
    call = {"reflected": f"{fname}(other, self)", "inplace": f"{inplace_fname}(self, other)"}.get(kind, f"{fname}(self, other)")
    return f"def _b_{dname.strip('_')}(self, other):\n    return {call}\n"
