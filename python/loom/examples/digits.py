"""Train an MLP and a small CNN on scikit-learn's bundled 8x8 digits.

    python -m loom.examples.digits [--model mlp|cnn|both] [--epochs N] [--batch-size B] [--lr LR] [--out DIR]
                                   [--device cpu|cuda]
    mpiexec -n 2 python -m loom.examples.digits --distributed     (data parallel: loom[distributed])

Shows a progress bar (loss, samples/s), prints held-out accuracy, saves the
weights with loom.save, reloads them into a fresh model and checks the
accuracy again, and writes a PNG of the training curves to --out.
"""
import argparse
import os
import time

import numpy as np

import loom
from loom import nn
from loom.nn import functional as F
from loom.utils.data import DataLoader, TensorDataset
from loom import distributed as dist
from loom.nn.parallel import DistributedDataParallel
from loom.utils.data.distributed import DistributedSampler

DEFAULTS = {"mlp": dict(epochs=40, lr=1e-3), "cnn": dict(epochs=30, lr=2e-3)}


def load_digits(seed=0, test_fraction=0.2):
    """(x_train, y_train, x_test, y_test): float32 images (N, 1, 8, 8) standardised with the
    training pixels' mean and std, and int64 labels."""
    from sklearn.datasets import load_digits as sk_load   # bundled with scikit-learn: no download
    data = sk_load()
    x = (data.images / 16.0).astype(np.float32)[:, None]
    y = data.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    n_test = int(len(y) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    mean, std = x[train].mean(), x[train].std()
    x = (x - mean) / std
    return x[train], y[train], x[test], y[test]


def make_model(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                             nn.Linear(128, 10))
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),      # 32 x 4 x 4
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),     # 64 x 2 x 2
        nn.Flatten(), nn.Linear(256, 128), nn.ReLU(), nn.Dropout(0.25), nn.Linear(128, 10))


def accuracy(model, x, y, batch_size=512, device="cpu"):
    model.eval()
    correct = 0
    with loom.no_grad():
        for i in range(0, len(y), batch_size):
            pred = model(loom.from_numpy(x[i:i + batch_size]).to(device)).argmax(1).cpu().numpy()
            correct += int((pred == y[i:i + batch_size]).sum())
    model.train()
    return correct / len(y)


def train(kind, data, epochs, batch_size, lr, seed=0, progress=True, distributed=False, device="cpu"):
    """Train one model; returns (model, history) with per-epoch loss and test accuracy.
    distributed: one replica per MPI process (DistributedDataParallel), each on its share of
    every global batch of batch_size (DistributedSampler); the returned model is the replica."""
    x_tr, y_tr, x_te, y_te = data
    loom.manual_seed(seed)
    model = make_model(kind).to(device)
    dataset = TensorDataset(loom.from_numpy(x_tr), loom.from_numpy(y_tr))
    if distributed:
        world = dist.get_world_size()
        net = DistributedDataParallel(model)
        sampler = DistributedSampler(dataset, shuffle=True, seed=seed)
        loader = DataLoader(dataset, batch_size=max(1, batch_size // world), sampler=sampler)
    else:
        net, sampler = model, None
        loader = DataLoader(dataset, batch_size=batch_size, shuffle=True,
                            generator=loom.Generator().manual_seed(seed))
    opt = loom.optim.Adam(net.parameters(), lr=lr)
    sched = loom.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    history = {"loss": [], "test_acc": []}
    bar = _progress(epochs * len(loader), f"{kind}", progress)
    for epoch in range(epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        total, count, t0 = 0.0, 0, time.perf_counter()
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            loss = F.cross_entropy(net(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(yb)
            count += len(yb)
            bar.update(1)
            bar.set_postfix(epoch=epoch + 1, loss=f"{total / count:.4f}",
                            samples_per_s=f"{count / max(time.perf_counter() - t0, 1e-9):.0f}")
        sched.step()
        history["loss"].append(total / count)
        history["test_acc"].append(accuracy(model, x_te, y_te, device=device))
    bar.close()
    return model, history


class _Quiet:
    def update(self, n):
        pass

    def set_postfix(self, **kw):
        pass

    def close(self):
        pass


def _progress(total, desc, enabled):
    if not enabled:
        return _Quiet()
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit="step")


def plot(histories, path):
    import matplotlib
    matplotlib.use("Agg")   # files only: no display needed
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for kind, h in histories.items():
        epochs = range(1, len(h["loss"]) + 1)
        ax1.plot(epochs, h["loss"], label=kind)
        ax2.plot(epochs, [100 * a for a in h["test_acc"]], label=kind)
    ax1.set(xlabel="epoch", ylabel="training loss", yscale="log", title="loss")
    ax2.set(xlabel="epoch", ylabel="held-out accuracy (%)", title="accuracy")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m loom.examples.digits", description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["mlp", "cnn", "both"], default="both")
    ap.add_argument("--epochs", type=int, help="default: 40 (mlp), 30 (cnn)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, help="Adam learning rate; default: 1e-3 (mlp), 2e-3 (cnn)")
    ap.add_argument("--out", default="digits-out", help="directory for weights and the plot")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (loom.cuda.is_available())")
    ap.add_argument("--distributed", action="store_true",
                    help="data parallel over the processes of `mpiexec -n N` (rank 0 prints and saves)")
    args = ap.parse_args(argv)
    lead = True
    if args.distributed:
        if not dist.is_initialized():
            dist.init_process_group("mpi")
        lead = dist.get_rank() == 0
        args.no_progress = args.no_progress or not lead
    os.makedirs(args.out, exist_ok=True)
    data = load_digits(args.seed)
    kinds = ["mlp", "cnn"] if args.model == "both" else [args.model]
    histories, results = {}, {}
    for kind in kinds:
        epochs = args.epochs or DEFAULTS[kind]["epochs"]
        lr = args.lr or DEFAULTS[kind]["lr"]
        t0 = time.perf_counter()
        model, hist = train(kind, data, epochs, args.batch_size, lr, args.seed, not args.no_progress,
                            args.distributed, args.device)
        seconds = time.perf_counter() - t0
        histories[kind], results[kind] = hist, hist["test_acc"][-1]
        if not lead:
            continue
        acc = accuracy(model, data[2], data[3], device=args.device)
        path = os.path.join(args.out, f"digits_{kind}.loom")
        loom.save(model.state_dict(), path)
        fresh = make_model(kind)
        fresh.load_state_dict(loom.load(path))
        reloaded = accuracy(fresh, data[2], data[3])
        if reloaded != acc:
            raise SystemExit(f"{kind}: accuracy after reload {reloaded:.4f} differs from {acc:.4f}")
        print(f"{kind}: test accuracy {100 * acc:.2f}% ({len(data[3])} held-out digits), trained in {seconds:.1f} s; "
              f"weights saved to {path}, reloaded accuracy {100 * reloaded:.2f}%")
        results[kind] = acc
    if not lead:
        return results
    png = os.path.join(args.out, "digits_training.png")
    plot(histories, png)
    print(f"training curves written to {png}")
    return results


if __name__ == "__main__":
    main()
