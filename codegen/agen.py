"""How derivatives map onto generated Python: node classes and recorders."""
import ast
from types import SimpleNamespace


def node_name(d):
    camel = "".join(p.capitalize() for p in d.op.name.strip("_").split("_"))
    return f"{camel}Backward{d.op.schema.overload.capitalize()}"


def arg_names(d):
    return [a.name for a in d.op.schema.args]


def list_args(d):
    return [a.name for a in d.op.schema.args if a.type.base == "Tensor" and a.type.is_list]


def slots(d):
    return [f"s_{n}" for n in d.saved] + list(d.scalars) + [f"n_{n}" for n in list_args(d)]


def record_params(d):
    return ", ".join(arg_names(d))


def inputs_expr(d):
    """The node's inputs in edge order: Tensor args, lists flattened."""
    parts = []
    for a in d.op.schema.args:
        if a.type.base != "Tensor":
            continue
        parts.append(f"*{a.name}" if a.type.is_list else a.name)
    return f"({', '.join(parts)},)" if parts else "()"


def qualified(d, expr):
    """expr with each call of a name that one of d's arguments shadows (pad_backward's
    `pad(grad, pad, mode)`) made a call of the op, `_ops.pad(...)`: no argument is callable."""
    args = set(arg_names(d))
    calls = [n.func for n in ast.walk(ast.parse(expr, mode="eval"))
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in args]
    starts = [0]
    for line in expr.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    for at in sorted((starts[f.lineno - 1] + f.col_offset for f in calls), reverse=True):
        expr = expr[:at] + "_ops." + expr[at:]
    return expr


def steps(d):
    """One step per Tensor argument (or per multi-input formula), in edge order."""
    by_input = {}
    for f in d.formulas:
        for i in f.inputs:
            by_input[i] = f
    out, done = [], set()
    for a in d.op.schema.args:
        if a.type.base != "Tensor" or a.name in done:
            continue
        f = by_input.get(a.name)
        if f is None:   # a Tensor[] without a gradient (index tensors) still has one edge per element
            out.append(SimpleNamespace(kind="none_list", arg=a.name) if a.type.is_list else SimpleNamespace(kind="none"))
        elif a.type.is_list:
            out.append(SimpleNamespace(kind="list", expr=qualified(d, f.expr), arg=a.name))
        elif len(f.inputs) == 1:
            out.append(SimpleNamespace(kind="one", expr=qualified(d, f.expr)))
        else:
            out.append(SimpleNamespace(kind="multi", expr=qualified(d, f.expr), n=len(f.inputs),
                                       mask="grad_input_mask" in f.names))
            done.update(f.inputs)
        done.add(a.name)
    return out


def plain_expr(op):
    """True when no argument can carry autograd history (no GradTensor/Parameter)."""
    parts = []
    for a in op.schema.args:
        if a.type.base != "Tensor":
            continue
        if a.type.is_list:
            parts.append(f"_b.all(x.__class__ is Tensor for x in {a.name})")
        else:   # numbers and None carry no history; only Tensor subclasses can
            parts.append(f"({a.name}.__class__ is Tensor or not isinstance({a.name}, Tensor))")
    return " and ".join(parts) or "True"


def call_args(op):
    return ", ".join(a.name for a in op.schema.args)


def tensor_args(op, lists=False):
    return ", ".join(a.name for a in op.schema.args if a.type.base == "Tensor" and (lists or not a.type.is_list))


def jvp_expr(d):
    """A callable from the input tangents to the result's: the `result:` formula,
    or one derived from the backward formulas by re-running the op."""
    tensors = [a for a in d.op.schema.args if a.type.base == "Tensor"]
    if d.forward is not None and not any(a.type.is_list for a in tensors):
        params = ", ".join(f"{a.name}_t" for a in tensors)
        return f"lambda {params}: {qualified(d, d.forward.expr)}"
    lists = [a for a in tensors if a.type.is_list]
    fname = f"_ops.{d.op.name}" if "function" in d.op.variants else None
    names = [a.name if not a.kwonly else f"{a.name}={a.name}" for a in d.op.schema.args]
    if lists:   # the primals are the node's inputs, lists flattened: rebuild the call from them
        at, call = "0", []
        for a, n in zip(d.op.schema.args, names):
            if a.type.base != "Tensor":
                call.append(n)
            elif a.type.is_list:
                call.append(f"list(_a[{at}:{at} + len({a.name})])")
                at = f"{at} + len({a.name})"
            else:
                call.append(f"{a.name}=_a[{at}]" if a.kwonly else f"_a[{at}]")
                at = f"{at} + 1"
        target = fname or f"(lambda _s, *_r, **_k: _s.{d.op.name}(*_r, **_k))"
        return f"_fw.derived_jvp(lambda *_a: {target}({', '.join(call)}), {inputs_expr(d)})"
    params = ", ".join(a.name for a in tensors)
    call = ", ".join(names)
    target = fname or f"(lambda {names[0]}, *rest: {names[0]}.{d.op.name}(*rest))"
    return f"_fw.derived_jvp(lambda {params}: {target}({call}), ({params},))"


def is_view_op(d):
    """Ops whose result aliases self (Tensor(a) -> Tensor(a)): in-place writes to it are refused."""
    return d.op.schema.returns_self_alias and d.op.name not in ("to", "contiguous")


def view_fn_expr(d):
    """A callable re-taking this view of another tensor (an in-place write to the view rebases
    self's history through it)."""
    names = [a.name if not a.kwonly else f"{a.name}={a.name}" for a in d.op.schema.args]
    target = f"_ops.{d.op.name}" if "function" in d.op.variants else f"(lambda _s, *_r: _s.{d.op.name}(*_r))"
    return f"lambda self: {target}({', '.join(names)})"


def save_uses_edges(d):
    """Whether the recorder reads the node's edges (to save only what a formula with an edge needs)."""
    return any("e[" in save_condition(d, n) for n in d.saved)


def save_condition(d, name):
    """When a saved value is needed: some formula reading it is for an input with an edge."""
    tensors = [a for a in d.op.schema.args if a.type.base == "Tensor"]
    if any(a.type.is_list for a in tensors):
        return "True"
    index = {a.name: i for i, a in enumerate(tensors)}
    edges = sorted({index[i] for f in d.formulas if name in f.names for i in f.inputs})
    return " or ".join(f"e[{k}] is not None" for k in edges) or "False"
