"""How the model maps onto Python: signatures, argument conversion, stubs."""
from dataclasses import dataclass

from . import types
from .dtypes import TABLE


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


NUMPY_ALIASES = {"dim": "axis", "keepdim": "keepdims"}   # NumPy's names PyTorch's arg parser takes too


def numpy_aliases(op):
    """[(argument, alias)] for the op's dim/keepdim that may also be given as axis=/keepdims=: every one
    with a default, and a required one when no later positional argument is required (it then
    defaults to _NA, which alias_stmts checks)."""
    pos = [a for a in op.schema.args if not a.kwonly]
    out = []
    for a in op.schema.args:
        later = pos[pos.index(a) + 1:] if a in pos else []
        if a.name in NUMPY_ALIASES and (a.has_default or all(b.has_default for b in later)):
            out.append((a, NUMPY_ALIASES[a.name]))
    return out


def alias_stmts(op, name=None):
    """Statements that take axis=/keepdims= for dim/keepdim (TypeError when both are given).
    name: the function's own, where it is not the op's (an in-place variant's)."""
    lines = []
    name = name or op.name
    for a, al in numpy_aliases(op):
        default = _default(a) if a.has_default else "_NA"
        lines.append(f"if {al} is not _NA:\n        {a.name} = _np_alias(\"{name}\", \"{a.name}\", {a.name}, {default}, {al})")
        if not a.has_default:
            lines.append(f"elif {a.name} is _NA:\n        raise TypeError(\"{name}() missing 1 required positional argument: "
                         f"'{a.name}'\")")
    return lines


PUBLIC_SELF = "input"   # a function's `self` is PyTorch's `input` (torch.exp(input=x)); methods keep self


def self_stmt(op):
    """The first statement of a function whose schema says `self`: its parameter is `input`."""
    return f"self = {PUBLIC_SELF}" if op.schema.arg("self") is not None else ""


def signature(op, method_self_first=False, with_out=True, aliases=False, public=False):
    """public: a function's parameters (self spelled `input`), as opposed to a method's."""
    va = varargs_arg(op)
    required = {a.name for a, _ in numpy_aliases(op) if not a.has_default} if aliases else set()
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
        name = PUBLIC_SELF if public and a.name == "self" else a.name
        parts.append(f"{name}={_default(a)}" if a.has_default else f"{name}=_NA" if a.name in required else name)
    if with_out and "out" in op.variants:
        if not star:
            parts.append("*")
            star = True
        parts.append("out=None")
    if is_factory(op):
        if not star:
            parts.append("*")
            star = True
        parts.append("requires_grad=False")
    if aliases and numpy_aliases(op):
        if not star:
            parts.append("*")
        parts += [f"{al}=_NA" for _, al in numpy_aliases(op)]
    return ", ".join(parts)


def is_factory(op):
    """Ops that make tensors on a device take requires_grad=, as torch.zeros does."""
    return op.schema.arg("device") is not None


@dataclass(frozen=True)
class Converted:
    """One argument turned from Python into C: `stmt` (if any) binds names the call then
    passes; `cargs` are the C call arguments. kind: "tensor" (a handle: bound, not
    re-checked by a composite), "bound" (a converter returning several values or needing
    a name) or "inline" (an expression inside the call)."""
    arg: str
    kind: str
    stmt: str
    cargs: tuple


