"""python -m codegen --explain NAME: what the generator makes of one op."""
from pathlib import Path

from . import agen, cgen, pygen
from .errors import did_you_mean
from .model import DTYPES


def explain(model, derivs, name, native):
    ops = [o for o in model.ops if o.name == name or o.schema.full_name == name]
    if not ops:
        names = {o.name for o in model.ops}
        return f"no op '{name}' in ops/{did_you_mean(name, names)}"
    by = {d.op.schema.full_name: d for d in derivs}
    out = []
    for op in ops:
        s = op.schema
        out.append(f"{s.full_name}{pygen._sig_text(op)} -> {', '.join(str(r.type) for r in s.returns)}")
        out.append(f"  {op.file} line {op.line}; kind: {op.kind}")
        py = [f"loom.{op.name}(...)"] if "function" in op.variants else []
        py += [f"Tensor.{op.name}(...)"] if "method" in op.variants else []
        py += [f"Tensor.{op.name}_(...)"] if "inplace" in op.variants else []
        py += [f"loom.{op.name}(..., out=)"] if "out" in op.variants else []
        py += list(op.operators)
        out.append(f"  Python: {', '.join(py)}")
        if op.kind == "composite":
            out.append("  composite: no C entry; autograd goes through its parts")
            out.append(f"  cuda: {CUDA_COVERAGE[op.cuda](op, cgen)}")
        else:
            out.append(f"  C entries: {'; '.join(d for d, _ in cgen.entry_decls(op))}")
            out.append(f"  dispatch: cpu x {{{', '.join(d for d in DTYPES if d in op.dtypes)}}}"
                       f" (shard ops_shard{cgen.shard(op)}.c; Python calls it through loom._C_ops{cgen.ffi_module(op)})")
            where = {"pointwise": f"native/kernels/pointwise/{op.kernel}.h (LM_PW_{op.kernel})",
                     "reduction": f"native/kernels/reduce/{op.kernel}.h (LM_RED_{op.kernel}_*)",
                     "kernel": f"{cgen.kernel_decl(op)} in {_defined_in(native, op.kernel)}"}[op.kind]
            out.append(f"  kernel: {where}")
            out.append(f"  cuda: {CUDA_COVERAGE[op.cuda](op, cgen)}")
            if op.kind == "pointwise":
                out.append(f"  promotion: {op.promote}")
                if op.check:
                    out.append(f"  check before the loop: {cgen.check_call(op)}")
        d = by.get(s.full_name)
        if d is None:
            out.append("  autograd: " + ("through its parts" if op.kind == "composite" else "none (no entry)"))
        elif d.non_differentiable:
            out.append("  autograd: non_differentiable")
        else:
            saves = [f"{n} (shape/dtype only)" if n in d.saved_meta else n for n in d.saved]
            out.append(f"  autograd: node {agen.node_name(d)}, saves {', '.join(saves) or 'nothing'}")
            for f in d.formulas:
                out.append(f"    d/d{', '.join(f.inputs)}: {f.expr}   ({d.file} line {f.line})")
            for n in d.not_implemented:
                out.append(f"    d/d{n}: not implemented (a call where it requires grad is refused)")
            out.append(f"    forward mode: {d.forward.expr if d.forward else 'derived from the backward formulas'}")
        tests = ["test_ops_generated (values, variants)" if "ref" in op.test else None,
                 "test_ops_random" if op.test.get("nondeterministic") else None,
                 "test_autograd_generated (gradcheck, forward mode, PyTorch)" if d is not None and d.formulas else None,
                 "test_errors / test_errors_generated", "test_ops_variants" if op.kind != "composite" else None]
        out.append(f"  tests: {', '.join(t for t in tests if t)}")
    return "\n".join(out)


CUDA_COVERAGE = {
    "generated": lambda op, c: f"generated from the same body, every listed dtype (cuda_shard{c.cuda_shard(op)}.cu)",
    "shared": lambda op, c: f"lm_cpu_{op.kernel} serves it too (`cuda: same`)",
    "own": lambda op, c: f"lm_cuda_{op.kernel} (native/cuda/host_*.c)",
    "fallback": lambda op, c: f"host fallback: lm_cpu_{op.kernel} on host copies, results moved back (slow)",
    "composite": lambda op, c: "through its parts (a composite)",
    "": lambda op, c: "none: CUDA tensors get NotImplementedError (its results are views)",
}


def _defined_in(native, kernel):
    for p in sorted(Path(native).glob("cpu/*.c")):
        if f"lm_cpu_{kernel}(" in p.read_text():
            return f"native/cpu/{p.name}"
    return "native/cpu/?"
