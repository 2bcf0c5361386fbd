"""Every op of the model (in-place and random ones too), called with each Tensor
argument, and each tensor of a Tensor[] argument, empty in each of its
dims (a zero-size batch, channel, sequence or feature dim), and with the user
integers that overflow size arithmetic: nothing may crash the interpreter. An
op may refuse an input with a Python exception; it must not abort, segfault or
corrupt the heap. The calls run in a child process (a crash there is a failing
test naming the last call, not a dead test run); the child runs under glibc's
heap checks (MALLOC_CHECK_=3, MALLOC_PERTURB_), so a write past a buffer's end
aborts instead of passing silently. Under AddressSanitizer (.ci/asan: an
instrumented build, libasan in LD_PRELOAD) the child inherits ASan instead,
which also catches reads past the end; glibc's checks are left off then, as
ASan replaces malloc."""
import os
import subprocess
import sys
import textwrap

from conftest import ROOT

WORKER = textwrap.dedent("""
    import sys
    sys.path[:0] = [{tests!r}, {root!r}]
    import numpy as np
    import loom
    from opinputs import MODEL, make_inputs, shapes_for
    from helpers import call_function

    def emptied(op):
        base = make_inputs(op, op.dtypes[-1], "contiguous")
        if base is None:
            return
        _, args = base
        for a in op.inputs:
            v = args.get(a.name)
            items = list(enumerate(v)) if a.type.is_list and v is not None else [(None, v)]
            for i, t in items:
                if t is None or t.ndim == 0:
                    continue
                for d in range(t.ndim):
                    shape = list(t.shape)
                    shape[d] = 0
                    e = loom.zeros(*shape, dtype=t.dtype)
                    arg = e if i is None else [e if j == i else x for j, x in enumerate(v)]
                    yield (a.name if i is None else f"{{a.name}}[{{i}}]"), d, dict(args, **{{a.name: arg}})

    n = 0
    for op in MODEL.ops:
        for name, d, args in emptied(op):
            print(f"{{op.schema.full_name}}: {{name}} empty in dim {{d}}", flush=True)
            try:
                r = call_function(op, args)
                for t in (r if isinstance(r, tuple) else (r,)):
                    if isinstance(t, loom.Tensor):
                        np.asarray(t.detach()).sum()   # read every element the result claims
            except Exception:
                pass
            n += 1
    print(f"DONE {{n}}", flush=True)
""")

OVERFLOW = textwrap.dedent("""
    import loom
    cases = [
        lambda: loom.linear(loom.zeros(0, 4), loom.ones(5, 4), loom.ones(5)),
        lambda: loom.nn.functional.linear(loom.zeros(0, 4), loom.ones(5, 4)),
        lambda: loom.arange(10).narrow(0, 5, 2**63 - 1).sum(),
        lambda: loom.arange(10).narrow(0, -2**63, 1),
        lambda: loom.arange(10).expand(2**62, 10).sum(),
        lambda: loom.arange(10).view(2**62, -1),
        lambda: loom.arange(10).reshape(-1, 2**62),
        lambda: loom.arange(10).repeat(2**62, 2**62),
        lambda: loom.arange(10).tile((2**62,)),
        lambda: loom.arange(10)[2**62],
        lambda: loom.arange(10)[::2**62].sum(),
        lambda: loom.arange(10).flatten()[2**62:2**63 - 1].sum(),
        lambda: loom.arange(12).view(3, 4).diagonal(2**62).sum(),
        lambda: loom.arange(12).view(3, 4).select(1, 2**62),
        lambda: loom.empty(2**40, 2**40),
    ]
    for i, c in enumerate(cases):
        for _ in range(20):   # heap corruption shows after a few calls
            print(i, flush=True)
            try:
                c()
            except Exception:
                pass
    print("DONE", flush=True)
""")


ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")


def _run(code):
    if ASAN:
        # Python's own allocations at exit would read as leaks; a finding aborts at its first report
        env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1:allocator_may_return_null=1"))
    else:
        env = dict(os.environ, MALLOC_CHECK_="3", MALLOC_PERTURB_="165")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    last = r.stdout.strip().splitlines()[-1:] or ["(nothing)"]
    return r, last[0]


def _found(r):
    """Besides the exit status: a build with -fsanitize-recover=address under halt_on_error=0 reports and exits 0."""
    return "ERROR: AddressSanitizer" in r.stderr


def _report(r):
    """ASan's report starts with what it found and where; glibc's abort message is at the end."""
    i = r.stderr.find("ERROR: AddressSanitizer")
    return r.stderr[i:i + 4000] if i >= 0 else r.stderr[-2000:]


def test_every_op_with_an_empty_dim_does_not_crash():
    r, last = _run(WORKER.format(tests=str(ROOT / "tests"), root=str(ROOT)))
    assert r.returncode == 0 and last.startswith("DONE") and not _found(r), f"crashed or ASan reported (rc {r.returncode}) at: {last}\n{_report(r)}"
    assert int(last.split()[1]) > 300   # the model's ops really ran


def test_sizes_and_offsets_that_overflow_int64_are_refused():
    r, last = _run(OVERFLOW)
    assert r.returncode == 0 and last == "DONE" and not _found(r), f"crashed or ASan reported (rc {r.returncode}) at case {last}\n{_report(r)}"


def test_huge_sizes_beside_a_zero_make_an_empty_tensor():
    """PyTorch allocates nothing for (2**31, 2**31, 0): the product is 0, whatever the others."""
    import loom
    for t in (loom.ones(2 ** 31, 2 ** 31, 0), loom.empty(2 ** 62, 4, 0), loom.zeros(0, 2 ** 40, dtype=loom.int8)):
        assert t.numel() == 0 and 0 in t.shape
    assert loom.ones(2 ** 31, 2 ** 31, 0).shape == (2 ** 31, 2 ** 31, 0)
    assert loom.ones(2 ** 31, 2 ** 31, 0).sum().item() == 0
