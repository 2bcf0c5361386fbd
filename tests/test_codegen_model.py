"""The generator against the real ops/: errors injected anywhere in it point
at the right line, the generated sources are valid Python, the installed
package offers exactly the variants the model declares, and adding one op
touches only what it must (one C shard and one cffi module for a pointwise op,
none for a composite)."""
import inspect
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import loom
from codegen import cgen, emit, model
from codegen.errors import SpecError
from conftest import ROOT
from helpers import op_id
from opinputs import MODEL

def _real(file):
    return (ROOT / file).read_text()


def _lines(op):
    """The lines of the file that declares `op` (Op.line counts in it)."""
    return _real(op.file).splitlines(keepends=True)


def _copy_ops(tmp_path, file, text):
    """A copy of ops/ with `file` (e.g. ops/pointwise.yaml) holding `text`."""
    shutil.copytree(ROOT / "ops", tmp_path / "ops", dirs_exist_ok=True)
    (tmp_path / file).write_text(text)
    return tmp_path / "ops"


def _load_text(tmp_path, file, text):
    return model.load(_copy_ops(tmp_path, file, text), ROOT / "native")


def _with_line_after(op, lineno, text):
    """op's file with `text` inserted after line `lineno` (1-based)."""
    lines = _lines(op)
    return "".join(lines[:lineno] + [text] + lines[lineno:])


@pytest.mark.parametrize("op", MODEL.ops[::3], ids=op_id)
def test_unknown_key_in_any_entry_names_its_line(tmp_path, op):
    assert _lines(op)[op.line - 1].lstrip().startswith("- func:"), "Op.line is the entry's first line"
    with pytest.raises(SpecError) as err:
        _load_text(tmp_path, op.file, _with_line_after(op, op.line, "  kernal: x\n"))
    assert str(err.value) == f"{op.file}:{op.line + 1}: unknown key 'kernal' (did you mean 'kernel'?)"


@pytest.mark.parametrize("op", [o for o in MODEL.ops if "pointwise" == o.kind][::4], ids=op_id)
def test_unknown_kernel_in_any_entry_names_the_kernel_line(tmp_path, op):
    LINES = _lines(op)
    entry_end = next(i for i in range(op.line, len(LINES)) if LINES[i].startswith("- func:") or i == len(LINES) - 1)
    kline = next(i + 1 for i in range(op.line - 1, entry_end) if LINES[i].startswith("  pointwise:"))
    text = "".join(LINES[:kline - 1] + [f"  pointwise: {op.kernel}x\n"] + LINES[kline:])
    with pytest.raises(SpecError) as err:
        _load_text(tmp_path, op.file, text)
    assert str(err.value).startswith(f"{op.file}:{kline}: unknown pointwise kernel '{op.kernel}x'")
    assert f"(did you mean '{op.kernel}'?)" in str(err.value)


def test_bad_schema_deep_in_the_file(tmp_path):
    last = MODEL.ops[-1]   # whichever op the last file ends with
    lines = _real(last.file).split("\n")
    assert lines[last.line - 1].startswith("- func: ") and "Tensor" in lines[last.line - 1]
    lines[last.line - 1] = lines[last.line - 1].replace("Tensor", "Tensr", 1)
    text = "\n".join(lines)
    with pytest.raises(SpecError, match=r"unknown type 'Tensr'") as err:
        _load_text(tmp_path, last.file, text)
    assert err.value.line == last.line and str(err.value).startswith(f"{last.file}:{last.line}: ")


def test_yaml_syntax_error_deep_in_the_file(tmp_path):
    op = MODEL.get("mul.Tensor")
    with pytest.raises(SpecError, match="invalid YAML") as err:
        _load_text(tmp_path, op.file, _with_line_after(op, op.line, "  variants: [function, method\n"))
    assert abs(err.value.line - (op.line + 1)) <= 1, str(err.value)


