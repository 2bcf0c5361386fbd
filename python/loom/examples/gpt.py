"""Train a character-level GPT on the Python standard library's own source files.

    python -m loom.examples.gpt [--steps N] [--batch-size B] [--block-size T] [--n-layer L] [--n-head H]
                                [--n-embd E] [--lr LR] [--out DIR] [--seed S] [--no-progress]

The text ships with every Python installation (no download). Shows a progress bar (loss, tokens/s),
reports the held-out loss, prints samples generated with loom.multinomial, saves the weights with
loom.save, reloads them into a fresh model and checks the held-out loss again, and writes a PNG of the
loss curves to --out.
"""
import argparse
import json
import math
import os
import sysconfig
import time

import numpy as np

import loom
from loom import nn
from loom.nn import functional as F

STDLIB_FILES = ("textwrap.py", "string.py", "shlex.py", "fnmatch.py", "bisect.py", "heapq.py", "queue.py",
                "calendar.py", "colorsys.py", "contextlib.py", "functools.py", "statistics.py", "argparse.py")


def load_text(max_chars=400_000):
    """Source of a fixed list of standard-library modules, concatenated (the same on every installation
    of one Python version)."""
    root = sysconfig.get_paths()["stdlib"]
    parts = []
    for name in STDLIB_FILES:
        path = os.path.join(root, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                parts.append(f.read())
    text = "\n".join(parts)[:max_chars]
    if len(text) < 10_000:
        raise SystemExit(f"found too little standard-library source under {root}")
    return text


class Vocab:
    def __init__(self, chars):
        self.chars = list(chars)
        self.index = {c: i for i, c in enumerate(self.chars)}

    def encode(self, s):
        return [self.index[c] for c in s if c in self.index]

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids)


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.dropout = dropout
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.reshape(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        return self.resid_dropout(self.c_proj(y.transpose(1, 2).reshape(B, T, C)))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd),
                                 nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer=2, n_head=4, n_embd=128, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([Block(n_embd, n_head, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        for name, p in self.named_parameters():   # GPT-2's init: N(0, 0.02), residual projections scaled down
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * n_layer) if name.endswith("c_proj.weight") else 0.02
                nn.init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, idx, targets=None):
        T = idx.shape[1]
        if T > self.block_size:
            raise ValueError(f"sequence of length {T} is longer than the block size {self.block_size}")
        x = self.drop(self.wte(idx) + self.wpe(loom.arange(T)))
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    @loom.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, generator=None):
        """Extend idx (B, T) by max_new_tokens sampled tokens (loom.multinomial over the softmax)."""
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -self.block_size:])
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = loom.topk(logits, min(top_k, logits.shape[-1]))
                logits = logits.masked_fill(logits < v[:, -1:], float("-inf"))
            nxt = loom.multinomial(F.softmax(logits, dim=-1), 1, generator=generator)
            idx = loom.cat([idx, nxt], 1)
        return idx


def batches(data, block_size, batch_size, rng):
    starts = rng.integers(0, len(data) - block_size - 1, batch_size)
    x = np.stack([data[s:s + block_size] for s in starts])
    y = np.stack([data[s + 1:s + block_size + 1] for s in starts])
    return loom.from_numpy(x), loom.from_numpy(y)


def evaluate(model, data, block_size, batch_size=32, n_batches=8, seed=1234):
    """Mean loss over fixed batches (the same for every call with the same seed)."""
    model.eval()
    rng = np.random.default_rng(seed)
    with loom.no_grad():
        total = sum(model(*batches(data, block_size, batch_size, rng))[1].item() for _ in range(n_batches))
    model.train()
    return total / n_batches


