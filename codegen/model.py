"""The op model: ops/*.yaml parsed into frozen dataclasses, validated on load.

Templates read only this model; nothing downstream looks at YAML."""
import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import yamlload
from .dtypes import TABLE
from .errors import SpecError, did_you_mean
from .schema import Schema, SchemaError

DTYPES = TABLE.names
CTYPES = {d.name: d.c for d in TABLE.dtypes}
DTYPE_SETS = TABLE.sets()
KINDS = ("pointwise", "reduction", "kernel", "composite")
VARIANTS = ("function", "method", "inplace", "out")
PROMOTE = ("default", "float", "bool_out", "scalars", "values")
REDUCE_RULES = ("sum", "keep", "bool", "float")
TEST_KEYS = ("ref", "domain", "kwargs", "inputs", "atol", "rtol", "skip", "nondeterministic", "layouts", "dtypes")
KEYS = ("func", "variants", "out", "doc", "dtypes", "index_args", "dtype_check", "cross_device", "upcast", "autocast", "promote", "result", "reduce", "mean", "operators", "test",
        "python_module", "aliases", "cuda") + KINDS
# `cuda:` of a hand-written kernel (kernel: NAME): how CUDA tensors are served. `same`: lm_cpu_NAME
# itself (it touches memory only through device-neutral calls); `own`: lm_cuda_NAME in
# native/cuda/host_*.c; `host` (the default where no result is a view): the CPU kernel on host
# copies, the results moved back. A view kernel that says nothing has no CUDA path
# (tests/test_cuda.py keeps ops/ free of those).
CUDA_WAYS = {"same": "shared", "own": "own", "host": "fallback"}
PYTHON_MODULES = ("linalg", "fft", "special", "nn.functional")   # the namespaces python_module: places ops in
CTX_TYPES = ("Scalar", "float", "int", "bool")


@dataclass(frozen=True)
class Op:
    schema: Schema
    kind: str                # one of KINDS
    kernel: str              # kernel name; for a composite, its function in loom._composites: FAMILY.NAME
    variants: tuple
    dtypes: tuple
    doc: str
    line: int
    promote: str = "default"
    reduce: str = "keep"
    mean: bool = False
    operators: tuple = ()
    test: dict = field(default_factory=dict, hash=False, compare=False)
    index_args: tuple = ()   # Tensor args holding int64/uint8 positions (class targets): exempt from dtypes
    check: bool = False      # the pointwise header defines LM_PW_<kernel>_CHECK, run before the loop
    file: str = "ops.yaml"   # the declaring file, as errors name it (ops/pointwise.yaml)
    python_module: tuple = ()   # ((module, name), ...): also loom.MODULE.NAME (loom.special.erfcx, ...)
    # the op's CUDA kernel: "generated" (pointwise, reductions), "composite" (its parts'), as a
    # hand-written kernel's `cuda:` says (CUDA_WAYS): "shared", "own" or "fallback", or "" (none: a
    # view kernel that says nothing; CUDA tensors get NotImplementedError)
    cuda: str = ""
    cross_device: bool = False   # its Tensors may be on different devices (copy_); others must share one
    # a hand-written kernel meets float16/bfloat16 as float32 copies, its floating results rounded
    # back once (PyTorch's opmath): every such op listing them but views and those saying `upcast: false`
    # (their kernel moves 16-bit elements itself: copies, joins, factories)
    upcast: bool = False
    # under loom.autocast, what its floating (not float64) Tensor arguments become on each device
    # (cpu, cuda): "lower" (the region's dtype: matmul, conv, linear), "float32" (losses, softmax,
    # norms on CUDA) or "" (as given): PyTorch's autocast op lists, kept here
    autocast: tuple = ()
    real_out: bool = False   # (pointwise, `result: real`) the result is the real counterpart of a complex dtype
    complex_body: bool = False   # the header defines LM_PW_<kernel>_complex, complex dtypes' body
    # `upcast: cpu`: on CUDA the kernel meets the 16-bit tensors themselves (cuBLAS's 16-bit GEMMs
    # accumulate in float32 on their own: matmul, linear)
    upcast_cuda: bool = True
    aliases: tuple = ()   # other names of the same function/method/in-place variant (arccos for acos)
    # (composite) the Tensor argument its wrapper checks against dtypes ("": the first), or "body" (none: the
    # body refuses other dtypes itself, in PyTorch's words)
    dtype_check: str = ""

    @property
    def name(self):
        return self.schema.name

    @property
    def cname(self):
        """The C and private-Python identifier: name plus overload."""
        s = self.schema
        return f"{s.name}_{s.overload}" if s.overload else s.name

    @property
    def inputs(self):
        return [a for a in self.schema.args if a.type.base == "Tensor"]

    @property
    def ctx_args(self):
        return [a for a in self.schema.args if a.type.base != "Tensor"]

    @property
    def returns_tuple(self):
        return len(self.schema.returns) > 1

    @property
    def mutating(self):
        return bool(self.schema.mutates)

    @property
    def c_out(self):
        """out= is written in C (lm_op_NAME_out) for single-result kernels; a composite's or a
        tuple's out= is filled from the result in Python."""
        return "out" in self.variants and self.kind != "composite" and not self.returns_tuple