def test_cli_exit_code_and_message(tmp_path):
    op = MODEL.get("sigmoid")
    path = _copy_ops(tmp_path, op.file, _real(op.file).replace("  pointwise: sigmoid\n", "  pointwise: sigmoidd\n"))
    shutil.copytree(ROOT / "derivatives", tmp_path / "derivatives")
    r = subprocess.run([sys.executable, "-m", "codegen", "--check", "--ops", str(path),
                        "--native", str(ROOT / "native")], capture_output=True, text=True, cwd=ROOT)
    line = next(i + 1 for i, s in enumerate(_lines(op)) if s == "  pointwise: sigmoid\n")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert re.match(rf"^error: {op.file}:{line}: unknown pointwise kernel 'sigmoidd' \(did you mean 'sigmoid'\?\)",
                    r.stderr), r.stderr


# ---- generated sources


@pytest.fixture(scope="module")
def rendered():
    return _render_all(MODEL)


def _render_all(m):
    files = emit.render(m, ROOT / "native")
    files.update(emit.ffi_sources(emit.ffi_specs(m, files["cdef.h"])))
    return files


def test_generated_python_compiles(rendered):
    for name, text in rendered.items():
        if name.endswith((".py", ".pyi")):
            compile(text, name, "exec")


def test_stubs_declare_every_function_and_method(rendered):
    stub = rendered["__init__.pyi"]
    for op in MODEL.ops:
        if "function" in op.variants:
            assert re.search(rf"^def {op.name}\(", stub, re.M), op.name
        if "method" in op.variants:
            assert re.search(rf"^\s+def {op.name}\(self", stub, re.M), op.name
        if "inplace" in op.variants:
            assert re.search(rf"^\s+def {op.name}_\(self", stub, re.M), op.name + "_"


def _render_with(extra):
    with tempfile.TemporaryDirectory() as d:
        return _render_all(model.load(_copy_ops(Path(d), "ops/zz_extra.yaml", extra), ROOT / "native"))


def test_adding_a_composite_op_changes_no_c_source(rendered):
    new = _render_with("\n- func: twice(Tensor self) -> Tensor\n  variants: function, method\n"
                       "  composite: activations.mish\n  test: {ref: '2 * self'}\n")
    assert [n for n in rendered if n.endswith(".c") and rendered[n] != new[n]] == []
    assert "def twice(" in new["_ops.py"] and "def twice(" in new["__init__.pyi"]
    assert "_composite_activations.mish(self)" in new["_ops.py"]
    compile(new["_ops.py"], "_ops.py", "exec")


def test_adding_a_pointwise_op_changes_one_shard(rendered):
    """What a new pointwise op makes the compiler redo: its dispatch shard, one
    small cffi module and one CUDA shard; not loom._C's cffi module, not
    loom_ops.h (which every hand-written kernel includes)."""
    new = _render_with("\n- func: neg_again(Tensor self) -> Tensor\n  variants: function\n"
                       "  pointwise: neg\n  dtypes: numeric\n  test: {ref: '-self'}\n")
    changed = sorted(n for n in rendered if rendered[n] != new[n] and not n.endswith((".py", ".pyi")))
    shard = [n for n in changed if n.startswith("ops_shard") and n.endswith(".c")]
    assert len(shard) == 1, changed
    k = int(shard[0][len("ops_shard"):-2])
    assert changed == sorted([f"ops_shard{k}.c", f"ops_shard{k}.h", f"_C_ops{k % cgen.NFFI}.c",
                              f"cuda_shard{k % cgen.NCUDA}.cu"]), changed
    assert "lm_op_neg_again" in new[f"ops_shard{k}.c"] and "lm_op_neg_again" in new[f"_C_ops{k % cgen.NFFI}.c"]


# ---- the installed package against the model


