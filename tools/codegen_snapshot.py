"""The codegen snapshot: a hash and a short summary of every file the generator
makes from the fixed fixture in tests/fixtures/codegen (see its README), so a
change to the generator's output is a visible, reviewed diff of snapshot.txt.

    python tools/codegen_snapshot.py            compare with snapshot.txt (exit 1 on a difference)
    python tools/codegen_snapshot.py --update   rewrite snapshot.txt after a deliberate change
    python tools/codegen_snapshot.py --out DIR  write the generated files, to read or diff them

The cffi modules are summarised by what loom gives cffi (module name, cdef,
preamble), not by cffi's output, which changes with the cffi version.
"""
import argparse
import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from codegen import derivatives, emit, model  # noqa: E402

FIXTURE = ROOT / "tests/fixtures/codegen"
SNAPSHOT = FIXTURE / "snapshot.txt"
UPDATE = "python tools/codegen_snapshot.py --update"
HEADER = (f"# the generator's output for tests/fixtures/codegen: file, sha256 (16 hex), lines, what it defines.\n"
          f"# Checked by tests/test_codegen_snapshot.py; after a deliberate generator change: {UPDATE}\n")


def generate():
    """{file name: text} for the fixture; cffi modules as their inputs."""
    m = model.load(FIXTURE / "ops.yaml", FIXTURE / "native")
    d = derivatives.load(FIXTURE / "derivatives.yaml", m)
    files = emit.render(m, FIXTURE / "native", d)
    for name, spec in emit.ffi_specs(m, files["cdef.h"]).items():
        files[name] = f"/* cffi input */\nmodule {spec.module}\n/* cdef */\n{spec.cdef}/* preamble */\n{spec.preamble}"
    return files


def summary(name, text):
    if name.endswith((".c", ".h")):
        entries = sorted(set(re.findall(r"^(?:lm_tensor \*|int )(lm_op_\w+)\(", text, re.M)))
        return "entries: " + (" ".join(e[len("lm_op_"):] for e in entries) if entries else "-")
    defs = re.findall(r"^\s*def (\w+)\(", text, re.M)
    classes = re.findall(r"^class (\w+)", text, re.M)
    return f"{len(defs)} defs, {len(classes)} classes"


def snapshot(files):
    rows = [f"{name}  {hashlib.sha256(text.encode()).hexdigest()[:16]}  {text.count(chr(10))}  {summary(name, text)}"
            for name, text in sorted(files.items())]
    return HEADER + "\n".join(rows) + "\n"


def differences(want, got):
    """Lines naming each file that was added, removed or changed."""
    def rows(text):
        return {line.split("  ")[0]: line for line in text.splitlines() if line and not line.startswith("#")}
    w, g = rows(want), rows(got)
    out = [f"  changed: {n}\n    was  {w[n]}\n    now  {g[n]}" for n in sorted(w.keys() & g.keys()) if w[n] != g[n]]
    out += [f"  new:     {g[n]}" for n in sorted(g.keys() - w.keys())]
    out += [f"  gone:    {w[n]}" for n in sorted(w.keys() - g.keys())]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="rewrite snapshot.txt")
    ap.add_argument("--out", help="write the generated files into this directory")
    args = ap.parse_args(argv)
    files = generate()
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (out / name).write_text(text)
        print(f"wrote {len(files)} files to {out}")
        return 0
    got = snapshot(files)
    if args.update:
        emit.write_if_changed(SNAPSHOT, got)
        print(f"wrote {SNAPSHOT} ({len(files)} files)")
        return 0
    diff = differences(SNAPSHOT.read_text() if SNAPSHOT.exists() else "", got)
    if diff:
        print("the generated output for the fixture differs from the snapshot:\n" + "\n".join(diff)
              + f"\nif the change is deliberate: {UPDATE}, and commit the snapshot with it", file=sys.stderr)
        return 1
    print(f"snapshot matches ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
