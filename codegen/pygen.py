"""How the model maps onto Python: signatures, argument conversion, stubs."""
from .schema import MISSING


def varargs_arg(op):
    """PyTorch lets `x.view(2, 3)` and `zeros(2, 3)` pass an int[] as varargs
    when it is the only positional argument besides self."""
    pos = [a for a in op.schema.args if not a.kwonly and a.name != "self"]
    if len(pos) == 1 and pos[0].type.base == "int" and pos[0].type.is_list and not pos[0].has_default:
        return pos[0]
    return None


def _default(a):
    d = a.default
    return repr(tuple(d)) if isinstance(d, list) else repr(d)


def signature(op, method_self_first=False, with_out=True):
    va = varargs_arg(op)
    args = list(op.schema.args)
    if method_self_first and args and args[0].name != "self":
        args.sort(key=lambda a: a.name != "self")
    parts, star = [], False
    for a in args:
        if a is va:   # zeros(2, 3), zeros((2, 3)) and zeros(size=(2, 3)) all work
            parts += [f"*_{a.name}", f"{a.name}=None"]
            star = True
            continue
        if a.kwonly and not star:
            parts.append("*")
            star = True
        parts.append(f"{a.name}={_default(a)}" if a.has_default else a.name)
    if with_out and "out" in op.variants:
        if not star:
            parts.append("*")
        parts.append("out=None")
    if is_factory(op):
        if not star:
            parts.append("*")
        parts.append("requires_grad=False")
    return ", ".join(parts)


def is_factory(op):
    """Ops that make tensors on a device take requires_grad=, as torch.zeros does."""
    return op.schema.arg("device") is not None


def convert(op, where):
    """(statements, C call arguments) turning Python arguments into C ones."""
    stmts, cargs, name = [], [], f'"{where}"'
    va = varargs_arg(op)
    for a in op.schema.args:
        t, n, q = a.type, a.name, f'"{a.name}"'
        if t.base == "Tensor" and t.is_list:
            stmts.append(f"{n}_h, {n}_n = _tensor_list({n}, {name}, {q})")
            cargs += [f"{n}_h", f"{n}_n"]
        elif t.base == "Tensor":
            conv = f"{n}._h if {n}.__class__ is Tensor or {n}.__class__ is GradTensor else _tensor_arg({n}, {name}, {q})"
            if t.optional:
                conv = f"_NULL if {n} is None else ({conv})"
            stmts.append(f"{n}_h = {conv}")
            cargs.append(f"{n}_h")
        elif t.base == "int" and t.is_list:
            if a is va:
                stmts.append(f"{n} = _varargs(_{n}, {n}, {name}, {q})")
            fn = "_int_list_opt" if t.optional else "_int_list"
            stmts.append(f"{n}_p, {n}_n = {fn}({n}, {name}, {q})")
            cargs += [f"{n}_p", f"{n}_n"]
        elif t.base == "int":
            cargs.append(f"_int_opt({n}, {name}, {q})" if t.optional else f"_int({n}, {name}, {q})")
        elif t.base == "Scalar":
            fn = "_scalar_opt" if t.optional else "_scalar"
            stmts.append(f"{n}_s = {fn}({n}, {name}, {q})")
            cargs.append(f"{n}_s")
        elif t.base == "float":
            cargs.append(f"_float_opt({n}, {name}, {q})" if t.optional else f"_float({n}, {name}, {q})")
        elif t.base == "bool":
            cargs.append(f"_bool({n}, {name}, {q})")
        elif t.base == "ScalarType":
            cargs.append(f"_dtype_arg({n}, {name}, {q})")
        elif t.base == "Device":
            cargs.append(f"_device_arg({n}, {name}, {q})")
        elif t.base == "str":
            cargs.append(f"_str_opt({n}, {name}, {q})" if t.optional else f"_str({n}, {name}, {q})")
    return stmts, cargs


def validate(op):
    """For a composite: check its non-Tensor arguments with the same converters a
    kernel op uses, so a bad argument names this op, not the one inside."""
    stmts, cargs = convert(op, op.name)
    tensor = {f"{a.name}_h" for a in op.schema.args if a.type.base == "Tensor"}
    keep = [s for s in stmts if s.split(" = ")[0] not in tensor and not s.startswith(tuple(f"{t}, " for t in tensor))]
    inline = [c for c in cargs if "(" in c and c.split("(")[0] in ("_int", "_int_opt", "_float", "_float_opt", "_bool",
                                                                       "_dtype_arg", "_device_arg", "_str", "_str_opt")]
    return keep + ([f"({', '.join(inline)},)"] if inline else [])


def overload_spec(op, with_out=True):
    """What the runtime overload resolver needs: (name, kind, has_default, kwonly, varargs)."""
    va = varargs_arg(op)
    kinds = []
    for a in op.schema.args:
        t = a.type
        kind = "Tensor[]" if t.base == "Tensor" and t.is_list else (
            "int[]" if t.base == "int" and t.is_list else t.base)
        if t.optional:
            kind += "?"
        kinds.append((a.name, kind, a.has_default, a.kwonly, a is va))
    if with_out and "out" in op.variants:
        kinds.append(("out", "Tensor?", True, True, False))
    if is_factory(op):
        kinds.append(("requires_grad", "bool", True, True, False))
    return tuple(kinds)