@pytest.mark.parametrize("op", MODEL.ops, ids=op_id)
def test_installed_variants_match_the_model(op):
    fn = getattr(loom, op.name, None)
    assert (fn is not None) == ("function" in op.variants) or len(MODEL.by_name()[op.name]) > 1
    if "function" in op.variants and len(MODEL.by_name()[op.name]) == 1:
        assert op.doc.split(".")[0] in (fn.__doc__ or ""), "the function's docstring comes from ops.yaml"
        params = inspect.signature(fn).parameters
        for a in op.schema.args:   # (a function's self is PyTorch's input)
            name = "input" if a.name == "self" else a.name
            assert name in params or f"_{name}" in params, a.name
        assert ("out" in params) == ("out" in op.variants)
    # (Tensor.real and Tensor.imag are properties over the functions, as torch's)
    method = hasattr(loom.Tensor, op.name) and not isinstance(inspect.getattr_static(loom.Tensor, op.name), property)
    assert method == ("method" in op.variants or any(
        "method" in o.variants for o in MODEL.by_name()[op.name]))
    assert hasattr(loom.Tensor, op.name + "_") == ("inplace" in op.variants or op.name + "_" in
                                                   {o.name for o in MODEL.ops})
    for dunder in op.operators:
        assert getattr(loom.Tensor, dunder) is not getattr(object, dunder, None), dunder


def test_exported_functions_are_the_models():
    want = {n for op in MODEL.ops if "function" in op.variants for n in (op.name, *op.aliases)}
    want |= {n + "_" for op in MODEL.ops if {"function", "inplace"} <= set(op.variants)
             for n in (op.name, *op.aliases)}   # torch.exp_(x): the in-place function, as PyTorch's
    assert set(loom._ops.__all__) == want
    x = loom.tensor([0.5, 2.0])
    assert loom.exp_(x) is x and loom.arccos_(loom.tensor([1.0])).item() == 0.0


def test_aliases_are_the_same_functions_and_methods():
    aliased = [op for op in MODEL.ops if op.aliases]
    assert {"arccos", "clip", "concatenate", "divide", "greater_equal"} <= {a for op in aliased for a in op.aliases}
    for op in aliased:
        for a in op.aliases:
            if "function" in op.variants:
                assert getattr(loom, a) is getattr(loom, op.name), a
            if "method" in op.variants:
                assert getattr(loom.Tensor, a) is getattr(loom.Tensor, op.name), a
            if "inplace" in op.variants:
                assert getattr(loom.Tensor, a + "_") is getattr(loom.Tensor, op.name + "_"), a


def test_an_alias_that_is_taken_or_not_a_name_is_a_line_error(tmp_path):
    op = MODEL.get("acos")
    text = _real(op.file)
    for bad, msg in (("[arcsin]", "alias 'arcsin' is already an alias of 'asin'"),
                     ("[asin]", "alias 'asin' of 'acos' is already an op's name"),
                     ("[Arc-cos]", "'aliases' must be a list of Python names")):
        with pytest.raises(SpecError) as err:
            _load_text(tmp_path, op.file, text.replace("  aliases: [arccos]\n", f"  aliases: {bad}\n", 1))
        assert msg in str(err.value) and str(err.value).startswith(f"{op.file}:"), str(err.value)


def test_overloaded_docstrings_cover_every_overload():
    """help(loom.max) should describe max(x, dim) too: each overload's doc from ops.yaml is in the docstring."""
    missing = [op.schema.full_name for name, group in MODEL.by_name().items() if len(group) > 1
               for op in group if "function" in op.variants
               and op.doc.split(".")[0] not in (getattr(loom, name).__doc__ or "")]
    assert not missing, missing


def test_entry_modules_refuse_tables_of_another_build():
    """loom._C_opsN call op entries through tables in loom._C; a table that is
    not the one a module was generated against is refused, and nothing is bound."""
    import importlib
    from loom import _C
    exp = next(op for op in MODEL.ops if op.name == "exp")
    j = cgen.ffi_module(exp)
    lib = importlib.import_module(f"loom._C_ops{j}").lib
    own = [_C.lib.lm_ops_table(k) for k in cgen.shards_of_module(j)]
    others = [_C.lib.lm_ops_table(k) for k in cgen.shards_of_module((j + 1) % cgen.NFFI)]
    assert _C.lib.lm_ops_table(cgen.NSHARDS) == 0 and _C.lib.lm_ops_table(-1) == 0
    assert lib.lm_ffi_bind(*others) == -1
    assert lib.lm_ffi_bind(*([0] * len(own))) == -1
    assert loom.exp(loom.tensor([0.0])).item() == 1.0   # still bound to its own tables
    assert lib.lm_ffi_bind(*own) == 0
    assert loom.exp(loom.tensor([0.0])).item() == 1.0


