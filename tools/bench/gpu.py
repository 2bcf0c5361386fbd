"""GPU rows: loom vs PyTorch on the same GPU, in one process.

    python tools/bench/gpu.py [--quick] [--markdown]

Bandwidth rows report GB/s counting each element read and written once; the
reference is a device-to-device copy (torch's clone) of the same bytes.
Times are medians over repeats, each timed around a synchronize."""
import argparse
import statistics
import time


def timed(fn, sync, repeat, inner):
    fn()
    sync()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    import loom
    import torch
    if not loom.cuda.is_available() or not torch.cuda.is_available():
        raise SystemExit("tools/bench/gpu.py needs a CUDA GPU for both loom and torch")
    rep = 5 if args.quick else 15
    ls, ts = loom.cuda.synchronize, torch.cuda.synchronize
    n = 1 << 28
    rows = []
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)

    def show(r):
        name, lt, tt, lb_, tb_, _ = r
        print(f"{name:55s} loom {lt * 1e3:9.3f} ms  torch {tt * 1e3:9.3f} ms  ratio {lt / tt:5.2f}  {lb_:>14s} {tb_:>14s}",
              flush=True)

    def row(name, lt, tt, nbytes=None, note=""):
        bw = (lambda t: f"{nbytes / t / 1e9:,.0f} GB/s") if nbytes else (lambda t: "")
        rows.append((name, lt, tt, bw(lt), bw(tt), note))
        show(rows[-1])

    tx = torch.randn(n, device="cuda")
    ty = torch.randn(n, device="cuda")
    lx = loom.full((n,), 0.75, device="cuda")   # filled on the device (values do not change the timings)
    ly = loom.full((n,), 0.5, device="cuda")
    copy_t = timed(lambda: tx.clone(), ts, rep, 5)
    row("copy 2^28 f32 (torch clone, the reference)", timed(lambda: lx.clone(), ls, rep, 5), copy_t, 2 * 4 * n)
    for name, lf, tf in [("add", lambda: lx + ly, lambda: tx + ty), ("mul", lambda: lx * ly, lambda: tx * ty)]:
        row(f"{name} 2^28 f32", timed(lf, ls, rep, 5), timed(tf, ts, rep, 5), 3 * 4 * n)
    row("exp 2^28 f32", timed(lambda: loom.exp(lx), ls, rep, 5), timed(lambda: torch.exp(tx), ts, rep, 5), 2 * 4 * n)
    row("sum 2^28 f32 (all)", timed(lambda: lx.sum(), ls, rep, 5), timed(lambda: tx.sum(), ts, rep, 5), 4 * n)
    lm, tm = lx.reshape(1 << 14, 1 << 14), tx.reshape(1 << 14, 1 << 14)
    row("sum 2^14 x 2^14 f32, dim=1", timed(lambda: lm.sum(dim=1), ls, rep, 5),
        timed(lambda: tm.sum(dim=1), ts, rep, 5), 4 * n)
    row("sum 2^14 x 2^14 f32, dim=0", timed(lambda: lm.sum(dim=0), ls, rep, 5),
        timed(lambda: tm.sum(dim=0), ts, rep, 5), 4 * n)
    del lx, ly, tx, ty, lm, tm
    k = 8192
    la, lb = loom.randn(k, k, device="cuda"), loom.randn(k, k, device="cuda")
    ta, tb = torch.randn(k, k, device="cuda"), torch.randn(k, k, device="cuda")
    flops = 2 * k ** 3
    for tf32 in (False, True):
        loom.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        lt, tt = timed(lambda: la @ lb, ls, rep, 3), timed(lambda: ta @ tb, ts, rep, 3)
        rows.append((f"matmul 8192^2 f32{' (TF32)' if tf32 else ''}", lt, tt, f"{flops / lt / 1e12:.0f} TFLOP/s",
                     f"{flops / tt / 1e12:.0f} TFLOP/s", ""))
        show(rows[-1])
    loom.backends.cuda.matmul.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    for name in ("bfloat16", "float16"):
        ld, td = getattr(loom, name), getattr(torch, name)
        la16, lb16, ta16, tb16 = la.to(ld), lb.to(ld), ta.to(td), tb.to(td)
        lt, tt = timed(lambda: la16 @ lb16, ls, rep, 3), timed(lambda: ta16 @ tb16, ts, rep, 3)
        rows.append((f"matmul 8192^2 {name}", lt, tt, f"{flops / lt / 1e12:.0f} TFLOP/s",
                     f"{flops / tt / 1e12:.0f} TFLOP/s", ""))
        show(rows[-1])
    del la, lb, ta, tb, la16, lb16, ta16, tb16
    lh, th = loom.full((n,), 0.75, dtype=loom.bfloat16, device="cuda"), torch.full((n,), 0.75, dtype=torch.bfloat16,
                                                                                     device="cuda")
    lh2, th2 = loom.full((n,), 0.5, dtype=loom.bfloat16, device="cuda"), th.clone()
    row("add 2^28 bfloat16", timed(lambda: lh + lh2, ls, rep, 5), timed(lambda: th + th2, ts, rep, 5), 3 * 2 * n)
    row("exp 2^28 bfloat16", timed(lambda: loom.exp(lh), ls, rep, 5), timed(lambda: torch.exp(th), ts, rep, 5), 2 * 2 * n)
    row("sum 2^28 bfloat16 (all)", timed(lambda: lh.sum(), ls, rep, 5), timed(lambda: th.sum(), ts, rep, 5), 2 * n)
    del lh, th, lh2, th2
    sa, sb = loom.ones(4, device="cuda"), loom.ones(4, device="cuda")
    tsa, tsb = torch.ones(4, device="cuda"), torch.ones(4, device="cuda")
    row("tiny add (4 elements): host overhead per op", timed(lambda: sa + sb, ls, rep, 2000),
        timed(lambda: tsa + tsb, ts, rep, 2000))
    net_l = loom.nn.Sequential(loom.nn.Linear(1024, 4096), loom.nn.ReLU(), loom.nn.Linear(4096, 1024)).cuda()
    net_t = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
    xl, xt = loom.randn(512, 1024, device="cuda"), torch.randn(512, 1024, device="cuda")

    def step(net, x):
        def f():
            net.zero_grad()
            net(x).square().mean().backward()
        return f
    row("MLP 1024-4096-1024, batch 512: forward + backward", timed(step(net_l, xl), ls, rep, 10),
        timed(step(net_t, xt), ts, rep, 10))

    def cnn(nn):
        return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1),
                             nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 10)).cuda()

    def train_step(lib, net, x, y):
        opt = lib.optim.Adam(net.parameters(), lr=1e-3)

        def f():
            loss = lib.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return f
    xl, yl = loom.randn(64, 1, 8, 8, device="cuda"), loom.randint(0, 10, (64,), device="cuda")
    xt, yt = torch.randn(64, 1, 8, 8, device="cuda"), torch.randint(0, 10, (64,), device="cuda")
    row("digits CNN training step, batch 64 (Adam)", timed(train_step(loom, cnn(loom.nn), xl, yl), ls, rep, 5),
        timed(train_step(torch, cnn(torch.nn), xt, yt), ts, rep, 5))

    def encoder(nn):
        return nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, dropout=0.0, batch_first=True).cuda()

    def lm_step(lib, net, x, amp=False):
        opt = lib.optim.AdamW(net.parameters(), lr=1e-4)

        def f():
            with lib.autocast("cuda", dtype=lib.bfloat16, enabled=amp):
                loss = net(x, is_causal=True, src_mask=mask[lib.__name__]).float().square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        return f
    mask = {"loom": loom.nn.Transformer.generate_square_subsequent_mask(128).cuda(),
            "torch": torch.nn.Transformer.generate_square_subsequent_mask(128).cuda()}
    try:
        row("transformer encoder layer step (256 wide, 4 heads, 32 x 128, AdamW)",
            timed(lm_step(loom, encoder(loom.nn), loom.randn(32, 128, 256, device="cuda")), ls, rep, 5),
            timed(lm_step(torch, encoder(torch.nn), torch.randn(32, 128, 256, device="cuda")), ts, rep, 5))
    except Exception as e:   # report, keep the table
        print(f"transformer encoder layer step: {type(e).__name__}: {e}", flush=True)
    try:
        row("the same step under autocast(bfloat16)",
            timed(lm_step(loom, encoder(loom.nn), loom.randn(32, 128, 256, device="cuda"), True), ls, rep, 5),
            timed(lm_step(torch, encoder(torch.nn), torch.randn(32, 128, 256, device="cuda"), True), ts, rep, 5))
    except Exception as e:
        print(f"transformer step under autocast: {type(e).__name__}: {e}", flush=True)

    if args.markdown:
        print("| workload | loom | torch | loom/torch time | loom rate | torch rate |")
        print("|---|---|---|---|---|---|")
        for name, lt, tt, lb_, tb_, _ in rows:
            print(f"| {name} | {lt * 1e3:.3f} ms | {tt * 1e3:.3f} ms | {lt / tt:.2f}x | {lb_} | {tb_} |")


if __name__ == "__main__":
    main()