# loom.int/float/bool are dtypes in the stub, so builtins go by alias
PY_TYPES = {"Tensor": "Tensor", "Scalar": "_Number", "int": "_int", "float": "_float", "bool": "_bool",
            "ScalarType": "_DType", "Device": "_Device", "str": "str"}


def stub_type(a):
    t = a.type
    if t.base == "Tensor" and t.is_list:
        s = "Sequence[Tensor]"
    elif t.base == "int" and t.is_list:
        s = "Sequence[_int] | _int"
    elif t.base == "Tensor":
        s = "Tensor | _Number"
    else:
        s = PY_TYPES[t.base]
    return f"{s} | None" if t.optional else s


def stub_signature(op, skip_self=False, with_out=True):
    va = varargs_arg(op)
    parts, star = [], False
    args = [a for a in op.schema.args if not (skip_self and a.name == "self")]
    for a in args:
        if a is va:
            parts += [f"*_{a.name}: _int | Sequence[_int]", f"{a.name}: Sequence[_int] | None = ..."]
            star = True
            continue
        if a.kwonly and not star:
            parts.append("*")
            star = True
        parts.append(f"{a.name}: {stub_type(a)}" + (" = ..." if a.has_default else ""))
    if with_out and "out" in op.variants:
        if not star:
            parts.append("*")
        parts.append("out: Tensor | None = ...")
    if is_factory(op):
        if not star:
            parts.append("*")
        parts.append("requires_grad: _bool = ...")
    return ", ".join((["self"] if skip_self else []) + parts)


def stub_return(op):
    if op.returns_tuple:
        return f"tuple[{', '.join(['Tensor'] * len(op.schema.returns))}]"
    return "Tensor"


def fname(op, suffix="", overloaded=frozenset()):
    """Python name of an op's function: private per-overload when the name is shared."""
    return (f"_{op.cname}" if op.name in overloaded else op.name) + suffix


def docstring(op, inplace=False):
    text = op.doc or f"{op.name} (see ops.yaml)."
    if inplace:
        text = f"In-place version of {op.name}(). " + text
    text = text.replace("\\", "\\\\").replace('"""', "'''")
    return f'"""{text}\n\n    Schema: {op.schema.full_name}{_sig_text(op)}\n    """'


def _sig_text(op):
    return "(" + ", ".join(f"{a.type} {a.name}" for a in op.schema.args) + ")"


def group_doc(group):
    first = next((g.doc for g in group if g.doc), group[0].name)
    each = "\n\n    ".join(f"{g.schema.full_name}{_sig_text(g)}\n        {g.doc}" for g in group)
    text = f"{first}\n\n    Overloads:\n\n    {each}".replace("\\", "\\\\").replace('"""', "'''")
    return f'"""{text}\n    """'


def call_through(op):
    va = varargs_arg(op)
    parts = []
    for a in op.schema.args:
        if a is va:
            parts.append(f"{a.name}={a.name}")
        elif a.kwonly:
            parts.append(f"{a.name}={a.name}")
        else:
            parts.append(a.name)
    if is_factory(op):
        parts.append("requires_grad=requires_grad")
    return ", ".join(parts)


UNARY_DUNDERS = ("__neg__", "__abs__", "__invert__", "__pos__")


def dunder_kind(name):
    if name in UNARY_DUNDERS:
        return "unary"
    if name.startswith("__r") and name not in ("__rshift__",):
        return "reflected"
    if name.startswith("__i") and name != "__invert__":
        return "inplace"
    return "binary"


def fast_args(cargs):
    """Operator C args on the fast path, where both operands are plain Tensors."""
    return [("other._h" if a == "o" else a) for a in cargs]


def dunder_parts(op, kind):
    """(statements, C args) for an operator method: the two operands are
    `self` and `o`, and the op's other arguments fold into their defaults."""
    stmts, cargs = convert(op, op.name)
    ins = [a.name for a in op.inputs]
    handles = {f"{ins[0]}_h": "o" if kind == "reflected" else "self._h"}
    if len(ins) > 1:
        handles[f"{ins[1]}_h"] = "self._h" if kind == "reflected" else "o"
    consts = {f"{a.name}_s": scalar_const(a.default)[0] for a in op.ctx_args
              if a.type.base == "Scalar" and a.has_default}
    keep = [st for st in stmts if st.split(" = ")[0] not in handles and st.split(" = ")[0] not in consts]
    defaults = [f"{a.name} = {a.default!r}" for a in op.ctx_args if a.type.base != "Scalar"]
    return defaults + keep, [handles.get(x, consts.get(x, x)) for x in cargs]


def scalar_const(v):
    """(module constant name, lm_scalar initializer) for a Scalar default an operator folds in:
    a prebuilt struct passes to cffi faster than a tuple it must convert."""
    kind = -1 if v is None else 0 if isinstance(v, bool) else 1 if isinstance(v, int) else 2
    name = f"_SCALAR_{('none', 'bool', 'int', 'float')[kind + 1]}_{str(v).replace('.', '_').replace('-', 'm')}"
    return name, (float(v or 0), int(v) if kind in (0, 1) else 0, kind)


def returns_self_alias(op):
    """A return annotated with self's alias (Tensor(a)) may be self itself (Schema.returns_self_alias)."""
    return op.schema.returns_self_alias
