"""Which dtypes each composite op serves: PyTorch's answer beside loom's.

For every `composite:` op of ops/*.yaml, the generated tests' sample inputs (tests/opinputs.py) are
made in each dtype of dtypes.yaml; the same call runs in PyTorch (CPU) and through loom's body
(python/loom/_composites, called directly so the wrapper's own dtype check does not hide what
the body can do). A dtype is *served* when PyTorch accepts it and loom's result has PyTorch's
dtype, shape and values (within the generated tests' tolerances). `dtypes:` of a composite should
list exactly the served ones; the report says where it does not.

    python tools/dtype_coverage.py              # ops whose list differs from what is served
    python tools/dtype_coverage.py --all        # every composite
    python tools/dtype_coverage.py cdist tril   # these ones, with the reason for each dtype
    python tools/dtype_coverage.py --json F     # the whole table, for scripts

Where the sample call is not PyTorch's (bucketize/searchsorted's unsorted random boundaries, kthvalue's
ties, addr's float beta that PyTorch refuses for ints, bincount's and repeat_interleave.Tensor's counts,
int64 in every sample) the list is kept by judgement: the differences this prints for those are the
survey's, not the op's.
"""
import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import loom  # noqa: E402
from loom import _ops  # noqa: E402
from codegen.dtypes import TABLE  # noqa: E402
from codegen.pygen import dtype_checked  # noqa: E402
from opinputs import MODEL, make_inputs  # noqa: E402
from torchref import call, compare, to_torch, torch_callables  # noqa: E402

DTYPES = [d.name for d in TABLE.dtypes]


def loom_body(op, args):
    module, fn = op.kernel.split(".")
    body = getattr(getattr(_ops, f"_composite_{module}"), fn)
    extra = [False] if op.schema.arg("device") is not None else []   # requires_grad=
    return body(*[args[a.name] for a in op.schema.args], *extra)


def survey_with(op, fn, method, style):
    """{dtype: (torch_ok, loom_status)}; torch_ok None when there is no PyTorch call to compare with,
    loom_status None (served) or why not."""
    out = {}
    for dt in DTYPES:
        made = make_inputs(op, dt, "contiguous")
        if made is None:
            out[dt] = (None, "no sample inputs")
            continue
        args = made[1]
        a = dtype_checked(op) or op.inputs[0]
        x = args.get(a.name)
        x = x[0] if isinstance(x, list) and x else x
        if isinstance(x, loom.Tensor) and x.dtype.name != dt:   # an index or mask input: int64/bool in every case
            out[dt] = (None, f"the sample's {a.name} is {x.dtype.name} whatever the dtype")
            continue
        torch.manual_seed(0)
        want, t_ok, t_err = None, fn is not None, ""
        if fn is not None:
            try:
                want = call(fn, op, {k: to_torch(v) for k, v in args.items()}, method, style)
            except Exception as e:   # noqa: BLE001 - any refusal counts
                t_ok, t_err = False, f"{type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"
        try:
            got = loom_body(op, args)
        except Exception as e:   # noqa: BLE001
            out[dt] = (t_ok, f"{type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}")
            continue
        if not t_ok:
            out[dt] = (False if fn else None, "PyTorch refuses: " + t_err if fn else "no PyTorch function")
            continue
        out[dt] = (True, compare(op, got, want, dt))
    return out


def survey(op):
    """The survey against the PyTorch call that agrees with loom most often."""
    best, score = survey_with(op, None, None, "full"), (-1, -1)
    for fn, method in torch_callables(op):
        for style in ("full", "short", "star"):
            if style == "star" and not any(a.type.is_list and a.type.base == "Tensor" for a in op.inputs):
                continue
            res = survey_with(op, fn, method, style)
            sc = (sum(1 for r in res.values() if r[0] and r[1] is None), sum(1 for r in res.values() if r[0]))
            if sc > score:
                best, score = res, sc
    if score[1] <= 0:   # PyTorch took none: the call, not the dtypes, is wrong
        best = {dt: (None, why) for dt, (_, why) in best.items()}
    return best


def served(res):
    return tuple(dt for dt in DTYPES if res[dt][0] and res[dt][1] is None)


def op_id(op):
    return op.name + (f".{op.schema.overload}" if op.schema.overload else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--json")
    ns = ap.parse_args()
    ops = [op for op in MODEL.ops if op.kind == "composite" and op.inputs
           and (not ns.names or op.name in ns.names or op_id(op) in ns.names)]
    table = {}
    for op in ops:
        res = survey(op)
        s = served(res)
        torch_ok = tuple(dt for dt in DTYPES if res[dt][0])
        body_fails = tuple(dt for dt in torch_ok if res[dt][1] is not None)
        table[op_id(op)] = dict(file=op.file, line=op.line, listed=list(op.dtypes), served=list(s),
                                torch=list(torch_ok), body_fails={dt: res[dt][1] for dt in body_fails},
                                no_torch=all(r[0] is None for r in res.values()))
        unknown = table[op_id(op)]["no_torch"]
        if ns.all or ns.names or (tuple(op.dtypes) != s and not unknown):
            print(f"{op_id(op)} ({op.file}:{op.line})")
            print(f"  listed: {' '.join(op.dtypes)}")
            print(f"  served: {' '.join(s)}" if not unknown else
                  "  served: unknown (no PyTorch call on these inputs to compare with, or the sample ignores the dtype)")
            if body_fails:
                print(f"  PyTorch takes, loom's body fails: {', '.join(body_fails)}")
            if ns.names:
                for dt, (t, why) in res.items():
                    print(f"    {dt:10} torch={t} loom={why or 'ok'}")
            elif body_fails:
                for dt in body_fails:
                    print(f"    {dt}: {res[dt][1]}")
    if ns.json:
        Path(ns.json).write_text(json.dumps(table, indent=1))
    differ = sum(1 for v in table.values() if tuple(v["listed"]) != tuple(v["served"]) and not v["no_torch"])
    unknown = sum(1 for v in table.values() if v["no_torch"])
    print(f"{len(table)} composites; {differ} list other dtypes than they serve; {unknown} not comparable",
          file=sys.stderr)


if __name__ == "__main__":
    main()
