"""The editable workflow's incremental rebuild after adding one pointwise op.

    python tools/bench/rebuild.py [--source DIR] [--keep DIR] [--repeat N]

Copies the checkout to a temporary directory, installs the copy editable
into a throwaway venv (tools/sandbox.py), imports loom once (the full build),
then N times: adds a unary pointwise op with tools/new_op.py, fills in its
placeholders (kernel, formula, test reference) and times the `import loom`
that rebuilds it. Prints each time, what ninja recompiled, and the median.
Target: <= 5 s on the 2-core development machine.
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import sandbox  # noqa: E402


def add_op(root, name):
    """tools/new_op.py NAME --kind unary, then what its printout asks for."""
    r = subprocess.run([sys.executable, str(root / "tools/new_op.py"), name, "--kind", "unary", "--root", str(root)],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit(r.stderr)
    (root / f"native/kernels/pointwise/{name}.h").write_text(
        f"/* {name}: x * x * x */\n#define LM_PW_{name}(T, self) ((self) * (self) * (self))\n")
    for file, old, new in (("derivatives/pointwise.yaml", "FILL_IN(grad, self)", "3 * grad * self * self"),
                           ("ops/pointwise.yaml", 'ref: "FILL_IN"', 'ref: "self ** 3"')):
        p = root / file
        p.write_text(p.read_text().replace(old, new))


def ninja_steps(build):
    """Per output, the latest (start, end) in ms from the build dir's .ninja_log."""
    steps = []
    for line in (build / ".ninja_log").read_text().splitlines()[1:]:
        start, end, _, out, _ = line.split("\t")
        steps.append((int(start), int(end), out))
    return steps


def timed_import(python, env):
    t = time.perf_counter()
    r = subprocess.run([str(python), "-c", "import loom"], capture_output=True, text=True, env=env)
    if r.returncode:
        sys.exit(f"import loom failed:\n{r.stderr[-4000:]}")
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default=str(sandbox.ROOT), help="the checkout to copy (default: this one)")
    ap.add_argument("--keep", help="work in this (new) directory and leave it behind")
    ap.add_argument("--repeat", type=int, default=3, help="ops to add one after the other")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="loom-rebuild-"))
    root = sandbox.copy_tree(work / "src", args.source)
    python = sandbox.make_venv(work / "venv")
    env = sandbox.bin_env(python)
    t = time.perf_counter()
    r = sandbox.pip_install(python, root, editable=True, env=env)
    if r.returncode:
        sys.exit(f"editable install failed:\n{r.stdout[-2000:]}{r.stderr[-4000:]}")
    timed_import(python, env)   # the first import finishes anything the install left
    print(f"full build (editable install + first import): {time.perf_counter() - t:.1f} s")
    print(f"import loom, nothing changed: {timed_import(python, env):.2f} s")
    build = next((root / "build").iterdir())
    times = []
    for i in range(args.repeat):
        name = f"bench_cube{i}"
        add_op(root, name)
        before = len(ninja_steps(build))
        dt = timed_import(python, env)
        times.append(dt)
        steps = ninja_steps(build)[before:]
        compiled = ", ".join(f"{Path(out).name.replace('meson-generated_..', '')} {(e - s) / 1000:.1f}s"
                             for s, e, out in steps if out.endswith(".o"))
        print(f"add {name}: import loom {dt:.2f} s; compiled: {compiled}")
    print(f"incremental rebuild after adding one pointwise op: median {statistics.median(times):.2f} s "
          f"(target <= 5 s: {'met' if statistics.median(times) <= 5 else 'MISSED'})")
    if not args.keep:
        import shutil
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
