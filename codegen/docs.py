"""python -m codegen --docs FILE: the operator reference (Markdown), from the
same model as the code: signatures, doc strings, Python variants, dtypes,
kernels, and derivative formulas."""
import re
from pathlib import Path

from . import pygen
from .model import DTYPES

HEADER = ("<!-- generated from ops/ and derivatives/ by codegen — do not edit; "
          "regenerate with: python -m codegen --docs docs/ops.md -->\n")
SECTION = re.compile(r"^# -{8,}\s*(.+?)\s*$")


def _default(v):
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_default(x) for x in v) + "]"
    return repr(v)


def schema_text(op):
    parts, star = [], False
    for a in op.schema.args:
        if a.kwonly and not star:
            parts.append("*")
            star = True
        parts.append(f"{a.type} {a.name}" + (f"={_default(a.default)}" if a.has_default else ""))
    rets = [f"{r.type}{' ' + r.name if r.name else ''}" for r in op.schema.returns]
    ret = rets[0] if len(rets) == 1 else f"({', '.join(rets)})"
    return f"{op.schema.full_name}({', '.join(parts)}) -> {ret}"


def _sections(ops, root):
    """[(section title, [ops])] in declaration order, from each file's `# ----- title` comment lines."""
    marks = {}
    for f in dict.fromkeys(op.file for op in ops):
        text = (Path(root) / f).read_text()
        marks[f] = [(i + 1, m.group(1)) for i, line in enumerate(text.splitlines()) if (m := SECTION.match(line))]
    out = []
    for op in ops:
        title = next((t for ln, t in reversed(marks[op.file]) if ln < op.line), Path(op.file).stem)
        if not out or out[-1][0] != title:
            out.append((title, []))
        out[-1][1].append(op)
    return out


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _python(op):
    out = []
    sig = pygen.signature(op, public=True)
    if "function" in op.variants:
        out.append(f"`loom.{op.name}({sig})`")
    if "method" in op.variants:
        msig = pygen.signature(op, method_self_first=True, with_out=False)
        msig = msig[len("self"):].lstrip(", ") if msig.startswith("self") else msig
        out.append(f"`Tensor.{op.name}({msig})`")
    if "inplace" in op.variants:
        out.append(f"`Tensor.{op.name}_(...)`")
    if op.operators:
        out.append("operators " + ", ".join(f"`{d}`" for d in op.operators))
    if op.aliases:
        out.append("aliases " + ", ".join(f"`{a}`" for a in op.aliases))
    return "; ".join(out) or "(internal: no Python variant)"


def _kernel(op):
    if op.kind == "composite":
        return "composite (a Python body over other ops)"
    where = {"pointwise": f"pointwise, `native/kernels/pointwise/{op.kernel}.h`, promotion `{op.promote}`",
             "reduction": f"reduction, `native/kernels/reduce/{op.kernel}.h`, result dtype `{op.reduce}`"
                          + (", mean" if op.mean else ""),
             "kernel": f"hand-written, `lm_cpu_{op.kernel}` in `native/cpu/`"}
    cuda = {"generated": "CUDA: generated from the same body", "shared": "CUDA: the same kernel",
            "own": f"CUDA: `lm_cuda_{op.kernel}`", "fallback": "CUDA: host fallback (CPU kernel on copies)",
            "composite": "CUDA: through its parts", "": "CUDA: none yet"}[op.cuda]
    return f"{where[op.kind]}; {cuda}"


def _autograd(op, d):
    if d is None:
        return "through its parts" if op.kind == "composite" else "none"
    if d.non_differentiable:
        return "not differentiable"
    rows = [f"`{', '.join(f.inputs)}`: `{_cell(f.expr)}`" for f in d.formulas]
    rows += [f"`{n}`: not implemented (refused when it requires grad)" for n in d.not_implemented]
    rows.append(f"forward mode: `{_cell(d.forward.expr)}`" if d.forward else "forward mode: from the backward formulas")
    return "<br>".join(rows)


def render(model, derivs, root):
    by = {d.op.schema.full_name: d for d in derivs}
    sections = _sections(list(model.ops), root)
    n_diff = sum(1 for d in derivs if d.formulas)
    lines = [HEADER, "# loom operator reference\n",
             f"{len(model.ops)} operators declared in `ops/`, {n_diff} with derivative formulas in "
             "`derivatives/`. Each entry gives the schema (PyTorch's signature grammar), what Python sees, "
             "the dtypes it serves, where its kernel is, and its gradient. `python -m codegen --explain NAME` "
             "shows the generated C and tests of one op.\n"]
    lines.append("## Sections\n")
    for title, ops in sections:
        names = list(dict.fromkeys(op.name for op in ops))
        lines.append(f"- **{title}**: " + ", ".join(f"[{n}](#{_anchor(n)})" for n in names))
    lines.append("")
    for title, ops in sections:
        lines.append(f"## {title}\n")
        seen = set()
        for op in ops:
            if op.name not in seen:
                seen.add(op.name)
                lines.append(f"### {op.name}\n")
            lines.append(f"`{schema_text(op)}`\n")
            if op.doc:
                lines.append(op.doc.strip() + "\n")
            dts = [d for d in DTYPES if d in op.dtypes]
            lines += ["| | |", "|---|---|",
                      f"| Python | {_cell(_python(op))} |",
                      f"| dtypes | {', '.join(dts) if dts else '-'} |",
                      f"| kernel | {_cell(_kernel(op))} |",
                      f"| autograd | {_autograd(op, by.get(op.schema.full_name))} |", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _anchor(name):
    """GitHub's heading anchor for `### name`."""
    return re.sub(r"[^a-z0-9_ -]", "", name.lower()).replace(" ", "-")


def write(model, derivs, ops_path, out):
    from .emit import write_if_changed
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_if_changed(out, render(model, derivs, Path(ops_path).parent))
    return out
