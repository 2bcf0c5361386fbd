"""Run by tests/test_leaks.py in a fresh interpreter: training loops and graph churn, printing
loom's live tensor/storage/byte counts (lm_memory_stats) and the process RSS after warm-up and
after each round, as JSON."""
import gc
import json
import os
import sys

import numpy as np

import loom
from loom import nn
from loom._C import ffi, lib


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def stats():
    out = ffi.new("int64_t[4]")
    lib.lm_memory_stats(out)
    return list(out)[:3]   # live tensors, storages, bytes (the allocator's cache is allowed to vary)


def mlp():
    loom.manual_seed(0)
    m = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = loom.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    x, y = loom.randn(8, 16), loom.randn(8, 4)

    def step():
        opt.zero_grad()
        nn.functional.mse_loss(m(x), y).backward()
        opt.step()
    return step


def cnn():
    loom.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(4 * 4 * 4, 3))
    opt = loom.optim.Adam(m.parameters(), lr=1e-3)
    x, y = loom.randn(4, 1, 8, 8), loom.tensor([0, 1, 2, 1])

    def step():
        opt.zero_grad()
        nn.functional.cross_entropy(m(x), y).backward()
        opt.step()
    return step


def graph_step(keep=None):
    x = loom.randn(4, 3, requires_grad=True)
    v = x.view(12)[2:8]
    y = (v * 2).exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    a = x.detach().numpy()
    b = loom.from_numpy(a.copy()) + 1
    loom.tensor(np.asarray(b) * 2)
    if keep is not None:
        keep.append(b)   # loom-allocated (c wraps the NumPy result's memory)


def measure(step, warmup, rounds, per_round):
    for _ in range(warmup):
        step()
    gc.collect()
    out = {"start": [rss(), stats()], "rounds": []}
    for _ in range(rounds):
        for _ in range(per_round):
            step()
        gc.collect()
        out["rounds"].append([rss(), stats()])
    return out


def main():
    which = sys.argv[1:]
    result = {}
    if "mlp" in which:
        result["mlp"] = measure(mlp(), 1000, 5, 2000)        # 10,000 steps after warm-up
    if "cnn" in which:
        result["cnn"] = measure(cnn(), 300, 4, 500)          # 2,000 steps
    if "graphs" in which:
        result["graphs"] = measure(graph_step, 2000, 4, 5000)   # 20,000 graphs
    if "leaky" in which:   # the check's own check: a loop that keeps one tensor per step is seen
        keep = []
        result["leaky"] = measure(lambda: graph_step(keep), 100, 2, 500)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