@dataclass(frozen=True)
class OpModel:
    ops: tuple
    path: str

    def by_name(self):
        groups = {}
        for op in self.ops:
            groups.setdefault(op.name, []).append(op)
        return groups

    def get(self, full_name):
        return next((o for o in self.ops if o.schema.full_name == full_name), None)


def _variants(value, err):
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",")]
    if not isinstance(value, list):
        err("'variants' must be a list or a comma-separated string")
    for v in value:
        if v == "out":
            err("'out' is not listed: every function returning new Tensors gets out= "
                "(say 'out: false' to leave it out)")
        if v not in VARIANTS:
            err(f"unknown variant '{v}'{did_you_mean(v, VARIANTS)}; known: {', '.join(VARIANTS)}")
    return tuple(v for v in VARIANTS if v in value)


def _takes_out(schema, variants):
    """PyTorch gives out= to nearly every function that returns new Tensors: so does loom, by
    default. Not to views (the result aliases an input), in-place ops, lists, or private ops."""
    rets = schema.returns
    return ("function" in variants and not schema.mutates and bool(rets) and not schema.name.startswith("_")
            and all(r.type.base == "Tensor" and not r.type.is_list and not r.type.alias and not r.type.optional
                    for r in rets))


def _dtypes(value, err):
    """A set name, or a list of dtypes and set names ([all_and_complex, barebones_unsigned]), in table order."""
    if isinstance(value, str):
        if value not in DTYPE_SETS:
            err(f"unknown dtype set '{value}'{did_you_mean(value, DTYPE_SETS)}; known: {', '.join(DTYPE_SETS)}")
        return DTYPE_SETS[value]
    if not isinstance(value, list) or not value:
        err("'dtypes' must be a dtype set name or a non-empty list of dtypes and set names")
    names = set()
    for d in value:
        if d in DTYPE_SETS:
            names.update(DTYPE_SETS[d])
        elif d in DTYPES:
            names.add(d)
        else:
            err(f"unknown dtype '{d}'{did_you_mean(str(d), DTYPES + tuple(DTYPE_SETS))}")
    return tuple(d for d in DTYPES if d in names)


# `serves: SET` or `serves: SET + SET`
_SERVES = re.compile(r"serves:\s*([a-z_0-9]+(?:\s*\+\s*[a-z_0-9]+)*)")


