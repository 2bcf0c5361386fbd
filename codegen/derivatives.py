"""derivatives/*.yaml: one entry per differentiable op, one formula per input.

Formulas are Python expressions over loom ops, checked here at build time: the
op exists, every name is an argument, `grad`/`grads`/`result` (or a named
result), a helper from loom.autograd.formulas, or a loom function."""
import ast
from dataclasses import dataclass
from pathlib import Path

from . import yamlload
from .errors import SpecError, did_you_mean
from .schema import Schema, SchemaError

# the helpers formulas may call: the public functions of loom.autograd.formulas,
# read from its source so a new helper needs no list edit here
_FORMULAS = Path(__file__).resolve().parent.parent / "python/loom/autograd/formulas.py"
HELPERS = tuple(n.name for n in ast.parse(_FORMULAS.read_text()).body
                if isinstance(n, ast.FunctionDef) and not n.name.startswith("_"))
KEYS = ("name", "non_differentiable", "output_differentiability", "result")
BUILTINS = ("None", "True", "False", "len", "range", "list", "tuple", "float", "int")
MASK = "grad_input_mask"   # in a formula of several inputs: a tuple of bools, which of them need a gradient


@dataclass(frozen=True)
class Formula:
    inputs: tuple      # the differentiable inputs it gives gradients for
    expr: str
    names: frozenset   # names it reads
    line: int


@dataclass(frozen=True)
class Derivative:
    op: object          # the codegen.model.Op
    formulas: tuple
    non_differentiable: bool
    output_differentiability: tuple
    line: int
    forward: object = None   # the `result:` formula (forward mode), or None: derived from backward
    not_implemented: tuple = ()   # inputs it cannot differentiate: refused when they require grad
    file: str = "derivatives.yaml"   # the declaring file, as errors name it

    @property
    def saved(self):
        """Tensor arguments (and results) the formulas read: what the node keeps."""
        names = set().union(*[f.names for f in self.formulas]) if self.formulas else set()
        tensors = [a.name for a in self.op.schema.args if a.type.base == "Tensor" and a.name in names]
        outs = [r for r in self.result_names() if r in names]
        return tensors + outs

    @property
    def saved_meta(self):
        """Saved Tensor arguments that every formula reads only through .shape, .dtype, .ndim or
        .device: the node keeps those (save_meta), not the tensor, as PyTorch keeps sym_sizes. The
        tensor's memory is not held and an in-place change to it later does not stop backward."""
        names = [n for n in self.saved if n not in self.result_names()]
        lists = {a.name for a in self.op.schema.args if a.type.is_list}
        return [n for n in names if n not in lists and all(_meta_only(f.expr, n) for f in self.formulas)]

    def result_names(self):
        rets = self.op.schema.returns
        return ["result"] if len(rets) == 1 else [r.name for r in rets]

    @property
    def scalars(self):
        names = set().union(*[f.names for f in self.formulas]) if self.formulas else set()
        return [a.name for a in self.op.schema.args if a.type.base != "Tensor" and a.name in names]


META_ATTRS = ("shape", "dtype", "ndim", "device")


def _meta_only(expr, name):
    tree = ast.parse(expr, mode="eval")
    uses = sum(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree))
    meta = sum(isinstance(n, ast.Attribute) and n.attr in META_ATTRS and isinstance(n.value, ast.Name)
               and n.value.id == name for n in ast.walk(tree))
    return uses == meta


def _names(expr, err):
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        err(f"formula is not a Python expression: {e.msg}")
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))


def _called_args(expr, args):
    """Arguments a formula calls: the generator turns such a call into the op's (see agen.qualified)."""
    return sorted({n.func.id for n in ast.walk(ast.parse(expr, mode="eval"))
                   if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in args})


