"""python -m codegen: validate the YAML and write the generated sources.

    python -m codegen --check                 validate only
    python -m codegen --explain NAME          what is generated for an op
    python -m codegen --out DIR [--depfile F] generate into DIR
    python -m codegen --docs docs/ops.md      the operator reference
    python -m codegen --list-outputs          the names of the generated files
"""
import argparse
import sys
from pathlib import Path

from . import derivatives, emit, model
from .errors import SpecError


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m codegen")
    ap.add_argument("--ops", default=str(emit.ROOT / "ops"), help="the ops folder (one YAML file per family) or a file")
    ap.add_argument("--derivatives", default=None, help="default: derivatives/ (or derivatives.yaml) beside --ops")
    ap.add_argument("--native", default=str(emit.ROOT / "native"))
    ap.add_argument("--out", help="directory for the generated files")
    ap.add_argument("--depfile")
    ap.add_argument("--check", action="store_true", help="validate the YAML and exit")
    ap.add_argument("--explain", metavar="NAME", help="print what is generated for an op")
    ap.add_argument("--docs", metavar="FILE", help="write the operator reference (Markdown) to FILE")
    ap.add_argument("--list-outputs", action="store_true", help="print the generated file names (for meson)")
    args = ap.parse_args(argv)
    if args.list_outputs:
        print("\n".join(emit.OUTPUTS))
        return 0
    ops = Path(args.ops)
    derivs_path = args.derivatives or str(ops.with_name("derivatives" if ops.is_dir() else "derivatives.yaml"))
    try:
        m = model.load(args.ops, args.native)
        d = derivatives.load(derivs_path, m)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.explain:
        from .explain import explain
        text = explain(m, d, args.explain, args.native)
        print(text, file=sys.stderr if text.startswith("no op") else sys.stdout)
        return 1 if text.startswith("no op") else 0
    if args.docs:
        from .docs import write
        print(f"wrote {write(m, d, args.ops, args.docs)}")
        return 0
    if args.check:
        print(f"{args.ops}: {len(m.ops)} ops OK; {derivs_path}: {len(d)} derivatives OK")
        return 0
    if not args.out:
        ap.error("--out is required unless --check is given")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = emit.render(m, args.native, d)
    files.update(emit.ffi_sources(emit.ffi_specs(m, files["cdef.h"])))
    for name in emit.OUTPUTS:
        emit.write_if_changed(out / name, files[name])
    if args.depfile:
        deps = " ".join(str(p).replace(" ", "\\ ") for p in emit.inputs(args.native, args.ops, derivs_path))
        emit.write_if_changed(args.depfile, f"{out / emit.OUTPUTS[0]}: {deps}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
