"""Render the model into the fixed set of generated files.

Deterministic (same YAML, same bytes) and write-if-changed, so the build
recompiles only what an edit really touched."""
import re
from collections import namedtuple
from pathlib import Path
from types import SimpleNamespace

import jinja2

from . import agen, cgen, metagen, pygen, pyops, vmapgen, yamlload
from .dtypes import CATEGORIES, PATH as DTYPES_PATH, TABLE
from .model import PYTHON_MODULES

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "templates"

C_OUTPUTS = (["dtype.h", "loom_ops.h", "cdef.h"] + [f"ops_shard{i}.h" for i in range(cgen.NSHARDS)]
             + [f"ops_shard{i}.c" for i in range(cgen.NSHARDS)])
# the CUDA library's kernels (built only where nvcc is found: meson.build)
CUDA_OUTPUTS = [f"cuda_shard{i}.cu" for i in range(cgen.NCUDA)] + ["cuda_tables.cu"]
PY_OUTPUTS = ["_ops.py", "_nodes.py", "__init__.pyi", "_dtype_table.py", "_namespaces.py"]
# loom._C: the core (tensors, errors, allocator) and every op's C code; its cffi
# module changes only with native/core/loom.h. loom._C_opsN: each op's
# Python-callable entry, a call through its shard's table (cgen.ffi_module).
FFI_OUTPUT = "_C.c"
FFI_OP_OUTPUTS = [f"_C_ops{j}.c" for j in range(cgen.NFFI)]
OUTPUTS = C_OUTPUTS + CUDA_OUTPUTS + PY_OUTPUTS + [FFI_OUTPUT] + FFI_OP_OUTPUTS


def dtype_enum():
    """The lm_dtype enum: the head of both dtype.h and cffi's cdef."""
    rows = "".join(f"    {d.enum} = {d.code},\n" for d in TABLE.dtypes)
    return f"typedef enum {{\n{rows}    LM_NUM_DTYPES = {len(TABLE.dtypes)}\n}} lm_dtype;"


def core_cdef(native):
    text = (Path(native) / "core/loom.h").read_text()
    body = text.split("/* cdef-begin */", 1)[1].split("/* cdef-end */", 1)[0]
    return dtype_enum() + "\n" + body.replace("[LM_MAX_DIMS]", "[...]")


def _dtype_context():
    return dict(enum=dtype_enum(), dts=TABLE.dtypes, plain=TABLE.plain, barebones=tuple(d for d in TABLE.dtypes if d.barebones),
                categories=CATEGORIES, promote=TABLE.promotion_table(),
                refused=TABLE.refused_message(),
                to_complex={d.name: TABLE.to_complex(d.name) for d in TABLE.dtypes},
                to_real={d.name: TABLE.to_real(d.name) for d in TABLE.dtypes})


def _env():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["pyrepr"] = lambda v: repr(tuple(v)) if isinstance(v, list) else repr(v)
    env.tests["contains"] = lambda seq, item: item in seq
    return env


def _python_context(model):
    groups = model.by_name()
    overloaded = frozenset(n for n, g in groups.items() if len(g) > 1)
    py = SimpleNamespace(
        fname=lambda op, suffix="": pygen.fname(op, suffix, overloaded),
        fnames=lambda group, suffix="": [pygen.fname(op, suffix, overloaded) for op in group],
        docstring=pygen.docstring, group_doc=pygen.group_doc, call_through=pygen.call_through)
    methods, public, dunders, inplace_overloaded, aliases = [], [], [], [], []
    for name, group in groups.items():
        fn = name if name in overloaded else pygen.fname(group[0])
        names = [name, *dict.fromkeys(a for op in group for a in op.aliases)]
        if any("function" in op.variants for op in group):
            public += names
            aliases += [(a, fn) for a in names[1:]]
        if any("method" in op.variants for op in group):
            methods += [(n, fn) for n in names]
        inplace = [op for op in group if "inplace" in op.variants]
        if len(inplace) > 1:   # scatter_(.., src) and scatter_(.., value): a resolver picks the overload
            inplace_overloaded.append((name + "_", inplace))
            ifn = name + "_"
        elif inplace:
            ifn = pygen.fname(inplace[0], "_", overloaded)
        if inplace:
            methods += [(n + "_", ifn) for n in names]
            if any("function" in op.variants for op in inplace):   # torch.exp_(x), as PyTorch offers
                public += [n + "_" for n in names]
                aliases += [(n + "_", ifn) for n in names if n + "_" != ifn]
        for op in group:
            for d in op.operators:
                dunders.append((op, d, pyops.dunder_kind(d)))
    consts = sorted({pygen.scalar_const(a.default) for op, _, _ in dunders for a in op.ctx_args
                     if a.type.base == "Scalar" and a.has_default})
    composite_modules = sorted({op.kernel.split(".")[0] for op in model.ops if op.kind == "composite"})
    return dict(py=py, p=pygen, o=pyops, groups=list(groups.items()), scalar_consts=consts,
                composite_modules=composite_modules, overloaded=[(n, groups[n]) for n in groups if n in overloaded],
                methods=methods, public=public, dunders=dunders, inplace_overloaded=inplace_overloaded,
                aliases=aliases)