def load(path, ops_model):
    path = Path(path)
    op_names = {op.name for op in ops_model.ops}
    known = {op.schema.full_name: op for op in ops_model.ops}
    out, seen = [], {}
    for entry, shown in yamlload.load_entries(path, "derivative entries"):
        line = getattr(entry, "line", 1)

        def err(msg, key=None, _e=entry, _l=line, _f=shown):
            raise SpecError(_f, getattr(_e, "key_lines", {}).get(key, _l) if key else _l, msg)

        if not isinstance(entry, dict) or "name" not in entry:
            err("each entry needs a 'name' (the op's signature in ops/)")
        try:
            schema = Schema.parse(str(entry["name"]))
        except SchemaError as e:
            err(f"bad signature: {e}", "name")
        op = known.get(schema.full_name)
        if op is None:
            err(f"no op '{schema.full_name}' in ops/{did_you_mean(schema.full_name, known)}", "name")
        if schema != op.schema:
            err(f"signature does not match the one in ops/ for {schema.full_name}: "
                f"expected '{op.schema.full_name}(...)' with the same arguments", "name")
        if op.kind == "composite":
            err(f"{op.schema.full_name} is composite: it is differentiated through its parts and takes no entry")
        if schema.full_name in seen:
            err(f"duplicate entry for {schema.full_name} (first at {seen[schema.full_name]})")
        seen[schema.full_name] = f"{shown}:{line}"
        tensor_args = [a.name for a in op.schema.args if a.type.base == "Tensor"]
        arg_names = {a.name for a in op.schema.args}
        result_names = ["result"] if len(op.schema.returns) == 1 else [r.name for r in op.schema.returns]
        allowed = set(a.name for a in op.schema.args) | {"grad", "grads"} | set(result_names) | set(HELPERS) \
            | op_names | set(BUILTINS)
        formulas, covered, not_implemented = [], set(), []
        forward = None
        if "result" in entry:
            if len(op.schema.returns) != 1:
                err("a 'result:' forward formula is for single-output ops", "result")
            fw_allowed = allowed | {f"{t}_t" for t in tensor_args}
            names = _names(str(entry["result"]), lambda m: err(m, "result"))
            for n in sorted(names - fw_allowed):
                err(f"forward formula names '{n}', which is not an argument, a tangent ({tensor_args[0]}_t, ...), "
                    f"result or a known helper{did_you_mean(n, fw_allowed)}", "result")
            for n in _called_args(str(entry["result"]), arg_names):
                if n not in op_names:
                    err(f"forward formula calls '{n}', an argument of {schema.full_name} and no loom op", "result")
            forward = Formula(tuple(tensor_args), str(entry["result"]), names, entry.key_lines["result"])
        for key, expr in entry.items():
            if key in KEYS:
                continue
            inputs = tuple(k.strip() for k in str(key).split(","))
            for i in inputs:
                if i not in tensor_args:
                    err(f"'{i}' is not a Tensor argument of {schema.full_name}"
                        f"{did_you_mean(i, tensor_args)} (unknown keys: {', '.join(KEYS)} are the others)", key)
                if i in covered:
                    err(f"two formulas for '{i}'", key)
                covered.add(i)
            at = [tensor_args.index(i) for i in inputs]
            if len(inputs) > 1 and at != list(range(at[0], at[0] + len(at))):
                # the node returns the formula's gradients for consecutive edges, in schema order
                want = ", ".join(tensor_args[min(at):max(at) + 1])
                err(f"a formula of several inputs gives their gradients in schema order for adjacent Tensor "
                    f"arguments; '{key}' is not (the Tensor arguments there are {want}): write one formula per "
                    "input", key)
            if str(expr).strip() == "non_differentiable":   # e.g. where's condition
                continue
            if str(expr).strip() == "not_implemented":   # e.g. nll_loss's weight
                not_implemented.extend(inputs)
                continue
            names = _names(str(expr), lambda m, k=key: err(m, k))
            if MASK in names and len(inputs) < 2:
                err(f"'{MASK}' (which of the inputs need a gradient) is for a formula of several inputs", key)
            for n in sorted(names - allowed - {MASK}):
                err(f"formula for '{key}' names '{n}', which is not an argument of {schema.full_name}, "
                    f"grad, result or a known helper{did_you_mean(n, allowed)}", key)
            for n in _called_args(str(expr), arg_names):
                if n not in op_names:
                    err(f"formula for '{key}' calls '{n}', an argument of {schema.full_name} and no loom op", key)
            formulas.append(Formula(inputs, str(expr), names, entry.key_lines.get(key, line)))
        nd = entry.get("non_differentiable", False)
        if nd is not True and nd is not False:
            err("'non_differentiable' is true or false", "non_differentiable")
        if nd and formulas:
            err("a non_differentiable op takes no formulas")
        od = entry.get("output_differentiability", [True] * len(op.schema.returns))
        if not isinstance(od, list) or len(od) != len(op.schema.returns):
            err(f"'output_differentiability' needs one true/false per output ({len(op.schema.returns)})",
                "output_differentiability")
        if not nd:
            missing = [a for a in tensor_args if a not in covered]
            if missing:
                err(f"no formula for input '{missing[0]}' of {schema.full_name} "
                    f"(write '{missing[0]}: non_differentiable' or a formula)")
        out.append(Derivative(op, tuple(formulas), bool(nd), tuple(bool(x) for x in od), line, forward,
                              tuple(not_implemented), shown))
    by_op = {d.op.schema.full_name: d for d in out}
    for op in ops_model.ops:
        if needs_entry(op) and op.schema.full_name not in by_op:
            raise SpecError(op.file, op.line, f"{op.schema.full_name} is differentiable but has no entry in "
                                              f"{path.name} (add formulas, or 'non_differentiable: true')")
    return tuple(out)


def needs_entry(op):
    """Ops that can carry gradients: Tensor inputs, not composite, not bool-valued."""
    if op.kind == "composite" or not any(a.type.base == "Tensor" for a in op.schema.args):
        return False
    if op.kind == "pointwise" and op.promote == "bool_out":
        return False
    if op.kind == "reduction" and op.reduce == "bool":
        return False
    return True
