"""Per-sample gradients of the digits MLP (64-128-128-10, batch 64) with vmap(grad), against a
Python loop of single-sample backwards and against torch.func, one library per process.

    python tools/bench/func.py [--threads N] [--runs R]
"""
import argparse
import statistics
import subprocess
import sys
import time

BATCH, REPS = 64, 20


def child(lib, threads, runs):
    mod = __import__(lib)
    mod.set_num_threads(threads)
    fn = mod.func
    F = mod.nn.functional
    mod.manual_seed(0)
    model = mod.nn.Sequential(mod.nn.Linear(64, 128), mod.nn.ReLU(), mod.nn.Linear(128, 128), mod.nn.ReLU(),
                              mod.nn.Linear(128, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = mod.randn(BATCH, 64)
    y = mod.randint(0, 10, (BATCH,))

    def loss(p, xi, yi):
        return F.cross_entropy(fn.functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))
    per_sample = fn.vmap(fn.grad(loss), in_dims=(None, 0, 0))

    def loop():
        out = []
        for i in range(BATCH):
            model.zero_grad()
            F.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
            out.append([p.grad.clone() for p in model.parameters()])
        return out

    for name, job in (("vmap(grad)", lambda: per_sample(params, x, y)), ("loop", loop)):
        reps = REPS if name != "loop" else 3
        job()
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            for _ in range(reps):
                job()
            times.append((time.perf_counter() - t0) / reps)
        print(f"{lib} {name} {statistics.median(times) * 1e6:.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.threads, args.runs)
    res = {}
    for lib in ("loom", "torch"):
        out = subprocess.run([sys.executable, __file__, "--child", lib, "--threads", str(args.threads),
                              "--runs", str(args.runs)], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            lib_, *name, us = line.split()
            res[(lib_, " ".join(name))] = float(us)
    for (lib, name), us in res.items():
        print(f"{lib:6s} {name:12s} {us:10.1f} us per batch of {BATCH} (median of {args.runs})")
    lv, ll, tv = res[("loom", "vmap(grad)")], res[("loom", "loop")], res[("torch", "vmap(grad)")]
    print(f"loom vmap(grad) vs loom loop: {ll / lv:.1f}x (target >= 5x)")
    print(f"loom vmap(grad) vs torch.func: {tv / lv:.2f}x (target >= 1.0x)")


if __name__ == "__main__":
    main()