def render(model, native, derivs=()):
    env = _env()
    ops = list(model.ops)
    files = {}
    ctx = dict(ops=ops, c=cgen, core_cdef=core_cdef(native))
    files["dtype.h"] = env.get_template("dtype.h.j2").render(**_dtype_context())
    files["_dtype_table.py"] = env.get_template("dtype_table.py.j2").render(**_dtype_context())
    files["loom_ops.h"] = env.get_template("loom_ops.h.j2").render(**ctx)
    files["cdef.h"] = env.get_template("cdef.h.j2").render(**ctx)
    for i, mine in enumerate(shard_ops(ops)):
        headers = sorted({f"kernels/{'pointwise' if op.kind == 'pointwise' else 'reduce'}/{op.kernel}.h"
                          for op in mine if op.kind in ("pointwise", "reduction")})
        files[f"ops_shard{i}.h"] = env.get_template("ops_shard.h.j2").render(index=i, ops=mine, c=cgen)
        files[f"ops_shard{i}.c"] = env.get_template("shard.c.j2").render(index=i, ops=mine, headers=headers, c=cgen)
    cuda = [[] for _ in range(cgen.NCUDA)]
    for op in ops:
        if op.kind in ("pointwise", "reduction"):
            cuda[cgen.cuda_shard(op)].append(op)
    for i, mine in enumerate(cuda):
        headers = sorted({f"kernels/{'pointwise' if op.kind == 'pointwise' else 'reduce'}/{op.kernel}.h" for op in mine})
        files[f"cuda_shard{i}.cu"] = env.get_template("cuda_shard.cu.j2").render(index=i, ops=mine, headers=headers,
                                                                               c=cgen)
    files["cuda_tables.cu"] = env.get_template("cuda_tables.cu.j2").render(n=cgen.NCUDA)
    pctx = _python_context(model)
    diff = {d.op.cname for d in derivs if d.formulas}
    files["_ops.py"] = env.get_template("ops.py.j2").render(ops=ops, c=cgen, ag=agen, vm=vmapgen, mg=metagen, diff=diff,
                                                                       **pctx)
    files["_nodes.py"] = env.get_template("nodes.py.j2").render(derivs=derivs, ag=agen)
    files["_namespaces.py"] = env.get_template("namespaces.py.j2").render(namespaces=namespaces(model))
    files["__init__.pyi"] = env.get_template("loom.pyi.j2").render(
        ops=ops, dtype_names=[n for d in TABLE.dtypes for n in (d.name, *d.aliases)], **pctx)
    return files


def namespaces(model):
    """[(module, [(name, function in _ops)])] from the ops' python_module keys, in module order."""
    out = {m: {} for m in PYTHON_MODULES}
    for op in model.ops:
        for module, alias in op.python_module:
            out[module].setdefault(alias, op.name)
    return [(m, sorted(names.items())) for m, names in out.items()]


def shard_ops(ops):
    """The ops of each dispatch shard, in declaration order."""
    shards = [[] for _ in range(cgen.NSHARDS)]
    for op in ops:
        if op.kind != "composite":
            shards[cgen.shard(op)].append(op)
    return shards