class _Kernels:
    """What native/ defines, so a YAML entry naming a missing kernel fails here;
    which dtypes a kernel says it serves (a `serves: SET` note in the
    header's first comment, or in the comment just above an lm_cpu_ function),
    so a YAML entry listing more fails here too instead of at run time; and
    which pointwise headers define a check (LM_PW_NAME_CHECK) to call first."""

    def __init__(self, native, composites=None):
        self.native = Path(native)
        self.composites = Path(composites) if composites else self.native.parent / "python/loom/_composites"
        self._composites = {}
        self.pointwise = {p.stem for p in (self.native / "kernels/pointwise").glob("*.h")}
        self.reduce = {p.stem for p in (self.native / "kernels/reduce").glob("*.h")}
        self.custom = set()
        self.serves = {}   # (kind, name) -> (dtype set name, file)
        self.cuda_own = set()   # lm_cuda_NAME in native/cuda/host_*.c, which `cuda: own` may name
        self.checked = set()
        self.complex_bodies = set()   # pointwise headers defining LM_PW_NAME_complex
        for kind, folder in (("pointwise", "kernels/pointwise"), ("reduction", "kernels/reduce")):
            for p in sorted((self.native / folder).glob("*.h")):
                text = p.read_text()
                m = _SERVES.search(text.split("*/", 1)[0])
                if m:
                    self.serves[(kind, p.stem)] = (m.group(1), f"{folder}/{p.name}")
                if kind == "pointwise" and re.search(rf"^#define LM_PW_{p.stem}_CHECK\(", text, re.M):
                    self.checked.add(p.stem)
                if kind == "pointwise" and re.search(rf"^#define LM_PW_{p.stem}_complex\(", text, re.M):
                    self.complex_bodies.add(p.stem)
        for p in sorted(self.native.glob("cpu/*.c")):
            text = p.read_text()
            for m in re.finditer(r"^\S.*?\blm_cpu_([a-z0-9_]+)\s*\(", text, re.M):
                self.custom.add(m.group(1))
                above = text[:m.start()].rstrip()
                if above.endswith("*/"):
                    note = _SERVES.search(above[above.rfind("/*"):])
                    if note:
                        self.serves[("kernel", m.group(1))] = (note.group(1), f"cpu/{p.name}")
        for p in sorted(self.native.glob("cuda/host_*.c")):
            self.cuda_own.update(re.findall(r"^\S.*?\blm_cuda_([a-z0-9_]+)\s*\(", p.read_text(), re.M))

    def cuda(self, kind, name, schema, value, err):
        """The op's CUDA way (see Op.cuda) from its `cuda:` key (`value`, None when absent)."""
        if kind in ("pointwise", "reduction", "composite"):
            if value is not None:
                err("'cuda' is for hand-written kernels (kernel: NAME); the others' CUDA code is generated")
            return "generated" if kind != "composite" else "composite"
        views = any(r.type.alias and not r.type.mutable for r in schema.returns)
        if value is None:   # a view of a host copy would be no view of the CUDA tensor: none for views
            return "" if views else "fallback"
        if value not in CUDA_WAYS:
            err(f"'cuda' is one of {', '.join(CUDA_WAYS)}{did_you_mean(str(value), CUDA_WAYS)}")
        if value == "host" and views:
            err(f"kernel '{name}' returns a view: 'cuda: host' would return a view of a host copy")
        if value == "own" and name not in self.cuda_own:
            err(f"'cuda: own' needs a function lm_cuda_{name}(...) in native/cuda/host_*.c"
                f"{did_you_mean(name, self.cuda_own)}")
        return CUDA_WAYS[value]

    def composite(self, value, schema, family, err):
        """`composite: true` names the function loom._composites.FAMILY.NAME (NAME: the op's C name);
        `composite: MODULE.FUNCTION` another one. It must exist and take the schema's arguments
        in order (read with ast: the build never imports loom). Returns MODULE.FUNCTION."""
        cname = f"{schema.name}_{schema.overload}" if schema.overload else schema.name
        if value is True:
            ref = f"{family}.{cname}"
        elif isinstance(value, str) and re.match(r"^[a-z_][a-z_0-9]*\.[a-z_][a-z_0-9]*$", value.strip()):
            ref = value.strip()
        elif isinstance(value, str):
            err("a composite's body is a Python function now: write it as "
                f"def {cname}({', '.join(a.name for a in schema.args)}) in python/loom/_composites/{family}.py "
                "and say 'composite: true'")
        else:
            err("'composite' is true (the function named like the op in _composites/FAMILY.py) or MODULE.FUNCTION")
        module, fn = ref.split(".")
        defs = self._composite_defs(module)
        where = f"python/loom/_composites/{module}.py"
        if defs is None:
            err(f"composite {ref}: no module {where}")
        if fn not in defs:
            err(f"composite {ref}: no function '{fn}' in {where}{did_you_mean(fn, defs)}")
        want = [a.name for a in schema.args]
        got = defs[fn][:len(want)]
        if got != want:
            err(f"composite {ref} ({where}) takes ({', '.join(defs[fn])}); the schema's arguments are "
                f"({', '.join(want)}), in that order")
        return ref

    def _composite_defs(self, module):
        """{function: [parameter names]} of python/loom/_composites/MODULE.py, or None."""
        if module not in self._composites:
            p = self.composites / f"{module}.py"
            self._composites[module] = None if not p.exists() else {
                n.name: [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs]
                for n in ast.parse(p.read_text()).body if isinstance(n, ast.FunctionDef)}
        return self._composites[module]

    def check(self, kind, name, err):
        table = {"pointwise": self.pointwise, "reduction": self.reduce, "kernel": self.custom}[kind]
        if name not in table:
            where = {"pointwise": f"native/kernels/pointwise/{name}.h",
                     "reduction": f"native/kernels/reduce/{name}.h",
                     "kernel": f"a function lm_cpu_{name}(...) in native/cpu/*.c"}[kind]
            err(f"unknown {kind} kernel '{name}'{did_you_mean(name, table)}: expected {where}".replace("kernel kernel", "kernel"))

    def check_dtypes(self, kind, name, dtypes, err):
        served = self.serves.get((kind, name))
        if served is None:
            return
        sets = [s.strip() for s in served[0].split("+")]
        allowed = _dtypes(sets if len(sets) > 1 else sets[0], lambda m: err(f"native/{served[1]}: 'serves: {served[0]}': {m}"))
        extra = [d for d in dtypes if d not in allowed]
        if extra:
            err(f"dtypes lists {', '.join(extra)}, which kernel '{name}' does not serve (native/{served[1]} says "
                f"'serves: {served[0]}'); narrow 'dtypes' or extend the kernel")


