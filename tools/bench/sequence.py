"""Issue 15's sequence-model workloads, one library per process (loom, then torch):

  - scaled_dot_product_attention forward+backward, causal, batch 4 x 8 heads, sequence 512, head dim 64
  - a GPT-2-style training step: 2 layers, 4 heads, 128 embedding, block 64, batch 8, AdamW
  - an LSTM language-model step: 2 layers, 256 hidden (and embedding), sequence 35, batch 20,
    vocabulary 1000, SGD with gradient clipping (PyTorch's word_language_model, smaller vocabulary)

    python tools/bench/sequence.py [--threads N] [--repeats R]

Prints the median time per call of R timed rounds for each library, then loom's speedup.
"""
import argparse
import math
import os
import subprocess
import sys
import time


def _gpt(mod, vocab=65, block=64, n_layer=2, n_head=4, n_embd=128):
    nn, F = mod.nn, mod.nn.functional

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn, self.c_proj = nn.Linear(n_embd, 3 * n_embd), nn.Linear(n_embd, n_embd)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.c_attn(x).split(C, dim=2)
            q, k, v = (t.reshape(B, T, n_head, C // n_head).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).reshape(B, T, C))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(n_embd), Attn(), nn.LayerNorm(n_embd)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block, n_embd)
            self.blocks = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f, self.head = nn.LayerNorm(n_embd), nn.Linear(n_embd, vocab, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(mod.arange(idx.shape[1]))
            for b in self.blocks:
                x = b(x)
            return self.head(self.ln_f(x))

    return GPT()


def _lstm(mod, vocab=1000, hidden=256, layers=2):
    nn = mod.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(vocab, hidden)
            self.rnn = nn.LSTM(hidden, hidden, layers)
            self.decoder = nn.Linear(hidden, vocab)

        def forward(self, x, h):
            out, h = self.rnn(self.encoder(x), h)
            return self.decoder(out), h

    return LM()


def child(lib, threads, repeats):
    import numpy as np
    mod = __import__(lib)
    mod.set_num_threads(threads)
    mod.manual_seed(0)
    F = mod.nn.functional
    rng = np.random.default_rng(0)
    results = []

    q, k, v = (mod.tensor(rng.standard_normal((4, 8, 512, 64)).astype(np.float32), requires_grad=True)
               for _ in range(3))

    def sdpa():
        F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
    results.append(("sdpa causal fwd+bwd 4x8x512x64", sdpa))

    gpt = _gpt(mod)
    opt = mod.optim.AdamW(gpt.parameters(), lr=1e-3)
    idx = mod.tensor(rng.integers(0, 65, (8, 64)))
    tgt = mod.tensor(rng.integers(0, 65, (8, 64)))

    def gpt_step():
        loss = F.cross_entropy(gpt(idx).reshape(-1, 65), tgt.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    results.append(("GPT-2-style step (2L 4H 128E, 8x64)", gpt_step))

    lm = _lstm(mod)
    sgd = mod.optim.SGD(lm.parameters(), lr=0.1)
    x = mod.tensor(rng.integers(0, 1000, (35, 20)))
    y = mod.tensor(rng.integers(0, 1000, (35, 20)))
    state = [None]

    def lstm_step():
        out, h = lm(x, state[0])
        state[0] = tuple(t.detach() for t in h)
        loss = F.cross_entropy(out.reshape(-1, 1000), y.reshape(-1))
        sgd.zero_grad()
        loss.backward()
        mod.nn.utils.clip_grad_norm_(lm.parameters(), 0.25)
        sgd.step()
    results.append(("LSTM LM step (2L 256H, 35x20)", lstm_step))

    for name, fn in results:
        for _ in range(3):
            fn()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        times.sort()
        print(f"{name}\t{times[len(times) // 2] * 1e3:.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.threads, args.repeats)
    rows = {}
    for lib in ("loom", "torch"):
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
        r = subprocess.run([sys.executable, __file__, "--child", lib, "--threads", str(args.threads),
                            "--repeats", str(args.repeats)], capture_output=True, text=True, env=env)
        if r.returncode:
            raise SystemExit(f"{lib} failed:\n{r.stderr}")
        for line in r.stdout.strip().splitlines():
            name, ms = line.split("\t")
            rows.setdefault(name, {})[lib] = float(ms)
    print(f"{'workload':40s} {'loom ms':>9s} {'torch ms':>9s} {'speedup':>8s}")
    for name, r in rows.items():
        print(f"{name:40s} {r['loom']:9.2f} {r['torch']:9.2f} {r['torch'] / r['loom']:7.2f}x")


if __name__ == "__main__":
    main()
