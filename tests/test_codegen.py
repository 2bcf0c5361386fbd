"""The generator: malformed YAML fails with `ops/FAMILY.yaml:LINE: message`, output is deterministic."""
import shutil
import subprocess
import sys
import textwrap

import pytest

from codegen import derivatives, emit, model
from codegen.errors import SpecError
from conftest import ROOT

GOOD = """\
- func: neg(Tensor self) -> Tensor
  variants: function, method
  pointwise: neg
"""

# (name, yaml text, line of the error, message pattern)
BAD = [
    ("unknown key", GOOD + "  colour: red\n", 4, r"unknown key 'colour'"),
    ("misspelled key", GOOD + "  varients: function\n", 4, r"unknown key 'varients' \(did you mean 'variants'\?\)"),
    ("bad type", "- func: neg(Tensr self) -> Tensor\n  pointwise: neg\n", 1, r"unknown type 'Tensr'"),
    ("unparseable func", "- func: neg Tensor self -> Tensor\n  pointwise: neg\n", 1, r"expected 'name\[.overload\]"),
    ("duplicate overload", GOOD + GOOD, 4, r"duplicate op 'neg' \(first declared at ops\.yaml:1\)"),
    ("unknown pointwise kernel", "- func: neg(Tensor self) -> Tensor\n  pointwise: negg\n", 2,
     r"unknown pointwise kernel 'negg' \(did you mean 'neg'\?\)"),
    ("unknown reduction kernel", "- func: total(Tensor self) -> Tensor\n  reduction: summ\n", 2,
     r"unknown reduction kernel 'summ' \(did you mean 'sum'\?\)"),
    ("unknown custom kernel", "\n- func: mm(Tensor self, Tensor mat2) -> Tensor\n  kernel: mmm\n", 3,
     r"unknown kernel 'mmm' \(did you mean 'mm'\?\): expected a function lm_cpu_mmm"),
    ("method without self", "- func: neg(Tensor x) -> Tensor\n  variants: method\n  pointwise: neg\n", 1,
     r"method and inplace variants need 'Tensor self'"),
    ("inplace on a tuple", "- func: max.dim(Tensor self, int dim) -> (Tensor values, Tensor indices)\n"
     "  variants: function, inplace\n  kernel: max_dim\n", 1, r"inplace variant needs an op returning one new Tensor"),
    ("unknown variant", "- func: neg(Tensor self) -> Tensor\n  variants: function, methd\n  pointwise: neg\n", 2,
     r"unknown variant 'methd' \(did you mean 'method'\?\)"),
    ("out is not listed", "- func: neg(Tensor self) -> Tensor\n  variants: function, out\n  pointwise: neg\n", 2,
     r"'out' is not listed: every function returning new Tensors gets out="),
    ("out: true is the default", GOOD + "  out: true\n", 4, r"'out: true' is the default"),
    ("out is a boolean", GOOD + "  out: no-thanks\n", 4, r"'out' is a boolean"),
    ("unknown dtype set", GOOD + "  dtypes: floats\n", 4, r"unknown dtype set 'floats'"),
    ("unknown dtype", GOOD + "  dtypes: [float32, complex32]\n", 4, r"unknown dtype 'complex32'"),
    ("operator needs inplace", GOOD + "  operators: [__iadd__]\n", 1, r"operator __iadd__ needs the inplace variant"),
    ("default does not fit", "- func: neg(Tensor self, int k=1.5) -> Tensor\n  kernel: view\n", 1,
     r"default 1.5 does not fit type 'int'"),
    ("None default needs optional", "- func: neg(Tensor self, int k=None) -> Tensor\n  kernel: view\n", 1,
     r"default None needs an optional type"),
    ("invalid YAML", "- func: neg(Tensor self) -> Tensor\n  pointwise: [neg\n", 3, r"invalid YAML"),
    ("not a list", "func: neg(Tensor self) -> Tensor\n", 1, r"must be a list of op entries"),
    ("missing func", "- pointwise: neg\n  variants: function\n", 1, r"missing 'func'"),
    ("two kernel kinds", GOOD + "  kernel: view\n", 1, r"exactly one of pointwise, reduction, kernel, composite"),
    ("promote outside pointwise", "- func: v(Tensor self) -> Tensor\n  kernel: view\n  promote: float\n", 3,
     r"'promote' is for pointwise ops"),
    ("duplicate key", GOOD + "  pointwise: neg\n", 4, r"duplicate key 'pointwise'"),
    ("pointwise with int[]", "- func: neg(Tensor self, int[] d) -> Tensor\n  pointwise: neg\n", 1,
     r"pointwise ops take Tensors and Scalar, float, int, bool only"),
    ("pointwise with 5 Scalars", "- func: neg(Tensor self, Scalar a, Scalar b, Scalar c, Scalar d, Scalar e) -> Tensor\n"
     "  pointwise: neg\n", 1, r"pointwise ops take at most 4 Scalar arguments"),
    ("unknown test hint", GOOD + "  test: {reff: x}\n", 4, r"unknown test key 'reff' \(did you mean 'ref'\?\)"),
    ("optional float outside a composite", "- func: neg(Tensor self, float? s=None) -> Tensor\n  kernel: view\n", 1,
     r"'float\?' \(s\) is supported by composite ops only"),
]


