"""Every op of the model on meta tensors against the same call on CPU tensors (generated from the op
model's test inputs, as test_vmap_generated's): the result's shape, dtype and strides must be the
CPU result's, for contiguous and transposed inputs, and for int64 and bool inputs where the op takes
them (type promotion). An op without a meta rule must say so by name
(NotImplementedError naming it and the Meta backend) and be listed in NO_META_YET: a strict xfail,
so a rule that starts working shows up as XPASS and must take its name off the list."""
import pytest

import loom
from opinputs import MODEL, make_inputs
from test_ops_generated import call


# ops with no meta result: NotImplementedError naming the op (composites whose bodies check values,
# such as take's index range or binary_cross_entropy's [0, 1], skip those checks on meta, as
# PyTorch's meta kernels do)
NO_META_YET = {
    # the result's size is read from the data: no meta rule can exist
    "nonzero", "argwhere", "masked_select", "_unique2", "unique_dim", "_unique_consecutive",
    "repeat_interleave.Tensor", "repeat_interleave.self_Tensor", "bincount",
}


def _cases():
    out = []
    for op in MODEL.ops:
        if op.test.get("skip") or "function" not in op.variants and "method" not in op.variants:
            continue
        first = "float32" if "float32" in op.dtypes else op.dtypes[0]
        # the float32 (or first) dtype in both layouts; int64 and bool too, where the op takes them (promotion)
        combos = [(first, "contiguous"), (first, "transposed")] + \
            [(d, "contiguous") for d in ("int64", "bool") if d in op.dtypes and d != first]
        for dt, layout in combos:
            if make_inputs(op, dt, layout) is None:
                continue
            marks = [pytest.mark.xfail(strict=True, raises=(NotImplementedError, RuntimeError),
                                       reason="no meta rule")] if op.schema.full_name in NO_META_YET else []
            out.append(pytest.param(op, dt, layout, marks=marks, id=f"{op.schema.full_name}-{dt}-{layout}"))
    return out


CASES = _cases()


def _meta(v):
    if isinstance(v, loom.Tensor):
        return v.to("meta")
    if isinstance(v, list) and v and all(isinstance(e, loom.Tensor) for e in v):
        return [e.to("meta") for e in v]
    return v


def _check(m, c, where):
    if isinstance(c, tuple):
        assert isinstance(m, tuple) and len(m) == len(c), where
        for i, (a, b) in enumerate(zip(m, c)):
            _check(a, b, f"{where}[{i}]")
        return
    if not isinstance(c, loom.Tensor):
        assert m == c, where
        return
    assert m.device.type == "meta", f"{where}: result on {m.device}"
    assert tuple(m.shape) == tuple(c.shape), f"{where}: shape {tuple(m.shape)} != CPU {tuple(c.shape)}"
    assert m.dtype == c.dtype, f"{where}: dtype {m.dtype} != CPU {c.dtype}"
    # strides matter only where a dim has more than one element (PyTorch's is_contiguous rule)
    ms = [s for n, s in zip(m.shape, m.stride()) if n > 1]
    cs = [s for n, s in zip(c.shape, c.stride()) if n > 1]
    assert ms == cs, f"{where}: strides {m.stride()} != CPU {c.stride()} (shape {tuple(c.shape)})"


@pytest.mark.parametrize("op,dtype,layout", CASES)
def test_meta_matches_cpu(op, dtype, layout):
    name = op.schema.full_name
    np_args, lm = make_inputs(op, dtype, layout)
    try:
        cpu = call(op, lm)
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        pytest.skip(f"the op fails on the CPU inputs themselves: {e}")
    margs = {k: _meta(v) for k, v in lm.items()}
    if "device" in margs:   # a factory, or a move: made on (moved to) the meta device instead
        margs["device"] = "meta"
    try:
        meta = call(op, margs)
    except NotImplementedError as e:
        assert "meta" in str(e).lower() and op.name in str(e), str(e)
        raise
    except RuntimeError as e:
        assert "meta" in str(e) and op.name in str(e), str(e)
        raise
    _check(meta, cpu, name)