def train(args, text=None, progress=True):
    text = load_text() if text is None else text
    vocab = Vocab(sorted(set(text)))
    data = np.array(vocab.encode(text), dtype=np.int64)
    n_val = len(data) // 10
    train_data, val_data = data[:-n_val], data[-n_val:]
    loom.manual_seed(args.seed)
    model = GPT(len(vocab.chars), args.block_size, args.n_layer, args.n_head, args.n_embd, args.dropout)
    opt = loom.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.99), weight_decay=0.1)
    sched = loom.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.steps, eta_min=args.lr / 10)
    rng = np.random.default_rng(args.seed)
    history = {"step": [], "train_loss": [], "val_step": [], "val_loss": []}
    bar = _progress(args.steps, progress)
    t0 = time.perf_counter()
    for step in range(1, args.steps + 1):
        _, loss = model(*batches(train_data, args.block_size, args.batch_size, rng))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        history["step"].append(step)
        history["train_loss"].append(loss.item())
        if step % args.eval_every == 0 or step == args.steps:
            history["val_step"].append(step)
            history["val_loss"].append(evaluate(model, val_data, args.block_size))
        bar.update(1)
        tokens_per_s = step * args.batch_size * args.block_size / max(time.perf_counter() - t0, 1e-9)
        bar.set_postfix(loss=f"{history['train_loss'][-1]:.3f}", tokens_per_s=f"{tokens_per_s:.0f}")
    bar.close()
    return model, vocab, val_data, history


class _Quiet:
    def update(self, n):
        pass

    def set_postfix(self, **kw):
        pass

    def close(self):
        pass


def _progress(total, enabled):
    if not enabled:
        return _Quiet()
    from tqdm import tqdm
    return tqdm(total=total, desc="gpt", unit="step")


def plot(history, path):
    import matplotlib
    matplotlib.use("Agg")   # files only: no display needed
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(history["step"], history["train_loss"], alpha=0.5, label="training batch")
    ax.plot(history["val_step"], history["val_loss"], marker="o", label="held out")
    ax.set(xlabel="step", ylabel="cross-entropy (nats/char)", title="char-level GPT on the Python stdlib")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse(argv=None):
    ap = argparse.ArgumentParser(prog="python -m loom.examples.gpt", description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--block-size", type=int, default=64)
    ap.add_argument("--n-layer", type=int, default=2)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-embd", type=int, default=128)
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--sample-chars", type=int, default=300)
    ap.add_argument("--out", default="gpt-out", help="directory for weights, vocabulary and the plot")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.n_embd % args.n_head:
        ap.error(f"--n-embd {args.n_embd} is not a multiple of --n-head {args.n_head}")
    if min(args.steps, args.batch_size, args.block_size, args.n_layer, args.eval_every) <= 0:
        ap.error("--steps, --batch-size, --block-size, --n-layer and --eval-every must be positive")
    return args


def main(argv=None, text=None):
    args = parse(argv)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.perf_counter()
    model, vocab, val_data, history = train(args, text, not args.no_progress)
    seconds = time.perf_counter() - t0
    val = evaluate(model, val_data, args.block_size)
    print(f"held-out loss {val:.4f} nats/char after {args.steps} steps ({seconds:.1f} s)")
    prompt = loom.tensor([vocab.encode("def ")], dtype=loom.int64)
    out = model.generate(prompt, args.sample_chars, temperature=0.8, top_k=20,
                         generator=loom.Generator().manual_seed(args.seed))
    sample = vocab.decode(out[0].tolist())
    print("---- sample (multinomial, temperature 0.8, top-k 20) ----")
    print(sample)
    print("----")
    weights = os.path.join(args.out, "gpt.loom")
    loom.save(model.state_dict(), weights)
    with open(os.path.join(args.out, "gpt_config.json"), "w") as f:
        json.dump({"chars": vocab.chars, "block_size": args.block_size, "n_layer": args.n_layer,
                   "n_head": args.n_head, "n_embd": args.n_embd}, f)
    fresh = GPT(len(vocab.chars), args.block_size, args.n_layer, args.n_head, args.n_embd)
    fresh.load_state_dict(loom.load(weights))
    reloaded = evaluate(fresh, val_data, args.block_size)
    if abs(reloaded - val) > 1e-6:
        raise SystemExit(f"held-out loss after reload {reloaded:.6f} differs from {val:.6f}")
    print(f"weights saved to {weights}, reloaded held-out loss {reloaded:.4f}")
    png = os.path.join(args.out, "gpt_loss.png")
    plot(history, png)
    print(f"loss curve written to {png}")
    return {"val_loss": val, "sample": sample, "history": history}


if __name__ == "__main__":
    main()