@pytest.mark.parametrize("name,text,line,pattern", BAD, ids=[b[0] for b in BAD])
def test_malformed_yaml_names_file_and_line(tmp_path, name, text, line, pattern):
    path = tmp_path / "ops.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        model.load(path, ROOT / "native")
    assert str(err.value).startswith(f"ops.yaml:{line}: ") or str(err.value).startswith(f"{path}:{line}: "), str(err.value)
    assert err.match(pattern)


def test_out_is_the_default_for_functions_returning_new_tensors(tmp_path):
    """out= comes with every function returning new Tensors, not with views, in-place ops,
    methods only, private ops, or an op saying `out: false`."""
    path = tmp_path / "ops.yaml"
    path.write_text(textwrap.dedent("""\
        - func: neg(Tensor self) -> Tensor
          pointwise: neg
        - func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
          kernel: max_dim
        - func: view(Tensor(a) self, int[] size) -> Tensor(a)
          kernel: view
        - func: neg_(Tensor(a!) self) -> Tensor(a!)
          kernel: view
        - func: _neg(Tensor self) -> Tensor
          pointwise: neg
        - func: negm(Tensor self) -> Tensor
          variants: method
          pointwise: neg
        - func: negx(Tensor self) -> Tensor
          pointwise: neg
          out: false
        """))
    m = model.load(path, ROOT / "native")
    takes = {op.name: "out" in op.variants for op in m.ops}
    assert takes == {"neg": True, "max": True, "view": False, "neg_": False, "_neg": False,
                     "negm": False, "negx": False}
    assert [op.name for op in m.ops if op.c_out] == ["neg"]   # a tuple's out= is filled in Python