# (a kernel serving every dtype, complex ones included, cannot be shown a broader list)
SERVED = [op for op in MODEL.ops if op.kind != "composite"
          and op.dtypes not in (model.DTYPE_SETS["all"], model.DTYPE_SETS["all_and_complex"])
          and (op.kind, op.kernel) in model._Kernels(ROOT / "native").serves]


@pytest.mark.parametrize("op", SERVED, ids=op_id)
def test_dtypes_a_kernel_does_not_serve_name_the_dtypes_line(tmp_path, op):
    """A kernel that says `serves: floating` (or another set) refuses a YAML entry listing more dtypes."""
    LINES = _lines(op)
    end = next((i for i in range(op.line, len(LINES)) if LINES[i].startswith("- func:")), len(LINES))
    dline = next(i + 1 for i in range(op.line - 1, end) if LINES[i].startswith("  dtypes:"))
    text = "".join(LINES[:dline - 1] + ["  dtypes: all\n"] + LINES[dline:])
    with pytest.raises(SpecError) as err:
        _load_text(tmp_path, op.file, text)
    msg = str(err.value)
    assert msg.startswith(f"{op.file}:{dline}: dtypes lists ") and f"kernel '{op.kernel}' does not serve" in msg
    assert "native/" in msg and "serves: " in msg


def test_every_float_only_kernel_says_so():
    """The hand-written kernels that dispatch over floating dtypes only carry the note the check reads."""
    kernels = model._Kernels(ROOT / "native")
    for name in ("softmax", "conv2d", "avg_pool2d", "nll_loss", "adam_step_"):
        assert kernels.serves[("kernel", name)][0] == "floating"


def test_a_pointwise_header_check_runs_before_the_loop(rendered):
    """A pointwise header defining LM_PW_NAME_CHECK gets it called, with the compute dtype and the
    op's arguments in schema order, through its spec; the other ops' specs hold NULL."""
    checked = {op.kernel for op in MODEL.ops if op.check}
    assert {"floor_divide", "remainder"} <= checked
    for op in MODEL.ops:
        if op.kind != "pointwise":
            continue
        text = rendered[f"ops_shard{cgen.shard(op)}.c"]
        spec = text[text.index(f"lm_pointwise_spec {op.cname}_spec"):]
        spec = spec[:spec.index("};")]
        if op.check:
            assert f"{op.cname}_check,\n" in spec and cgen.check_call(op) in text, op.cname
        else:
            assert "NULL,\n" in spec and f"LM_PW_{op.kernel}_CHECK" not in text, op.cname
    fd = MODEL.get("floor_divide")
    assert cgen.check_call(fd) == "LM_PW_floor_divide_CHECK(compute, ins[0], ins[1])"


def test_not_implemented_inputs_are_refused_by_the_recorder():
    """`weight: not_implemented` in derivatives.yaml: the recorder refuses the input requiring grad
    (before building a node); no gradient slot is computed for it."""
    from codegen import derivatives
    derivs = derivatives.load(ROOT / "derivatives", MODEL)
    nll = next(d for d in derivs if d.op.schema.full_name == "nll_loss")
    assert nll.not_implemented == ("weight",) and all("weight" not in f.inputs for f in nll.formulas)
    nodes = emit.render(MODEL, ROOT / "native", derivs)["_nodes.py"]
    record = nodes[nodes.index("def record_nll_loss("):]
    assert record.split("\n")[1].strip() == 'check_no_requires_grad(weight, "nll_loss", "weight")'
    # one check per not_implemented input of an op with formulas (nll_loss's weight, zeta's self, ...)
    assert sum("check_no_requires_grad(" in line for line in nodes.splitlines()) == \
        sum(len(d.not_implemented) for d in derivs if d.formulas) >= 2


