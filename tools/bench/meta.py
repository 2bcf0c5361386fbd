"""Forward pass of a GPT-style transformer on the meta device (shapes only, no memory): 48 layers,
8192 wide (64 heads, MLP 4x), vocabulary 50257, batch 8 x 2048 tokens: 39.5 billion parameters.
Target: under 1 s. The same model definition is run with torch's meta device in the same process
for comparison.

    python tools/bench/meta.py [--layers 48] [--width 8192] [--runs 5]
"""
import argparse
import statistics
import time


def gpt(mod, vocab, d, heads, layers, ctx, device):
    nn, F = mod.nn, mod.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(d, device=device)
            self.qkv = nn.Linear(d, 3 * d, device=device)
            self.proj = nn.Linear(d, d, device=device)
            self.ln2 = nn.LayerNorm(d, device=device)
            self.fc = nn.Linear(d, 4 * d, device=device)
            self.out = nn.Linear(4 * d, d, device=device)
            self.drop = nn.Dropout(0.1)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            x = x + self.drop(self.proj(y))
            return x + self.drop(self.out(F.gelu(self.fc(self.ln2(x)))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, d, device=device)
            self.pos = nn.Embedding(ctx, d, device=device)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln = nn.LayerNorm(d, device=device)
            self.head = nn.Linear(d, vocab, bias=False, device=device)

        def forward(self, idx, targets):
            B, T = idx.shape
            x = self.tok(idx) + self.pos(mod.arange(T, device=idx.device))
            for b in self.blocks:
                x = b(x)
            logits = self.head(self.ln(x))
            return F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))

    return GPT()


def run(mod, args):
    t0 = time.perf_counter()
    model = gpt(mod, 50257, args.width, args.width // 128, args.layers, 2048, "meta")
    build = time.perf_counter() - t0
    idx = mod.randint(0, 50257, (8, 2048), device="meta")
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        loss = model(idx, idx)
        times.append(time.perf_counter() - t0)
    assert tuple(loss.shape) == () and loss.device.type == "meta"
    n = sum(p.numel() for p in model.parameters())
    return n, build, times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=48)
    ap.add_argument("--width", type=int, default=8192)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    import loom
    libs = [("loom", loom)]
    try:
        import torch
        libs.append(("torch", torch))
    except ImportError:
        pass
    for name, mod in libs:
        n, build, times = run(mod, args)
        print(f"{name:6s} {args.layers} layers x {args.width}: {n / 1e9:.1f}B parameters, built in {build * 1e3:.0f} ms; "
              f"meta forward (with the loss) median {statistics.median(times) * 1e3:.0f} ms "
              f"(first {times[0] * 1e3:.0f} ms, range {min(times) * 1e3:.0f}-{max(times) * 1e3:.0f} ms)")


if __name__ == "__main__":
    main()