def conversions(op, where):
    """[Converted] for each schema argument, from the translation table's rows."""
    out, name = [], f'"{where}"'
    va = varargs_arg(op)
    for a in op.schema.args:
        t, n, r = a.type, a.name, types.row(a.type)
        q = f'"{PUBLIC_SELF if n == "self" else n}"'   # as the user named it
        call = f"{r.converter}({n}, {name}, {q})"
        if t.base == "Tensor" and not t.is_list:
            conv = f"{n}._h if {n}.__class__ is Tensor or {n}.__class__ is GradTensor else {call}"
            if t.optional:
                conv = f"_NULL if {n} is None else ({conv})"
            out.append(Converted(n, "tensor", f"{n}_h = {conv}", (f"{n}_h",)))
        elif t.is_list:
            if a is va:   # zeros(2, 3): the sizes arrive as *_size, or as size=
                out.append(Converted(n, "varargs", f"{n} = _varargs(_{n}, {n}, {name}, {q})", ()))
            kind = "tensor" if t.base == "Tensor" else "bound"
            out.append(Converted(n, kind, f"{n}_p, {n}_n = {call}", (f"{n}_p", f"{n}_n")))
        elif t.base == "Scalar":   # a name, so an operator can fold a default into a prebuilt struct
            out.append(Converted(n, "bound", f"{n}_s = {call}", (f"{n}_s",)))
        else:
            out.append(Converted(n, "inline", "", (call,)))
    return out


def varargs_stmt(op):
    return next((c.stmt for c in conversions(op, op.name) if c.kind == "varargs"), "")


def convert(op, where):
    """(statements, C call arguments) turning Python arguments into C ones."""
    convs = conversions(op, where)
    return [c.stmt for c in convs if c.stmt], [a for c in convs for a in c.cargs]


def validate(op):
    """For a composite: check its non-Tensor arguments with the same converters a
    kernel op uses, so a bad argument names this op, not the one inside (the varargs
    statement, which rebinds the argument itself, comes first: varargs_stmt)."""
    convs = [c for c in conversions(op, op.name) if c.kind not in ("tensor", "varargs")]
    stmts = [c.stmt for c in convs if c.stmt]
    inline = [a for c in convs if c.kind == "inline" for a in c.cargs]
    # a composite's parts take device="meta" themselves: checking it must not hand the call over
    return [s.replace("_device_arg(", "_device_check(") for s in
            stmts + ([f"({', '.join(inline)},)"] if inline else [])]


def composite_module(op):
    return "python/loom/_composites/" + op.kernel.split(".")[0]


def dtype_checked(op):
    """The argument a composite checks against its `dtypes:` (its `dtype_check:` one, else its first
    Tensor one: a kernel's check reads every Tensor), or None: a composite listing every dtype, taking
    no Tensor, or whose body refuses dtypes itself (`dtype_check: body`)."""
    if op.kind != "composite" or not op.inputs or len(op.dtypes) == len(TABLE.dtypes) or op.dtype_check == "body":
        return None
    return op.schema.arg(op.dtype_check) if op.dtype_check else op.inputs[0]


def dtype_set_const(op):
    """The module constant holding the dtype codes a composite's check lets through: its set's name
    when `dtypes:` is a named set's members, else the members'."""
    named = next((n for n, s in TABLE.sets().items() if tuple(s) == tuple(op.dtypes)), None)
    return "_dtypes_" + (named or "_".join(op.dtypes))


def dtype_set_consts(ops):
    """[(constant, dtype names)] for every set a composite's check reads, once each."""
    out = {dtype_set_const(op): op.dtypes for op in ops if dtype_checked(op) is not None}
    if any(factory_dtype_check(op, "") for op in ops):
        out[BAREBONES_CONST] = TABLE.sets()["barebones_unsigned"]
    return sorted(out.items())


BAREBONES_CONST = "_dtypes_barebones_unsigned"


def factory_dtype_check(op, where):
    """The statement refusing a composite factory's dtype= of uint16/32/64 where `dtypes:` leaves
    them out, as a kernel factory's entry does (tril_indices(dtype=loom.uint16) is refused, not made
    by a body that never asks); "" for the rest."""
    a = op.schema.arg("dtype")
    if op.kind != "composite" or op.inputs or a is None or a.type.base != "ScalarType" \
            or "uint16" in op.dtypes:
        return ""
    code = f"_dtype_arg({a.name}, '{where}', '{a.name}')"
    return (f"if {a.name} is not None and {code} in {BAREBONES_CONST}:\n"
            f"        raise _TypeError(f\"{where}(): not implemented for dtype {{_dtype_by_code[{code}].name}}\")")


