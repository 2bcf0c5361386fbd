"""Issue 17's busy-machine mode: the digits training steps while other processes hold cores.

Starts --competitors processes that spin in pure Python for the whole run (as another job on a
shared machine would), then times the digits MLP and CNN training steps, the official MNIST CNN's
and DCGAN's (tools/bench/nn_workloads.py), one library per process:
loom at 1 thread, loom at --threads, PyTorch at --threads. The targets: loom at --threads is never
slower than loom at 1 thread, nor than PyTorch at --threads. Each figure is the median of --rounds
rounds of 100 steps (10 for DCGAN, 30 for the MNIST CNN, whose steps take tens of milliseconds) (the
median, not the best: a busy machine's cost is in its bad rounds).

    python tools/bench/busy.py [--threads 2] [--competitors 1] [--rounds 7] [--only SUBSTRING]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

STEPS = {"MLP 64-128-128-10 step": 100, "CNN step": 100, "MNIST CNN step": 30, "DCGAN step": 10}


def spin():
    while True:
        pass


def child(lib, threads, rounds, only):
    mod = __import__(lib)
    mod.set_num_threads(threads)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from nn_workloads import _cnn, _digits, _mlp, _trainer, dcgan_trainer, mnist_trainer
    steps = {"MLP 64-128-128-10 step": lambda: _trainer(mod, _mlp, *_digits(), 64)[0],
             "CNN step": lambda: _trainer(mod, _cnn, *_digits(), 64)[0],
             "MNIST CNN step": lambda: mnist_trainer(mod)[0], "DCGAN step": lambda: dcgan_trainer(mod)[0]}
    for name, make in steps.items():
        if only and only not in name:
            continue
        step, n = make(), STEPS[name]
        for _ in range(max(n // 5, 2)):
            step()
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(n):
                step()
            times.append((time.perf_counter() - t0) / n)
        print(f"{name}\t{statistics.median(times) * 1e6:.1f}\t{min(times) * 1e6:.1f}\t{max(times) * 1e6:.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--competitors", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", help="run the workloads whose name contains this")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--spin", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.spin:
        return spin()
    if args.child:
        return child(args.child, args.threads, args.rounds, args.only)
    hogs = [subprocess.Popen([sys.executable, __file__, "--spin"]) for _ in range(args.competitors)]
    results, spread = {}, {}
    try:
        for lib, threads in (("loom", 1), ("loom", args.threads), ("torch", args.threads)):
            env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
            cmd = [sys.executable, __file__, "--child", lib, "--threads", str(threads), "--rounds", str(args.rounds)]
            out = subprocess.run(cmd + (["--only", args.only] if args.only else []), env=env, capture_output=True,
                                 text=True)
            if out.returncode:
                sys.exit(f"{lib} at {threads} threads failed:\n{out.stderr}")
            for line in out.stdout.splitlines():
                name, us, lo, hi = line.split("\t")
                results[(name, lib, threads)] = float(us)
                spread[(name, lib, threads)] = (float(lo), float(hi))
    finally:
        for h in hogs:
            h.kill()
    t = args.threads
    print(f"{args.competitors} competing busy process(es); median of {args.rounds} rounds, us per step "
          f"(the rounds' range below each row)")
    print(f"{'workload':26s} {'loom 1T':>9s} {f'loom {t}T':>9s} {f'torch {t}T':>9s}  {f'loom {t}T vs 1T':>14s}  "
          f"{f'vs torch {t}T':>13s}")
    for name in dict.fromkeys(k[0] for k in results):
        one, many, torch = (results[(name, "loom", 1)], results[(name, "loom", t)], results[(name, "torch", t)])
        print(f"{name:26s} {one:9.1f} {many:9.1f} {torch:9.1f}  {one / many:13.2f}x  {torch / many:12.2f}x  "
              f"{'met' if many <= one * 1.0 and many <= torch else 'MISSED'}")
        ranges = [spread[(name, lib, th)] for lib, th in (("loom", 1), ("loom", t), ("torch", t))]
        print(f"{'':26s} range: " + ", ".join(f"{lo:.0f}-{hi:.0f}" for lo, hi in ranges))


if __name__ == "__main__":
    main()