def test_upcast_cpu_leaves_16bit_to_the_cuda_kernel(tmp_path):
    """`upcast: cpu`: float32 copies on the CPU, the 16-bit tensors themselves on CUDA (the generated
    entry skips the upcast there); another value is a file:line error. The products say `upcast: false`
    (their CPU GEMM converts 16-bit operands as it packs them), conv2d takes the default."""
    for name in ("matmul", "mm", "bmm", "linear", "linear_backward"):
        op = MODEL.get(name)
        assert not op.upcast and not op.upcast_cuda, name
    assert MODEL.get("conv2d").upcast and MODEL.get("conv2d").upcast_cuda
    op = MODEL.get("matmul")
    text = _real(op.file)
    assert text.count("  upcast: false") >= 3
    loaded = _load_text(tmp_path, op.file, text.replace("  upcast: false", "  upcast: cpu", 1))
    assert loaded.get("matmul").upcast and not loaded.get("matmul").upcast_cuda
    with pytest.raises(SpecError) as err:
        _load_text(tmp_path, op.file, text.replace("  upcast: false", "  upcast: gpu", 1))
    assert "'upcast' is true, false or 'cpu'" in str(err.value) and str(err.value).startswith(f"{op.file}:")


def _with_cuda_line(op, line):
    """ops/FAMILY.yaml's text with `op`'s `cuda:` line replaced by `line` ("" drops it), and that line's number"""
    LINES = _lines(op)
    end = next((i for i in range(op.line, len(LINES)) if LINES[i].startswith("- func:")), len(LINES))
    at = next(i for i in range(op.line - 1, end) if LINES[i].startswith("  cuda:"))
    return "".join(LINES[:at] + ([line] if line else []) + LINES[at + 1:]), at + 1


def test_a_view_kernel_says_how_cuda_is_served(tmp_path):
    """Without `cuda:` a kernel gets the host fallback, which cannot return a view of a CUDA tensor:
    a view kernel that says nothing has no CUDA path (which test_every_op_has_a_cuda_path refuses
    in ops/), and one that says `host` is refused at its line."""
    op = MODEL.get("diagonal")
    text, _ = _with_cuda_line(op, "")
    assert next(o for o in _load_text(tmp_path, op.file, text).ops if o.name == "diagonal").cuda == ""
    text, at = _with_cuda_line(op, "  cuda: host\n")
    with pytest.raises(SpecError, match=rf"^{op.file}:{at}: kernel 'diagonal' returns a view: 'cuda: host'"):
        _load_text(tmp_path, op.file, text)


@pytest.mark.parametrize("value, message", [
    ("own", r"'cuda: own' needs a function lm_cuda_mm\(\.\.\.\) in native/cuda/host_\*\.c"),
    ("sam", r"'cuda' is one of same, own, host \(did you mean 'same'\?\)"),
])
def test_a_wrong_cuda_way_names_its_line(tmp_path, value, message):
    op = MODEL.get("mm")
    text, at = _with_cuda_line(op, f"  cuda: {value}\n")
    with pytest.raises(SpecError, match=rf"^{op.file}:{at}: {message}"):
        _load_text(tmp_path, op.file, text)


def test_cuda_is_said_only_by_hand_written_kernels(tmp_path):
    op = MODEL.get("exp")
    LINES = _lines(op)
    text = "".join(LINES[:op.line] + ["  cuda: same\n"] + LINES[op.line:])
    with pytest.raises(SpecError, match=rf"^{op.file}:{op.line + 1}: 'cuda' is for hand-written kernels"):
        _load_text(tmp_path, op.file, text)


def test_the_cuda_way_comes_from_the_yaml_alone():
    """The dispatch table's CUDA slot follows `cuda:` (no note in the C is read for it)."""
    said = {op.schema.full_name for op in MODEL.ops if op.kind == "kernel" and op.cuda == "shared"}
    assert "mm" in said and "view" in said and "gather" not in said
    assert not re.search(r"devices:\s*cpu", "".join(p.read_text() for p in (ROOT / "native/cpu").glob("*.c")))