def dtype_check(op, where, converted=True):
    """The statement refusing a composite's checked argument of a dtype outside `dtypes:`, worded as
    a kernel's check (`NAME(): not implemented for dtype D`, a TypeError that is also a RuntimeError):
    a set lookup of the dtype's code, nothing built per call. A Tensor list's first element stands for the list.
    converted: the argument is a Tensor by now (else anything else is left to the call's own checks)."""
    a = dtype_checked(op)
    if a is None:
        return ""
    const = dtype_set_const(op)
    if a.type.is_list:
        return f"_composite_list_dtype({a.name}, {const}, \"{where}\")"
    # a plain Tensor's code straight from its handle: half the cost of .dtype (subclasses: vmap's, sparse)
    cond = f"({a.name}._h.dtype if {a.name}.__class__ is Tensor else {a.name}.dtype.code) not in {const}"
    if not converted:
        cond = f"isinstance({a.name}, Tensor) and {cond}"
    elif a.type.optional:
        cond = f"{a.name} is not None and {cond}"
    return (f"if {cond}:\n        raise _TypeError(f\"{where}(): not implemented for dtype "
            f"{{{a.name}.dtype.name}}\")")


def composite_args(op):
    """What a composite's function is called with: the schema's arguments, then requires_grad=
    where the op's Python signature has it (out= is filled from its result by the caller)."""
    return [a.name for a in op.schema.args] + (["requires_grad"] if is_factory(op) else [])


def out_defaults(op):
    """Statements giving a factory's dtype= and device= out's when left out, as torch.zeros(3, out=t)
    makes t's dtype."""
    if "out" not in op.variants or not is_factory(op):
        return []
    return [f"if {n} is None and isinstance(out, Tensor):\n        {n} = out.{n}"
            for n in ("dtype", "device") if op.schema.arg(n) is not None]


def overload_spec(op, with_out=True):
    """What the runtime overload resolver needs: (name, kind, has_default, kwonly, varargs)."""
    va = varargs_arg(op)
    kinds = [(PUBLIC_SELF if a.name == "self" else a.name, types.row(a.type).overload, a.has_default, a.kwonly,
              a is va) for a in op.schema.args]
    if with_out and "out" in op.variants:
        kinds.append(("out", "Tensor[]?" if op.returns_tuple else "Tensor?", True, True, False))
    if is_factory(op):
        kinds.append(("requires_grad", "bool", True, True, False))
    return tuple(kinds)


def stub_type(a):
    """The argument's type in __init__.pyi (loom.int/float/bool are dtypes there, so builtins go by alias)."""
    return types.row(a.type).stub


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
        name = PUBLIC_SELF if a.name == "self" else a.name   # (a method's self is skipped above)
        parts.append(f"{name}: {stub_type(a)}" + (" = ..." if a.has_default else ""))
    if with_out and "out" in op.variants:
        if not star:
            parts.append("*")
        parts.append(f"out: {stub_return(op)} | None = ...")
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
    text = op.doc or f"{op.name} (see ops/)."
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


def scalar_const(v):
    """(module constant name, lm_scalar initializer) for a Scalar default an operator folds in:
    a prebuilt struct passes to cffi faster than a tuple it must convert."""
    kind = -1 if v is None else 0 if isinstance(v, bool) else 1 if isinstance(v, int) else 2
    name = f"_SCALAR_{('none', 'bool', 'int', 'float')[kind + 1]}_{str(v).replace('.', '_').replace('-', 'm')}"
    return name, (float(v or 0), int(v) if kind in (0, 1) else 0, kind)


def returns_self_alias(op):
    """A return annotated with self's alias (Tensor(a)) may be self itself (Schema.returns_self_alias)."""
    return op.schema.returns_self_alias


def autocast_stmt(op):
    """Inside loom.autocast: the op's Tensor arguments (lists aside) rebound to what the region casts them to."""
    names = [a.name for a in op.inputs if not a.type.is_list]
    return f"{', '.join(names)}{',' if len(names) == 1 else ''} = _amp_cast({op.autocast!r}, {', '.join(names)})"
