"""python -m codegen --docs: the operator reference is generated from the op
model (it is not committed), covers every op, and says what the YAML says."""
import subprocess
import sys

from codegen import derivatives, docs, model
from conftest import ROOT

MODEL = model.load(ROOT / "ops", ROOT / "native")
DERIVS = derivatives.load(ROOT / "derivatives", MODEL)


def test_docs_command_writes_the_reference(tmp_path):
    out = tmp_path / "docs/ops.md"
    r = subprocess.run([sys.executable, "-m", "codegen", "--docs", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert text.splitlines()[0].startswith("<!-- generated from ops/") and "do not edit" in text.splitlines()[0]
    assert text == docs.render(MODEL, DERIVS, ROOT)


def test_every_op_has_its_schema_doc_and_variants():
    text = docs.render(MODEL, DERIVS, ROOT)
    for name in MODEL.by_name():
        assert f"\n### {name}\n" in text and f"(#{docs._anchor(name)})" in text, name
    for op in MODEL.ops:
        assert f"`{docs.schema_text(op)}`" in text, op.schema.full_name
        assert op.doc.strip() in text, op.schema.full_name
        if "function" in op.variants:
            assert f"`loom.{op.name}(" in text
        if "inplace" in op.variants:
            assert f"`Tensor.{op.name}_(...)`" in text


def test_the_reference_states_dtypes_kernels_and_formulas():
    text = docs.render(MODEL, DERIVS, ROOT)
    exp = text[text.index("\n### exp\n"):]
    exp = exp[:exp.index("\n### ", 1)]
    assert "| dtypes | float16, bfloat16, float32, float64, complex64, complex128 |" in exp
    assert "`native/kernels/pointwise/exp.h`, promotion `float`" in exp
    assert "`self`: `grad * conj(result)`" in exp and "forward mode: `self_t * result`" in exp
    mm = text[text.index("\n### mm\n"):]
    assert "`lm_cpu_mm` in `native/cpu/`" in mm[:mm.index("\n### ", 1)]
    for d in DERIVS:
        for f in d.formulas:
            assert f.expr.replace("|", "\\|") in text, (d.op.schema.full_name, f.expr)


def test_schema_text_round_trips_through_the_parser():
    from codegen.schema import Schema
    for op in MODEL.ops:
        again = Schema.parse(docs.schema_text(op))
        assert again == op.schema, op.schema.full_name
