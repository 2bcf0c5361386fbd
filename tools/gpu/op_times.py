"""Where a CUDA training step spends its time, op by op: every loom C entry the step
calls (lm_op_*), timed around a device synchronize, summed by name. A diagnostic for the
lent GPU machine (the synchronizes make the step itself slower; compare the ops' shares).

    python tools/gpu/op_times.py [--top N]"""
import argparse
import collections
import sys
import time

import loom


def transformer_step():
    nn = loom.nn
    net = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, dropout=0.0, batch_first=True).cuda()
    opt = loom.optim.AdamW(net.parameters(), lr=1e-4)
    x = loom.randn(32, 128, 256, device="cuda")
    mask = nn.Transformer.generate_square_subsequent_mask(128).cuda()

    def step():
        loss = net(x, is_causal=True, src_mask=mask).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    step = transformer_step()
    for _ in range(3):
        step()
    loom.cuda.synchronize()
    total, count, started = collections.Counter(), collections.Counter(), []

    def prof(frame, event, fn):
        name = getattr(fn, "__name__", "")
        if not name.startswith("lm_op_"):
            return
        if event == "c_call":
            loom.cuda.synchronize()
            started.append(time.perf_counter())
        elif event in ("c_return", "c_exception") and started:
            loom.cuda.synchronize()
            total[name] += time.perf_counter() - started.pop()
            count[name] += 1
    t0 = time.perf_counter()
    sys.setprofile(prof)
    step()
    sys.setprofile(None)
    loom.cuda.synchronize()
    wall = time.perf_counter() - t0
    print(f"transformer step with a synchronize around each op: {wall * 1e3:.2f} ms, "
          f"{sum(count.values())} op calls, {sum(total.values()) * 1e3:.2f} ms inside them")
    for name, t in total.most_common(args.top):
        print(f"{t * 1e3:9.3f} ms {count[name]:5d} x  {name}")


if __name__ == "__main__":
    main()
