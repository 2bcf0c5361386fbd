"""Scaffold a new operator: the ops/FAMILY.yaml entry, the derivatives/FAMILY.yaml entry and
the kernel file, each with placeholders that fail the build until filled in
(never a silent zero gradient).

    python tools/new_op.py NAME --kind {unary,binary,reduction,composite} [--family F] [--root DIR]

The family (the file under ops/ and derivatives/) defaults to the kind's:
pointwise for unary, binary and composite ops, reduction for reductions.
"""
import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILL = "FILL_IN"   # not a name the generator knows: the build stops at it with file:line

KINDS = {
    "unary": dict(sig="{n}(Tensor self) -> Tensor", kernel="pointwise", args="self",
                  deriv={"self": f"{FILL}(grad, self)"}),
    "binary": dict(sig="{n}(Tensor self, Tensor other) -> Tensor", kernel="pointwise", args="self, other",
                   deriv={"self": f"{FILL}(grad, self, other)", "other": f"{FILL}(grad, self, other)"}),
    "reduction": dict(sig="{n}(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", kernel="reduction",
                      deriv={"self": f"{FILL}(grad, self, dim, keepdim)"}),
    "composite": dict(sig="{n}(Tensor self) -> Tensor", kernel="composite"),
}


def kernel_file(root, name, kind):
    k = KINDS[kind]
    if k["kernel"] == "pointwise":
        path = root / "native/kernels/pointwise" / f"{name}.h"
        text = (f"/* {name}: TODO say what it computes */\n"
                f"#error \"{path.relative_to(root)}: write the scalar body of {name}, then delete this line\"\n"
                f"#define LM_PW_{name}(T, {k['args']}) ({FILL})\n")
    elif k["kernel"] == "reduction":
        path = root / "native/kernels/reduce" / f"{name}.h"
        text = (f"/* {name}: TODO say what it reduces to */\n"
                f"#error \"{path.relative_to(root)}: write identity and combine for {name}, then delete this line\"\n"
                f"#define LM_RED_{name}_IDENTITY(T) ((T)0)\n"
                f"#define LM_RED_{name}_COMBINE(T, a, b) ({FILL})\n"
                f"#define LM_RED_{name}_NONEMPTY false\n")
    else:
        return None, None
    return path, text


def composite_stub(root, name, family):
    """(module, text to append): the composite's function, a placeholder that refuses to run."""
    path = root / "python/loom/_composites" / f"{family}.py"
    head = "" if path.exists() else (f'"""Composite ops of ops/{family}.yaml (see ops/README.md)."""\n'
                                     "from .. import _ops  # noqa: F401  (the other ops, as _ops.NAME)\n")
    return path, (head + f"\n\ndef {name}(self):\n"
                  f"    raise NotImplementedError(\"{name}: write its body with other loom ops (_ops.NAME)\")\n")


def ops_entry(name, kind):
    k = KINDS[kind]
    # a pointwise op gets every variant for free (as PyTorch's do); reductions and composites have no out=
    variants = "function, method, inplace" if k["kernel"] == "pointwise" else "function, method"
    lines = [f"\n- func: {k['sig'].format(n=name)}", f"  variants: {variants}"]
    if k["kernel"] == "composite":
        lines.append("  composite: true")
    else:
        lines.append(f"  {k['kernel']}: {name}")
    lines += [f"  doc: TODO one line on what {name} computes.",
              f"  test: {{ref: \"{FILL}\"}}   # a NumPy expression over the argument names"]
    return "\n".join(lines) + "\n"


def derivs_entry(name, kind):
    k = KINDS[kind]
    if "deriv" not in k:
        return None
    lines = [f"\n- name: {k['sig'].format(n=name)}"] + [f"  {a}: {f}" for a, f in k["deriv"].items()]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name")
    ap.add_argument("--kind", required=True, choices=sorted(KINDS))
    ap.add_argument("--family", help="the ops/ and derivatives/ file to add to (default: by kind)")
    ap.add_argument("--root", default=str(ROOT), help="the loom checkout to add the op to")
    args = ap.parse_args(argv)
    root, name = Path(args.root), args.name
    family = args.family or ("reduction" if args.kind == "reduction" else "pointwise")
    if not re.match(r"^[a-z][a-z0-9_]*$", name) or not re.match(r"^[a-z][a-z0-9_]*$", family):
        ap.error(f"'{name}' is not a lower_snake_case op name" if not re.match(r"^[a-z][a-z0-9_]*$", name)
                 else f"'{family}' is not a lower_snake_case family name")
    for f in sorted((root / "ops").glob("*.yaml")):
        if re.search(rf"^- func: {re.escape(name)}[.(]", f.read_text(), re.M):
            ap.error(f"'{name}' is already in ops/{f.name}")
    written = []
    path, text = kernel_file(root, name, args.kind)
    if args.kind == "composite":
        mod, stub = composite_stub(root, name, family)
        if mod.exists() and re.search(rf"^def {re.escape(name)}\(", mod.read_text(), re.M):
            ap.error(f"{mod} already defines {name}")
        mod.parent.mkdir(parents=True, exist_ok=True)
        with open(mod, "a") as f:
            f.write(stub)
        written.append(f"{mod.relative_to(root)}: the body of {name} (a function of the schema's arguments)")
    if path is not None:
        if path.exists():
            ap.error(f"{path} already exists")
        path.write_text(text)
        written.append(f"{path.relative_to(root)}: the kernel body (and delete its #error line)")
    with open(root / "ops" / f"{family}.yaml", "a") as f:
        f.write(ops_entry(name, args.kind))
    written.append(f"ops/{family}.yaml: the doc, dtypes if not all, and test.ref (a NumPy expression)")
    d = derivs_entry(name, args.kind)
    if d:
        with open(root / "derivatives" / f"{family}.yaml", "a") as f:
            f.write(d)
        written.append(f"derivatives/{family}.yaml: the formula for each input (replace {FILL}), or non_differentiable")
    print(f"added '{name}' ({args.kind}). Fill in:")
    for w in written:
        print(f"  - {w}")
    print("then: python -m codegen --check, and rebuild (an editable install rebuilds on import).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