# cffi wraps each call in Py_BEGIN/END_ALLOW_THREADS; for a 1-element add that
# costs more than the add. loom keeps the GIL and lets it go itself around big
# work (lm_gil_release in native/core), through the hooks installed here.
KEEP_GIL = """#undef Py_BEGIN_ALLOW_THREADS
#undef Py_END_ALLOW_THREADS
#define Py_BEGIN_ALLOW_THREADS {
#define Py_END_ALLOW_THREADS }"""
FFI_PREAMBLE = """#include "loom.h"
""" + KEEP_GIL + """
static void *lm_py_save_thread(void) { return (void *)PyEval_SaveThread(); }
static void lm_py_restore_thread(void *s) { PyEval_RestoreThread((PyThreadState *)s); }
void lm_install_gil_hooks(void) { lm_set_gil_hooks(lm_py_save_thread, lm_py_restore_thread); }
"""


def _core_preamble():
    tables = [f"lm_shard{k}_table" for k in range(cgen.NSHARDS)]
    return (FFI_PREAMBLE + "".join(f"struct {t};\nextern const struct {t} {t};\n" for t in tables)
            + "static const void *const lm_tables[] = {" + ", ".join(f"&{t}" for t in tables) + "};\n"
            + "uintptr_t lm_ops_table(int shard) {\n"
            + f"    return shard >= 0 && shard < {cgen.NSHARDS} ? (uintptr_t)lm_tables[shard] : 0;\n}}\n")


def _emit(ffi):
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()):   # cffi announces what it writes
        ffi.emit_c_code(buf)
    return "/* generated from ops/ by codegen (through cffi) — do not edit */\n" + buf.getvalue()


FfiSpec = namedtuple("FfiSpec", "module cdef preamble")


def ffi_specs(model, cdef_text):
    """What each cffi module is made from, {file: FfiSpec}: loom._C (the core,
    from the same cdef the C header came from) and the op entry modules
    loom._C_opsN, which include loom._C's declarations (one lm_tensor type)."""
    specs = {FFI_OUTPUT: FfiSpec("loom._C", re.sub(r"/\*.*?\*/", "", cdef_text, flags=re.S), _core_preamble())}
    shards = shard_ops(list(model.ops))
    template = _env().get_template("ffi_ops.c.j2")
    for j in range(cgen.NFFI):
        mine = {k: shards[k] for k in cgen.shards_of_module(j)}
        decls = [d for ops in mine.values() for op in ops for d, _ in cgen.entry_decls(op)]
        cdef = "".join(f"{d};\n" for d in decls) + f"int lm_ffi_bind({', '.join('uintptr_t' for _ in mine)});\n"
        cdef += "void lm_ffi_profiler(uintptr_t state);\n"
        specs[f"_C_ops{j}.c"] = FfiSpec(f"loom._C_ops{j}", cdef,
                                        template.render(index=j, shards=mine, gil=KEEP_GIL, c=cgen))
    return specs


def ffi_sources(specs):
    """The cffi API-mode module sources, {file: C source}."""
    import cffi

    def make(spec, include=None):
        ffi = cffi.FFI()
        if include is not None:
            ffi.include(include)
        ffi.cdef(spec.cdef)
        ffi.set_source(spec.module, spec.preamble)
        return ffi

    core = make(specs[FFI_OUTPUT])
    return {name: _emit(core if name == FFI_OUTPUT else make(spec, core)) for name, spec in specs.items()}


def write_if_changed(path, text):
    path = Path(path)
    if path.exists() and path.read_text() == text:
        return False
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return True


def inputs(native, ops_path, derivs_path):
    """Everything whose change must rerun the generator (for the depfile)."""
    native = Path(native)
    # the folders too: a new family file changes their mtime
    deps = [Path(p) for p in (ops_path, derivs_path) if Path(p).is_dir()]
    deps += [p for p, _ in yamlload.sources(ops_path) + yamlload.sources(derivs_path)] + [native / "core/loom.h"]
    deps.append(DTYPES_PATH)
    # composites are checked against their functions' parameters
    deps += sorted((native.parent / "python/loom/_composites").glob("*.py"))
    deps += sorted(Path(__file__).resolve().parent.glob("*.py")) + sorted(TEMPLATES.glob("*.j2"))
    deps += sorted((native / "kernels").glob("*/*.h")) + sorted(native.glob("cpu/*.c")) + sorted(native.glob("cuda/host_*.c"))
    from .derivatives import _FORMULAS   # helper names are read from it
    return deps + [_FORMULAS]