def test_cli_reports_without_traceback(tmp_path):
    path = tmp_path / "ops.yaml"
    path.write_text(GOOD + "  colour: red\n")
    r = subprocess.run([sys.executable, "-m", "codegen", "--check", "--ops", str(path), "--native", str(ROOT / "native")],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1
    assert r.stderr.strip() == "error: ops.yaml:4: unknown key 'colour'"
    assert "Traceback" not in r.stderr


def test_check_passes_on_the_real_yaml():
    r = subprocess.run([sys.executable, "-m", "codegen", "--check"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "ops OK" in r.stdout


def test_generation_is_deterministic():
    m = model.load(ROOT / "ops", ROOT / "native")
    first, second = emit.render(m, ROOT / "native"), emit.render(m, ROOT / "native")
    assert first == second
    assert set(first) == set(emit.OUTPUTS) - {emit.FFI_OUTPUT} - set(emit.FFI_OP_OUTPUTS)
    assert emit.ffi_sources(emit.ffi_specs(m, first["cdef.h"])) == emit.ffi_sources(emit.ffi_specs(m, second["cdef.h"]))


def test_generated_files_carry_a_header(tmp_path):
    m = model.load(ROOT / "ops", ROOT / "native")
    d = derivatives.load(ROOT / "derivatives", m)
    for name, text in emit.render(m, ROOT / "native", d).items():
        first = text.splitlines()[0]
        assert "generated from " in first and "by codegen — do not edit" in first, name


def test_write_if_changed_keeps_mtime(tmp_path):
    f = tmp_path / "x.c"
    assert emit.write_if_changed(f, "a")
    before = f.stat().st_mtime_ns
    assert not emit.write_if_changed(f, "a")
    assert f.stat().st_mtime_ns == before


def test_every_kernel_op_declares_its_kernel_prototype():
    m = model.load(ROOT / "ops", ROOT / "native")
    header = emit.render(m, ROOT / "native")["loom_ops.h"]
    for op in m.ops:
        if op.kind == "kernel":
            assert f"lm_cpu_{op.kernel}(" in header


def test_schema_grammar_round_trip():
    from codegen.schema import Schema
    s = Schema.parse("sum.dim(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    assert s.full_name == "sum.dim"
    assert [a.name for a in s.args] == ["self", "dim", "keepdim", "dtype"]
    assert str(s.args[1].type) == "int[1]?" and s.args[3].kwonly
    s = Schema.parse("copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)")
    assert s.args[0].type.mutable and s.returns[0].type.mutable


D_GOOD = "- name: neg(Tensor self) -> Tensor\n  self: -grad\n"
D_BAD = [
    ("unknown op", "- name: negate(Tensor self) -> Tensor\n  self: -grad\n", 1, r"no op 'negate' in ops/"),
    ("signature mismatch", "- name: neg(Tensor self, int k) -> Tensor\n  self: -grad\n", 1,
     r"signature does not match the one in ops/ for neg"),
    ("unknown argument in formula", "- name: neg(Tensor self) -> Tensor\n  self: -grad * other\n", 2,
     r"formula for 'self' names 'other', which is not an argument of neg"),
    ("misspelled helper", "- name: sum(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)"
     " -> Tensor\n  self: sum_backwards(grad, self.shape, dim, keepdim)\n", 2, r"did you mean 'sum_backward'"),
    ("formula for a non-input", "- name: neg(Tensor self) -> Tensor\n  other: grad\n", 2,
     r"'other' is not a Tensor argument of neg"),
    ("missing formula", "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grad * other\n", 1,
     r"no formula for input 'other' of mul.Tensor"),
    ("not Python", "- name: neg(Tensor self) -> Tensor\n  self: grad +* 2\n", 2, r"not a Python expression"),
    ("composite takes no entry",
     "- name: zeros_like(Tensor self, *, ScalarType? dtype=None, Device? device=None, MemoryFormat? memory_format=None)"
     " -> Tensor\n"
     "  self: grad\n", 1, r"is composite"),
    ("duplicate entry", D_GOOD + D_GOOD, 3, r"duplicate entry for neg"),
    ("calls an argument", "- name: softmax_backward(Tensor grad_output, Tensor output, int dim) -> Tensor\n"
     "  grad_output: dim(grad)\n  output: grad\n", 2,
     r"formula for 'grad_output' calls 'dim', an argument of softmax_backward and no loom op"),
    ("mask of one input", "- name: neg(Tensor self) -> Tensor\n  self: grad if grad_input_mask[0] else None\n", 2,
     r"'grad_input_mask' \(which of the inputs need a gradient\) is for a formula of several inputs"),
    ("several inputs not adjacent", "- name: where.self(Tensor condition, Tensor self, Tensor other) -> Tensor\n"
     "  self: where(condition, grad, 0.0)\n  condition, other: (None, grad)\n", 3,
     r"'condition, other' is not \(the Tensor arguments there are condition, self, other\)"),
]


@pytest.mark.parametrize("name,text,line,pattern", D_BAD, ids=[b[0] for b in D_BAD])
def test_malformed_derivatives(tmp_path, name, text, line, pattern):
    m = model.load(ROOT / "ops", ROOT / "native")
    path = tmp_path / "derivatives.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        _load_partial(path, m)
    assert str(err.value).startswith(f"derivatives.yaml:{line}: "), str(err.value)
    assert err.match(pattern)


def _load_partial(path, m):
    """Load one entry as if the rest of the real file were there (so only the entry's own errors show)."""
    real = "\n".join(p.read_text() for p in sorted((ROOT / "derivatives").glob("*.yaml")))
    text = path.read_text()
    own = {line.split("(")[0].split("name: ")[1] for line in text.splitlines() if line.startswith("- name:")}
    kept = [e for e in real.split("\n- name: ")[1:] if e.split("(")[0] not in own]
    path.write_text(text + "".join("\n- name: " + e for e in kept))
    return derivatives.load(path, m)


def test_differentiable_op_without_entry_is_an_error(tmp_path):
    m = model.load(ROOT / "ops", ROOT / "native")
    shutil.copytree(ROOT / "derivatives", tmp_path / "derivatives")
    path = tmp_path / "derivatives"
    f = path / "pointwise.yaml"
    f.write_text(f.read_text().replace("- name: exp(Tensor self) -> Tensor\n  self: grad * conj(result)\n", ""))
    with pytest.raises(SpecError, match=r"exp is differentiable but has no entry"):
        derivatives.load(path, m)


def test_a_call_of_an_op_an_argument_shadows_calls_the_op():
    """A formula of an op with an argument `pad` calling `pad(grad, pad)`: the call is loom's pad,
    the argument stays the list."""
    from types import SimpleNamespace
    from codegen import agen
    from codegen.schema import Schema
    d = SimpleNamespace(op=SimpleNamespace(schema=Schema.parse("f(Tensor self, int[] pad, str mode) -> Tensor")))
    assert agen.qualified(d, "pad(grad, pad, mode)") == "_ops.pad(grad, pad, mode)"
    assert agen.qualified(d, "neg(pad(grad,\n pad(1), mode))") == "neg(_ops.pad(grad,\n _ops.pad(1), mode))"
    assert agen.qualified(d, "grad * len(pad)") == "grad * len(pad)"


# ---- composites are Python functions in python/loom/_composites/FAMILY.py

COMPOSITE_BAD = [
    ("a body in the YAML", "- func: twice(Tensor self) -> Tensor\n  composite: |\n    return self + self\n",
     r"a composite's body is a Python function now: write it as def twice\(self\) in python/loom/_composites/"),
    ("a missing function", "- func: twice(Tensor self) -> Tensor\n  composite: shape.twice\n",
     r"composite shape.twice: no function 'twice' in python/loom/_composites/shape.py"),
    ("a missing module", "- func: twice(Tensor self) -> Tensor\n  composite: nosuch.twice\n",
     r"composite nosuch.twice: no module python/loom/_composites/nosuch.py"),
    ("parameters that differ", "- func: twice(Tensor self, int n) -> Tensor\n  composite: activations.mish\n",
     r"composite activations.mish \(python/loom/_composites/activations.py\) takes \(self\); "
     r"the schema's arguments are \(self, n\)"),
]


@pytest.mark.parametrize("name,text,pattern", COMPOSITE_BAD, ids=[b[0] for b in COMPOSITE_BAD])
def test_a_composite_names_a_function_with_the_schemas_arguments(tmp_path, name, text, pattern):
    path = tmp_path / "ops.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        model.load(path, ROOT / "native")
    assert str(err.value).startswith("ops.yaml:2: "), str(err.value)
    assert err.match(pattern)


@pytest.mark.parametrize("text", [
    "- func: mish(Tensor self) -> Tensor\n  composite: activations.mish\n  dtype_check: other\n",
    "- func: neg(Tensor self) -> Tensor\n  pointwise: neg\n  dtype_check: body\n"],
    ids=["not-an-argument", "not-a-composite"])
def test_dtype_check_names_a_composites_tensor_argument_or_body(tmp_path, text):
    path = tmp_path / "ops.yaml"
    path.write_text(text)
    with pytest.raises(SpecError, match=r"^ops.yaml:3: 'dtype_check' is for composites: a Tensor argument "
                                        r"\(self\) or 'body'"):
        model.load(path, ROOT / "native")


def test_a_composite_checks_the_argument_dtype_check_names(tmp_path):
    from codegen import pygen
    path = tmp_path / "ops.yaml"
    path.write_text("- func: mish(Tensor self) -> Tensor\n  composite: activations.mish\n  dtypes: floating\n"
                    "- func: addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor\n"
                    "  composite: pointwise.addcmul\n  dtypes: floating\n  dtype_check: tensor1\n"
                    "- func: cdist(Tensor x1, Tensor x2, float p=2.0, str? compute_mode=None) -> Tensor\n"
                    "  composite: everyday.cdist\n  dtypes: floating\n  dtype_check: body\n"
                    "- func: fliplr(Tensor self) -> Tensor\n  composite: shape.fliplr\n"
                    "  dtypes: [all_and_complex, barebones_unsigned]\n")
    checked = {op.name: pygen.dtype_checked(op) for op in model.load(path, ROOT / "native").ops}
    assert checked["mish"].name == "self" and checked["addcmul"].name == "tensor1"
    assert checked["cdist"] is None and checked["fliplr"] is None   # its body's own words; every dtype


def test_an_error_inside_a_composite_keeps_its_frames():
    """A composite's body is real code: its traceback points at python/loom/_composites/."""
    import traceback
    import loom
    try:
        loom.ones(3).fliplr()
    except RuntimeError as e:
        frames = [f.filename for f in traceback.extract_tb(e.__traceback__)]
        assert str(e).startswith("fliplr(): Input must be >= 2-d.")
    else:
        raise AssertionError("fliplr of a 1-d tensor must raise")
    assert any(f.endswith("python/loom/_composites/shape.py") or f.endswith("loom/_composites/shape.py") for f in frames), frames


# ---- python_module: places an op's function in loom.special (and linalg, fft, nn.functional)

def test_python_module_errors_name_the_line(tmp_path):
    path = tmp_path / "ops.yaml"
    path.write_text("- func: neg(Tensor self) -> Tensor\n  pointwise: neg\n  python_module: specal\n")
    with pytest.raises(SpecError, match=r"^ops.yaml:3: unknown python_module 'specal' \(did you mean 'special'\?\)"):
        model.load(path, ROOT / "native")
    path.write_text("- func: neg(Tensor self) -> Tensor\n  pointwise: neg\n  python_module: special.x\n"
                    "- func: exp(Tensor self) -> Tensor\n  pointwise: exp\n  python_module: special.x\n")
    with pytest.raises(SpecError, match=r"^ops.yaml:4: loom.special.x is already neg \(ops.yaml:1\)"):
        model.load(path, ROOT / "native")


def test_python_module_places_the_function():
    import loom
    import loom.special
    m = model.load(ROOT / "ops", ROOT / "native")
    placed = {alias: op.name for op in m.ops for module, alias in op.python_module if module == "special"}
    assert set(loom.special.__all__) == set(placed)
    for alias, name in placed.items():
        assert getattr(loom.special, alias) is getattr(loom, name), alias
    assert placed["erfcx"] == "special_erfcx" and placed["gammaln"] == "lgamma" and placed["psi"] == "digamma"