def _python_module(value, name, err):
    """`python_module: special` (the op's name, less a `special_`-style prefix), `special.NAME`,
    or a list of them: the namespaces that also offer the op's function."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list):
        err(f"'python_module' is one of {', '.join(PYTHON_MODULES)} (optionally .NAME), or a list of them")
    out = []
    for v in values:
        v = str(v)
        module = next((m for m in sorted(PYTHON_MODULES, key=len, reverse=True) if v == m or v.startswith(m + ".")), None)
        if module is None:
            err(f"unknown python_module '{v}'{did_you_mean(v.split('.')[0], PYTHON_MODULES)}; known: "
                f"{', '.join(PYTHON_MODULES)}")
        alias = v[len(module) + 1:] or name.removeprefix(module.split(".")[-1] + "_")
        if not re.match(r"^[a-z_][a-z0-9_]*$", alias):
            err(f"'{alias}' is not a Python name")
        out.append((module, alias))
    return tuple(out)


AUTOCAST_DEVICES = ("cpu", "cuda")
AUTOCAST_KINDS = ("lower", "float32")


def _autocast(value, err):
    """`autocast: lower|float32` (every device) or `{cpu: .., cuda: ..}` -> (cpu kind, cuda kind), or ()."""
    if value is None:
        return ()
    per = dict.fromkeys(AUTOCAST_DEVICES, value) if isinstance(value, str) else value
    if not isinstance(per, dict) or any(k not in AUTOCAST_DEVICES for k in per) or \
            any(v not in AUTOCAST_KINDS for v in per.values()):
        err(f"'autocast' is one of {', '.join(AUTOCAST_KINDS)}, or a mapping from "
            f"{' / '.join(AUTOCAST_DEVICES)} to one")
    return tuple(per.get(d, "") for d in AUTOCAST_DEVICES)


def _check_kind(op, err):
    s = op.schema
    if op.kind in ("pointwise", "reduction") and (len(s.returns) != 1 or op.mutating):
        err(f"a {op.kind} op returns one new Tensor")
    if op.kind == "pointwise":
        for a in s.args:
            if a.type.base == "Tensor" and (a.type.optional or a.type.is_list):
                err(f"pointwise inputs are plain Tensors, not '{a.type}' ('{a.name}')")
            if a.type.base != "Tensor" and (a.type.base not in CTX_TYPES or a.type.is_list):
                err(f"pointwise ops take Tensors and {', '.join(CTX_TYPES)} only ('{a.name}' is '{a.type}')")
        if not op.inputs:
            err("a pointwise op needs at least one Tensor input")
        if len(op.inputs) > 3:
            err("pointwise ops take at most 3 Tensor inputs")
        if sum(a.type.base == "Scalar" for a in s.args) > 4:
            err("pointwise ops take at most 4 Scalar arguments")
    if op.kind == "reduction":
        allowed = {"self": "Tensor", "dim": "int", "keepdim": "bool", "dtype": "ScalarType"}
        for a in s.args:
            if a.name not in allowed or a.type.base != allowed[a.name]:
                err(f"a reduction's arguments are (Tensor self, int[]? dim, bool keepdim, *, ScalarType? dtype); "
                    f"got '{a.type} {a.name}'")
        if not s.arg("self"):
            err("a reduction needs 'Tensor self'")


def _check_variants(op, err):
    s = op.schema
    first = s.args[0] if s.args else None
    self_ok = first is not None and first.name == "self" and first.type.is_tensor
    if ("method" in op.variants or "inplace" in op.variants) and not self_ok:
        err("method and inplace variants need 'Tensor self' as the first argument")
    if "inplace" in op.variants and (op.returns_tuple or op.mutating):
        err("an inplace variant needs an op returning one new Tensor")
    if s.arg("out"):
        err("'out' is generated for every function returning new Tensors; do not declare it")
    for dunder in op.operators:
        if not re.match(r"^__[a-z]+__$", dunder):
            err(f"'{dunder}' is not a Python operator method")
        if dunder.startswith("__i") and dunder not in ("__invert__",) and "inplace" not in op.variants:
            err(f"operator {dunder} needs the inplace variant")
        if "method" not in op.variants:
            err(f"operator {dunder} needs the method variant")


def parse_op(entry, path, kernels):
    line = getattr(entry, "line", 0)

    def err(msg, key=None):
        kl = getattr(entry, "key_lines", {}).get(key, line) if key else line
        raise SpecError(path, kl, msg)

    if not isinstance(entry, dict):
        raise SpecError(path, line, "each entry must be a mapping with a 'func' key")
    for k in entry:
        if k not in KEYS:
            err(f"unknown key '{k}'{did_you_mean(str(k), KEYS)}", k)
    if "func" not in entry:
        err("missing 'func'")
    try:
        schema = Schema.parse(str(entry["func"]))
    except SchemaError as e:
        err(f"bad schema: {e}", "func")
    kinds = [k for k in KINDS if k in entry]
    if len(kinds) != 1:
        err(f"an op needs exactly one of {', '.join(KINDS)}; got {', '.join(kinds) or 'none'}")
    kind = kinds[0]
    kernel = entry[kind]
    opt_float = next((a.name for a in schema.args if a.type.base == "float" and a.type.optional), None)
    if opt_float and kind != "composite":   # C has no None for a double; a composite gets Python's
        err(f"'float?' ({opt_float}) is supported by composite ops only", "func")
    if kind == "composite":   # becomes the function's reference, FAMILY.NAME
        kernel = kernels.composite(kernel, schema, Path(path).stem, lambda m: err(m, kind))
    elif not isinstance(kernel, str) or not kernel.strip():
        err(f"'{kind}' must name a kernel", kind)
    else:
        kernels.check(kind, kernel, lambda m: err(m, kind))
    variants = _variants(entry.get("variants", ["function"]), lambda m: err(m, "variants"))
    out = entry.get("out", True)
    if not isinstance(out, bool):
        err("'out' is a boolean: false leaves out= out of a function that would take it", "out")
    if "out" in entry and out:
        err("'out: true' is the default; only 'out: false' is said", "out")
    if out and _takes_out(schema, variants):
        variants = tuple(v for v in VARIANTS if v in variants or v == "out")
    dtypes = _dtypes(entry.get("dtypes", "all"), lambda m: err(m, "dtypes"))
    if kind != "composite":
        kernels.check_dtypes(kind, kernel.strip(), dtypes, lambda m: err(m, "dtypes" if "dtypes" in entry else kind))
    promote = entry.get("promote", "default")
    if promote not in PROMOTE or (kind != "pointwise" and "promote" in entry):
        err(f"'promote' is for pointwise ops and one of {', '.join(PROMOTE)}", "promote")
    reduce = entry.get("reduce", "keep")
    if reduce not in REDUCE_RULES or (kind != "reduction" and "reduce" in entry):
        err(f"'reduce' is for reductions and one of {', '.join(REDUCE_RULES)}", "reduce")
    mean = entry.get("mean", False)
    if not isinstance(mean, bool) or (mean and kind != "reduction"):
        err("'mean' is a boolean for reductions", "mean")
    operators = entry.get("operators", [])
    if not isinstance(operators, list):
        err("'operators' must be a list like [__add__, __radd__]", "operators")
    aliases = entry.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) and re.match(r"^[a-z][a-z0-9_]*[a-z0-9]$", a)
                                                for a in aliases):
        err("'aliases' must be a list of Python names like [arccos]", "aliases")
    test = entry.get("test", {})
    if not isinstance(test, dict):
        err("'test' must be a mapping", "test")
    for k in test:
        if k not in TEST_KEYS:
            err(f"unknown test key '{k}'{did_you_mean(str(k), TEST_KEYS)}", "test")
    if "dtypes" in test:   # a list or a set, as `dtypes:`
        test = dict(test, dtypes=list(_dtypes(test["dtypes"], lambda m: err(m, "test"))))
    doc = entry.get("doc", "")
    if not isinstance(doc, str):
        err("'doc' must be a string", "doc")
    index_args = entry.get("index_args", [])
    tensor_names = [a.name for a in schema.args if a.type.base == "Tensor" and not a.type.is_list]
    if not isinstance(index_args, list) or any(n not in tensor_names for n in index_args):
        bad = next((n for n in index_args if n not in tensor_names), index_args) if isinstance(index_args, list) else index_args
        err(f"'index_args' lists Tensor arguments of the op; '{bad}' is not one{did_you_mean(str(bad), tensor_names)}",
            "index_args")
    if index_args and kind != "kernel":
        err("'index_args' is for hand-written kernels (kernel: NAME)", "index_args")
    dtype_check = entry.get("dtype_check", "")
    if "dtype_check" in entry and (kind != "composite" or dtype_check not in tensor_names + ["body"]):
        err(f"'dtype_check' is for composites: a Tensor argument ({', '.join(tensor_names) or 'none'}) or 'body'",
            "dtype_check")
    cross_device = entry.get("cross_device", False)
    if not isinstance(cross_device, bool) or (cross_device and kind != "kernel"):
        err("'cross_device' is a boolean for hand-written kernels (kernel: NAME)", "cross_device")
    upcast = entry.get("upcast", True)
    if not (isinstance(upcast, bool) or upcast == "cpu") or ("upcast" in entry and kind != "kernel"):
        err("'upcast' is true, false or 'cpu' (16-bit tensors met as float32 on the CPU only), for hand-written "
            "kernels (kernel: NAME)", "upcast")
    upcast_cuda = upcast is True
    autocast = _autocast(entry.get("autocast"), lambda m: err(m, "autocast"))
    result = entry.get("result")
    if result not in (None, "real") or (result and kind != "pointwise"):
        err("'result: real' is for pointwise ops whose result is a complex dtype's real counterpart (abs)", "result")
    views = any(r.type.alias and not r.type.mutable for r in schema.returns)
    upcast = bool(upcast) and kind == "kernel" and not views and any(TABLE[d].stored for d in dtypes)
    op = Op(schema, kind, kernel.strip(), variants, dtypes,
            doc.strip(), line, promote, reduce, mean, tuple(operators), dict(test), tuple(index_args),
            kind == "pointwise" and kernel.strip() in kernels.checked, path,
            _python_module(entry.get("python_module", []), schema.name, lambda m: err(m, "python_module")),
            kernels.cuda(kind, kernel.strip(), schema, entry.get("cuda"), lambda m: err(m, "cuda")), cross_device, upcast, autocast, result == "real",
            kind == "pointwise" and kernel.strip() in kernels.complex_bodies, upcast_cuda=upcast_cuda,
            aliases=tuple(aliases), dtype_check=dtype_check)
    _check_kind(op, err)
    _check_variants(op, err)
    return op


def _check_model(ops):
    seen, cnames, dunders, placed = {}, {}, {}, {}
    for op in ops:
        for module, alias in op.python_module:
            where = placed.setdefault((module, alias), (op.name, f"{op.file}:{op.line}"))
            if where[0] != op.name:
                raise SpecError(op.file, op.line, f"loom.{module}.{alias} is already {where[0]} ({where[1]})")
    names = {o.name for o in ops}
    alias_of = {}
    for op in ops:
        for a in op.aliases:
            if a in names or a.rstrip("_") in names:
                raise SpecError(op.file, op.line, f"alias '{a}' of '{op.name}' is already an op's name")
            if alias_of.setdefault(a, op.name) != op.name:
                raise SpecError(op.file, op.line, f"alias '{a}' is already an alias of '{alias_of[a]}'")
    for op in ops:
        full = op.schema.full_name
        if full in seen:
            raise SpecError(op.file, op.line, f"duplicate op '{full}' (first declared at {seen[full]})")
        seen[full] = f"{op.file}:{op.line}"
        if op.cname in cnames:
            raise SpecError(op.file, op.line, f"'{full}' collides with another op's C name '{op.cname}'")
        cnames[op.cname] = op.line
        if "inplace" in op.variants and op.name + "_" in names:
            raise SpecError(op.file, op.line, f"inplace variant '{op.name}_' is also declared as its own op")
        for d in op.operators:
            if d in dunders:
                raise SpecError(op.file, op.line, f"operator {d} is already bound at {dunders[d]}")
            dunders[d] = f"{op.file}:{op.line}"


def load(ops_path, native_dir=None):
    """The model of an ops folder (ops/*.yaml, one file per family) or of one file."""
    ops_path = Path(ops_path)
    native_dir = Path(native_dir) if native_dir else ops_path.parent / "native"
    kernels = _Kernels(native_dir)   # composites: python/loom/_composites beside native/
    ops = tuple(parse_op(e, shown, kernels) for e, shown in yamlload.load_entries(ops_path, "op entries"))
    _check_model(ops)
    return OpModel(ops, str(ops_path))
