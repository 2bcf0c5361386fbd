"""The CUDA device. Without a GPU (CI): loom says so clearly and every CUDA
request fails with a RuntimeError, the generated kernel tables cover every
pointwise op and reduction, and each op reports its CUDA coverage. With one
(tools/gpu/check on the lent machine): every generated op, in every dtype it
lists and every layout, gives the CPU's result on CUDA; reductions over any
dims; copies, casts and broadcasts between devices; matmul and linear through
cuBLAS; autograd and an MLP's training step; the caching allocator's
bookkeeping; zero-copy exchange with PyTorch."""
import re
import subprocess
import sys

import numpy as np
import pytest

import loom
from conftest import ROOT
from opinputs import LAYOUTS, MODEL, make_inputs
from helpers import npv

GPU = loom.cuda.is_available()
needs_gpu = pytest.mark.skipif(not GPU, reason="no CUDA GPU on this machine (loom.cuda.is_available() is False)")


# ---- without a GPU ---------------------------------------------------------------

@pytest.mark.skipif(GPU, reason="a GPU is present")
def test_no_gpu_is_reported_clearly():
    assert loom.cuda.device_count() == 0
    assert loom.cuda.memory_allocated() == 0
    for make in (lambda: loom.ones(2, device="cuda"), lambda: loom.ones(2).cuda(), lambda: loom.ones(2).to("cuda:0"),
                 lambda: loom.tensor([1.0], device="cuda")):
        with pytest.raises(RuntimeError, match="CUDA"):
            make()
    loom.cuda.synchronize()   # nothing issued: a no-op, as torch's without a GPU in use
    x = loom.ones(2)
    assert x.cpu() is x and not x.is_cuda


def test_every_generated_op_has_a_cuda_kernel():
    """Each pointwise op and reduction appears, with every dtype it lists, in a generated CUDA shard
    (but the complex ones: no CUDA kernel serves complex dtypes yet, and the runner refuses them)."""
    from codegen import cgen, emit
    files = emit.render(MODEL, ROOT / "native")
    for op in MODEL.ops:
        if op.kind not in ("pointwise", "reduction"):
            continue
        text = files[f"cuda_shard{cgen.cuda_shard(op)}.cu"]
        row = re.search(r'\{"%s", \{ (.*?) \}\}' % re.escape(op.cname), text)
        assert row, op.cname
        served = [d for d in op.dtypes if not d.startswith("complex")]
        assert row.group(1).count("nullptr") == len(cgen.TABLE.dtypes) - len(served), op.cname
        for dt in served:   # (a reduction's float16/bfloat16 kernel reads them as stored, folds in float32)
            assert f"{op.cname}_cuda_{dt}" in row.group(1)


def test_every_op_has_a_cuda_path():
    """No op is left without a CUDA kernel: a view op (whose result must alias the CUDA
    tensor, so the host fallback cannot serve it) says `cuda: same` or `cuda: own` (the build refuses it otherwise)."""
    assert [op.schema.full_name for op in MODEL.ops if not op.cuda] == []


def test_explain_names_cuda_coverage():
    def explain(name):
        r = subprocess.run([sys.executable, "-m", "codegen", "--explain", name], capture_output=True, text=True,
                           cwd=ROOT)
        return r.stdout
    assert "cuda: generated from the same body" in explain("add")
    assert "cuda: lm_cpu_mm serves it too" in explain("mm")
    assert "cuda: host fallback: lm_cpu_scatter_reduce on host copies" in explain("scatter_reduce")
    assert "cuda: lm_cuda_gather (native/cuda/host_*.c)" in explain("gather")
    assert "cuda: through its parts" in explain("select")


def test_shared_kernels_say_so_in_the_dispatch():
    from codegen import emit
    files = emit.render(MODEL, ROOT / "native")
    shards = "".join(v for k, v in files.items() if k.startswith("ops_shard") and k.endswith(".c"))
    assert "[LM_CUDA] = lm_cpu_mm" in shards and "[LM_CUDA] = lm_cpu_linear" in shards
    assert "[LM_CUDA] = lm_cpu_conv2d" in shards and "[LM_CUDA] = scatter_reduce_two_host_fallback" in shards
    assert "[LM_CUDA] = lm_cuda_gather" in shards


# ---- with a GPU ------------------------------------------------------------------

def _cuda(x):
    if isinstance(x, loom.Tensor):
        return x.cuda()
    if isinstance(x, list) and x and isinstance(x[0], loom.Tensor):
        return [t.cuda() for t in x]
    return x


def _compare(got, want, op):
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            _compare(g, w, op)
        return
    assert got.device == loom.device("cuda:0"), op
    assert got.dtype == want.dtype and got.shape == want.shape, op
    g, w = npv(got.cpu()), npv(want)
    if g.dtype.kind in "fc":   # (float16/bfloat16: a unit or two in the last place, float32 math on each side)
        tol = {"float16": 2e-3, "bfloat16": 1.6e-2, "float64": 1e-12, "complex128": 1e-12}.get(got.dtype.name, 1e-5)
        np.testing.assert_allclose(g, w, rtol=tol * (1 if got.dtype.itemsize == 2 else 10), atol=tol,
                                   equal_nan=True, err_msg=op)
    else:
        np.testing.assert_array_equal(g, w, err_msg=op)


GENERATED = [op for op in MODEL.ops if op.kind in ("pointwise", "reduction") and "ref" in op.test
             and not op.test.get("skip")]
CASES = [(op, dt, layout) for op in GENERATED for dt in op.dtypes for layout in op.test.get("layouts", LAYOUTS)]


def _call(op, args):
    fn = getattr(loom, op.name) if "function" in op.variants else getattr(args["self"], op.name)
    pos = [args[a.name] for a in op.schema.args if not a.kwonly]
    kw = {a.name: args[a.name] for a in op.schema.args if a.kwonly}
    return fn(*pos, **kw) if "function" in op.variants else fn(*pos[1:], **kw)


@needs_gpu
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].schema.full_name}-{c[1]}-{c[2]}")
def test_generated_op_matches_cpu(case):
    op, dtype, layout = case
    made = make_inputs(op, dtype, layout)
    if made is None:
        pytest.skip(f"layout {layout} does not apply to {op.schema.full_name}")
    _, args = made
    dims = [None, 0, -1] if op.kind == "reduction" and op.schema.arg("dim") else [None]
    for dim in dims:
        if dim is not None:
            if args["self"].ndim == 0:
                continue
            args = dict(args, dim=dim)
        try:
            want = _call(op, args)
        except (RuntimeError, ValueError, TypeError, IndexError, ZeroDivisionError) as e:
            with pytest.raises(type(e)):
                _call(op, {k: _cuda(v) for k, v in args.items()})
            continue
        try:
            got = _call(op, {k: _cuda(v) for k, v in args.items()})
        except NotImplementedError as e:   # no CUDA kernel serves complex dtypes yet: a clear refusal
            assert dtype.startswith("complex") and f"has no CUDA kernel for dtype {dtype}" in str(e), str(e)
            continue
        _compare(got, want, op.schema.full_name)


HAND_WRITTEN = [op for op in MODEL.ops if op.kind in ("kernel", "composite") and "ref" in op.test
                and not op.test.get("skip") and not op.test.get("nondeterministic")]


@needs_gpu
@pytest.mark.parametrize("op", HAND_WRITTEN, ids=lambda op: op.schema.full_name)
def test_hand_written_and_composite_ops_match_cpu(op):
    """Every hand-written op (its own CUDA kernel, the CPU one serving both, or the host
    fallback) and every composite gives the CPU's result on CUDA tensors."""
    real = [d for d in op.dtypes if not d.startswith("complex")]   # (complex: no CUDA kernels yet)
    made = make_inputs(op, real[-1], "contiguous") if real else None
    if made is None:
        pytest.skip("no contiguous case")
    _, args = made

    def fresh(move):   # mutating ops write their inputs: each call gets its own
        def one(v):
            if isinstance(v, loom.Tensor):
                return v.cuda() if move else v.clone()
            if isinstance(v, list) and v and isinstance(v[0], loom.Tensor):
                return [one(t) for t in v]
            return v
        out = {k: one(v) for k, v in args.items()}
        if move and "device" in out:   # factories (and to.device) asked for the CUDA device
            out["device"] = "cuda"
        return out
    try:
        want = _call(op, fresh(False))
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        with pytest.raises(type(e)):
            _call(op, fresh(True))
        return
    got = _call(op, fresh(True))
    if isinstance(want, loom.Tensor) and isinstance(got, loom.Tensor):
        _compare(got, want, op.schema.full_name)
    elif isinstance(want, tuple):
        _compare(tuple(got), tuple(want), op.schema.full_name)


@needs_gpu
@pytest.mark.parametrize("n,c,h,w,o,k,kw", [
    (2, 3, 9, 7, 4, 3, {}), (2, 4, 8, 8, 6, 3, {"stride": 2, "padding": 1}),
    (1, 4, 10, 9, 4, 3, {"dilation": 2, "padding": 2, "groups": 2}), (3, 2, 5, 5, 3, 1, {}),
    (2, 6, 7, 6, 6, (3, 2), {"stride": (2, 1), "padding": (1, 0), "groups": 3})])
def test_conv2d_forward_backward_on_device(n, c, h, w, o, k, kw):
    kh, kw_ = (k, k) if isinstance(k, int) else k
    g = kw.get("groups", 1)
    x = loom.randn(n, c, h, w, dtype=loom.float64, requires_grad=True)
    wt = loom.randn(o, c // g, kh, kw_, dtype=loom.float64, requires_grad=True)
    b = loom.randn(o, dtype=loom.float64, requires_grad=True)
    y = loom.nn.functional.conv2d(x, wt, b, **kw)
    gy = loom.randn(*y.shape, dtype=loom.float64)
    (y * gy).sum().backward()
    xc, wc, bc = (t.detach().cuda().requires_grad_() for t in (x, wt, b))
    yc = loom.nn.functional.conv2d(xc, wc, bc, **kw)
    (yc * gy.cuda()).sum().backward()
    _compare(yc.detach(), y.detach(), "conv2d")
    for got, want, name in ((xc.grad, x.grad, "d input"), (wc.grad, wt.grad, "d weight"), (bc.grad, b.grad, "d bias")):
        _compare(got, want, name)


@needs_gpu
@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 3, "stride": 2, "ceil_mode": True}, {"kernel_size": 2, "dilation": 2}])
def test_max_pool2d_on_device(kw):
    F = loom.nn.functional
    x = loom.randn(2, 3, 9, 8, dtype=loom.float64)
    x[0, 0, 0, :3] = float("nan")
    x.requires_grad_()
    y = F.max_pool2d(x, **kw)
    gy = loom.randn(*y.shape, dtype=loom.float64)
    (y * gy).sum().backward()
    xc = x.detach().cuda().requires_grad_()
    yc = F.max_pool2d(xc, **kw)
    (yc * gy.cuda()).sum().backward()
    _compare(yc.detach(), y.detach(), "max_pool2d")
    _compare(xc.grad, x.grad, "max_pool2d backward")
    v, i = F.max_pool2d(xc.detach(), return_indices=True, **kw)
    _compare(i, F.max_pool2d(x.detach(), return_indices=True, **kw)[1], "indices")


@needs_gpu
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_and_cross_entropy_on_device(reduction):
    F = loom.nn.functional
    x = loom.randn(6, 5, 3, dtype=loom.float64, requires_grad=True)
    t = loom.tensor([[0, 4, 2], [1, 1, -100], [3, 0, 4], [2, 2, 2], [-100, -100, 0], [4, 3, 1]])
    w = loom.rand(5, dtype=loom.float64) + 0.5
    for weight in (None, w):
        x.grad = None
        y = F.cross_entropy(x, t, weight=weight, reduction=reduction)
        (y * 1.5).sum().backward()
        xc = x.detach().cuda().requires_grad_()
        yc = F.cross_entropy(xc, t.cuda(), weight=None if weight is None else weight.cuda(), reduction=reduction)
        (yc * 1.5).sum().backward()
        _compare(yc.detach(), y.detach(), "cross_entropy")
        _compare(xc.grad, x.grad, "cross_entropy backward")
    with pytest.raises(IndexError, match="out of bounds"):
        F.nll_loss(loom.randn(2, 3).cuda(), loom.tensor([0, 3]).cuda())


@needs_gpu
def test_random_on_the_device_is_seeded_and_shaped():
    loom.cuda.manual_seed(123)
    a = loom.rand(1000, device="cuda")
    loom.cuda.manual_seed(123)
    b = loom.rand(1000, device="cuda")
    np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    c = loom.rand(1000, device="cuda")   # the generator moved on
    assert not np.array_equal(a.cpu().numpy(), c.cpu().numpy())
    u = a.cpu().numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.05
    for dt in (loom.float32, loom.float64):
        z = loom.randn(1 << 16, device="cuda", dtype=dt).cpu().numpy()
        assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    k = loom.randint(-3, 4, (1000,), device="cuda").cpu().numpy()
    assert k.min() == -3 and k.max() == 3
    loom.cuda.manual_seed(7)   # element i depends on (seed, i) alone: a longer draw starts the same
    short = loom.rand(10, device="cuda").cpu().numpy()
    loom.cuda.manual_seed(7)
    np.testing.assert_array_equal(loom.rand(1000, device="cuda").cpu().numpy()[:10], short)


@needs_gpu
def test_softmax_embedding_index_select_on_device():
    x = loom.randn(37, 1000, dtype=loom.float64)
    for dim in (0, 1):
        for fn in (loom.softmax, loom.log_softmax):
            _compare(fn(x.cuda(), dim), fn(x, dim), fn.__name__)
    xg = x.clone().requires_grad_()
    xc = x.cuda().requires_grad_()
    w = loom.randn(37, 1000, dtype=loom.float64)
    (loom.log_softmax(xg, 1) * w).sum().backward()
    (loom.log_softmax(xc, 1) * w.cuda()).sum().backward()
    _compare(xc.grad, xg.grad, "log_softmax backward")
    emb = loom.randn(50, 24)
    idx = loom.tensor([[3, 0, 49], [7, 7, 1]])
    _compare(loom.nn.functional.embedding(idx.cuda(), emb.cuda()), loom.nn.functional.embedding(idx, emb), "embedding")
    _compare(loom.index_select(emb.cuda(), 1, loom.tensor([5, 2]).cuda()), loom.index_select(emb, 1, loom.tensor([5, 2])),
             "index_select")
    with pytest.raises(IndexError):
        loom.index_select(emb.cuda(), 0, loom.tensor([50]).cuda())


@needs_gpu
@pytest.mark.parametrize("dtype", [loom.float32, loom.float64])
def test_norm_kernels_on_device(dtype):
    """Rows longer than a block, a strided input, and each subset of gradients asked for."""
    F = loom.nn.functional
    for shape, ns in (((5, 3, 1000), [1000]), ((2, 700, 3), [700, 3]), ((0, 8), [8])):
        x = loom.randn(*shape, dtype=dtype) * 3 + 1
        w, b, g = loom.randn(*ns, dtype=dtype), loom.randn(*ns, dtype=dtype), loom.randn(*shape, dtype=dtype)
        for wt, bt in ((w, b), (None, None)):
            want = loom.native_layer_norm(x, ns, wt, bt, 1e-5)
            got = loom.native_layer_norm(x.cuda(), ns, _cuda(wt), _cuda(bt), 1e-5)
            _compare(got, want, "native_layer_norm")
            for mask in ((True, True, True), (True, False, False), (False, True, True)):
                args = (g, x, ns, want[1], want[2], wt, bt, *mask)
                _compare(loom.native_layer_norm_backward(*(_cuda(a) for a in args)),
                         loom.native_layer_norm_backward(*args), "native_layer_norm_backward")
    for shape in ((8, 3, 5, 7), (300, 4), (2, 5, 33, 40)):
        x = loom.randn(*shape, dtype=dtype).transpose(0, 1).contiguous().transpose(0, 1) * 2 - 1
        c = shape[1]
        w, b, g = loom.randn(c, dtype=dtype), loom.randn(c, dtype=dtype), loom.randn(*shape, dtype=dtype)
        for wt, bt in ((w, b), (None, None)):
            want = loom._batch_norm_train(x, wt, bt, 1e-5)
            _compare(loom._batch_norm_train(x.cuda(), _cuda(wt), _cuda(bt), 1e-5), want, "_batch_norm_train")
            for mask in ((True, True, True), (False, True, False)):
                args = (g, x, want[1], want[2], wt, *mask)
                _compare(loom._batch_norm_train_backward(*(_cuda(a) for a in args)),
                         loom._batch_norm_train_backward(*args), "_batch_norm_train_backward")
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        loom._batch_norm_train(loom.randn(1, 3).cuda(), None, None, 1e-5)
    with pytest.raises(ValueError, match="normalized_shape"):
        F.layer_norm(loom.randn(2, 3).cuda(), [4])


@needs_gpu
def test_gather_scatter_index_add_on_device():
    x = loom.randn(6, 9, 4, dtype=loom.float64)
    idx = loom.randint(0, 6, (5, 9, 3))
    for dt in (loom.int64, loom.int32):
        i = idx.to(dt)
        _compare(loom.gather(x.cuda(), 0, i.cuda()), loom.gather(x, 0, i), "gather")
        _compare(loom.gather(x.transpose(0, 2).cuda(), 2, i.transpose(0, 2).cuda()),
                 loom.gather(x.transpose(0, 2), 2, i.transpose(0, 2)), "gather strided")
    src = loom.randn(5, 9, 3, dtype=loom.float64)
    _compare(loom.scatter(x.cuda(), 0, idx.cuda(), src.cuda()), loom.scatter(x, 0, idx, src), "scatter.src")
    _compare(loom.scatter(x.cuda(), 0, idx.cuda(), 2.5), loom.scatter(x, 0, idx, 2.5), "scatter.value")
    _compare(loom.scatter_add(x.cuda(), 0, idx.cuda(), src.cuda()), loom.scatter_add(x, 0, idx, src), "scatter_add")
    xi = loom.randint(-50, 50, (6, 9, 4)).to(loom.int16)
    _compare(loom.scatter_add(xi.cuda(), 1, idx[:, :4].cuda(), xi.cuda()), loom.scatter_add(xi, 1, idx[:, :4], xi),
             "scatter_add int16")
    xb = loom.zeros(3, 4, dtype=loom.bool)
    ib, sb = loom.tensor([[0, 1, 1]]), loom.tensor([[True, False, True]])
    _compare(loom.scatter_add(xb.cuda(), 1, ib.cuda(), sb.cuda()), loom.scatter_add(xb, 1, ib, sb), "scatter_add bool")
    j = loom.tensor([3, 0, 3, 5, 3])
    s2 = loom.randn(6, 5, 4, dtype=loom.float64)
    _compare(loom.index_add(x.cuda(), 1, j.cuda(), s2.cuda(), alpha=-2), loom.index_add(x, 1, j, s2, alpha=-2),
             "index_add")
    _compare(loom.index_add(xi.cuda(), 0, j.cuda(), xi[:5].cuda()), loom.index_add(xi, 0, j, xi[:5]), "index_add int16")
    bad = idx.clone()
    bad[1, 2, 0], bad[4, 0, 1] = 6, -1
    for fn in (lambda t, i: loom.gather(t, 0, i), lambda t, i: loom.scatter(t, 0, i, 1.0),
               lambda t, i: loom.scatter_add(t, 0, i, src.to(t.device))):
        with pytest.raises(IndexError) as cpu:
            fn(x, bad)
        with pytest.raises(IndexError) as dev:
            fn(x.cuda(), bad.cuda())
        assert str(dev.value) == str(cpu.value)
    with pytest.raises(IndexError, match="out of bounds"):
        loom.index_add(x.cuda(), 1, loom.tensor([9]).cuda(), s2[:, :1].cuda())


@needs_gpu
def test_argreduce_scan_pool_on_device():
    x = loom.randn(7, 300, 5, dtype=loom.float64).round()   # ties
    x[2, 17, 3], x[2, 40, 3], x[5, 0, 0] = float("nan"), float("nan"), float("nan")
    for dim in (None, 0, 1, 2):
        for fn in (loom.argmax, loom.argmin):
            _compare(fn(x.cuda(), dim), fn(x, dim), fn.__name__)
    for dim in (0, 1, 2):
        for fn in (loom.max, loom.min):
            _compare(tuple(fn(x.cuda(), dim, keepdim=True)), tuple(fn(x, dim, keepdim=True)), fn.__name__)
            _compare(tuple(fn(x.transpose(0, 1).cuda(), dim)), tuple(fn(x.transpose(0, 1), dim)), fn.__name__)
    xi = loom.randint(-3, 4, (4, 50))
    for dt in (loom.bool, loom.int8, loom.int64):
        _compare(loom.argmax(xi.to(dt).cuda(), 1), loom.argmax(xi.to(dt), 1), "argmax")
        _compare(loom.cumsum(xi.to(dt).cuda(), 1), loom.cumsum(xi.to(dt), 1), "cumsum")
        _compare(loom.cumprod(xi.to(dt).cuda(), 0), loom.cumprod(xi.to(dt), 0), "cumprod")
    y = loom.rand(6, 200, 3, dtype=loom.float64) + 0.5
    for dim in (0, 1, 2):
        for fn in (loom.cumsum, loom.cumprod, loom.logcumsumexp):
            _compare(fn(y.transpose(0, 2).cuda(), dim), fn(y.transpose(0, 2), dim), fn.__name__)
        for fn in (loom.cummax, loom.cummin):   # ties move the index on; a NaN sticks
            _compare(tuple(fn(x.transpose(0, 2).cuda(), dim)), tuple(fn(x.transpose(0, 2), dim)), fn.__name__)
    _compare(loom.cumsum(xi.cuda(), 1, dtype=loom.float32), loom.cumsum(xi, 1, dtype=loom.float32), "cumsum dtype=")
    F = loom.nn.functional
    p = loom.randn(2, 3, 11, 9, dtype=loom.float64)
    for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
               {"kernel_size": 3, "stride": 2, "ceil_mode": True, "count_include_pad": False},
               {"kernel_size": (4, 3), "stride": (1, 2), "padding": (2, 1), "divisor_override": 5}):
        pg, pc = p.clone().requires_grad_(), p.cuda().requires_grad_()
        y, yc = F.avg_pool2d(pg, **kw), F.avg_pool2d(pc, **kw)
        gy = loom.randn(*y.shape, dtype=loom.float64)
        (y * gy).sum().backward()
        (yc * gy.cuda()).sum().backward()
        _compare(yc.detach(), y.detach(), "avg_pool2d")
        _compare(pc.grad, pg.grad, "avg_pool2d backward")
    for size in ((1, 1), (4, 5), (11, 9), (20, 13)):
        pg, pc = p.clone().requires_grad_(), p.cuda().requires_grad_()
        y, yc = F.adaptive_avg_pool2d(pg, size), F.adaptive_avg_pool2d(pc, size)
        gy = loom.randn(*y.shape, dtype=loom.float64)
        (y * gy).sum().backward()
        (yc * gy.cuda()).sum().backward()
        _compare(yc.detach(), y.detach(), "adaptive_avg_pool2d")
        _compare(pc.grad, pg.grad, "adaptive_avg_pool2d backward")


@needs_gpu
@pytest.mark.parametrize("shape,dims", [((1000, 37), 0), ((1000, 37), 1), ((7, 300, 5), (0, 2)), ((3, 4, 5), None),
                                        ((1 << 20,), None), ((4096, 513), 0), ((2, 3), ()), ((0, 4), 0)])
def test_reductions_match_cpu(shape, dims):
    x = loom.randn(*shape, dtype=loom.float64)
    for name in ("sum", "mean", "amax", "amin", "prod"):
        if name in ("amax", "amin") and 0 in shape:
            continue
        fn = getattr(loom, name)
        kw = {} if dims is None else {"dim": dims}
        for keep in (False, True):
            if dims is None and name in ("sum", "mean", "prod"):
                want, got = fn(x), fn(x.cuda())
            else:
                want, got = fn(x, keepdim=keep, **kw), fn(x.cuda(), keepdim=keep, **kw)
            _compare(got, want, name)
    xt = x.transpose(0, -1) if len(shape) > 1 else x
    _compare(loom.sum(xt.cuda(), dim=0), loom.sum(xt, dim=0), "sum of a transposed input")


@needs_gpu
def test_copies_between_devices():
    a = loom.arange(24, dtype=loom.float32).reshape(2, 3, 4)
    c = a.cuda()
    assert c.is_cuda and c.device == loom.device("cuda") and str(c.device) == "cuda:0"
    np.testing.assert_array_equal(c.cpu().numpy(), a.numpy())
    np.testing.assert_array_equal(c.transpose(0, 2).cpu().numpy(), a.transpose(0, 2).numpy())   # strided D2H
    np.testing.assert_array_equal(c.to(loom.int64).cpu().numpy(), a.numpy().astype(np.int64))   # device cast
    np.testing.assert_array_equal(a.transpose(0, 2).cuda().cpu().numpy(), a.transpose(0, 2).numpy())
    np.testing.assert_array_equal(a.to("cuda", dtype=loom.float64).cpu().numpy(), a.numpy().astype(np.float64))
    d = loom.zeros(4, 3, 2, device="cuda").transpose(0, 2)   # non-contiguous destination
    d.copy_(a)
    np.testing.assert_array_equal(d.cpu().numpy(), a.numpy())
    e = loom.empty(2, 3, 4, device="cuda")
    e.fill_(7)
    assert e.sum().item() == 7 * 24
    e[0] = a[1]   # host -> device slice assignment
    np.testing.assert_array_equal(e[0].cpu().numpy(), a[1].numpy())
    assert c[1, 2, 3].item() == 23.0 and float(c.sum()) == 276.0
    assert c.tolist() == a.tolist()
    assert "device='cuda:0'" in repr(c)
    f = loom.full((3,), 2.5, device="cuda")
    np.testing.assert_array_equal(f.cpu().numpy(), [2.5] * 3)
    for t in (loom.arange(5, device="cuda"), loom.eye(3, device="cuda"), loom.rand(4, device="cuda"),
              loom.randn(4, device="cuda"), loom.randint(0, 9, (4,), device="cuda"), loom.tensor([1, 2], device="cuda")):
        assert t.is_cuda


@needs_gpu
def test_big_and_odd_layouts():
    n = (1 << 22) + 3   # not a multiple of the vector width: the tail path
    x = loom.randn(n)
    xc = x.cuda()
    _compare(loom.exp(xc), loom.exp(x), "exp")
    _compare(xc[1:] + xc[:-1], x[1:] + x[:-1], "misaligned add")
    m = loom.randn(513, 257)
    _compare(m.cuda().t() * 2 + m.cuda().t(), m.t() * 2 + m.t(), "transposed")
    v = loom.randn(257)
    _compare(m.cuda() + v.cuda(), m + v, "broadcast")
    _compare(m.cuda() * 3, m * 3, "scalar")
    _compare(3 - m.cuda(), 3 - m, "reflected scalar")
    _compare(m.cuda() + loom.tensor(2.0), m + loom.tensor(2.0), "0-d CPU tensor operand")


@needs_gpu
def test_strided_iterations_beyond_32bit_offsets():
    """A strided pointwise kernel takes 32-bit offsets; larger iterations run as pieces that fit."""
    rows, cols = (1 << 15) + 3, 1 << 14   # float32: 2^31 bytes and a little more
    a = loom.arange(rows, dtype=loom.float32, device="cuda")[:, None] * loom.ones(1, cols, device="cuda")
    b = a[:, ::2] + 1   # a strided read spanning more than 2^31 bytes
    assert b.shape == (rows, cols // 2) and b.is_contiguous()
    assert bool((b == loom.arange(1, rows + 1, dtype=loom.float32, device="cuda")[:, None]).all())
    del a, b
    x = loom.ones((1 << 16) + 1, (1 << 15) + 1, dtype=loom.uint8, device="cuda")   # 2^31 elements and more
    x[-1, -1] = 7
    y = x.t() + loom.ones(x.shape[1], x.shape[0], dtype=loom.uint8, device="cuda")   # layouts differ: strided
    assert y.shape == ((1 << 15) + 1, (1 << 16) + 1)
    assert int(y[-1, -1]) == 8 and int(y[0, 0]) == 2 and int((y == 2).sum()) == y.numel() - 1


@needs_gpu
def test_device_mixing_and_missing_kernels_are_errors():
    a, b = loom.ones(3).cuda(), loom.ones(3)
    with pytest.raises(RuntimeError, match="same device"):
        a + b
    with pytest.raises(RuntimeError, match="same device"):
        loom.mm(loom.ones(2, 2).cuda(), loom.ones(2, 2))
    with pytest.raises(TypeError, match="not implemented for dtype"):
        loom.nn.functional.conv2d(loom.ones(1, 1, 4, 4, dtype=loom.int64).cuda(), loom.ones(1, 1, 3, 3).cuda())
    with pytest.raises(TypeError, match="numpy"):
        a.numpy()
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        loom.ones(1, device="cuda:7")


@needs_gpu
@pytest.mark.parametrize("dtype", [loom.float32, loom.float64])
def test_matmul_linear_cublas(dtype):
    rng = np.random.default_rng(0)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == loom.float32 else dict(rtol=1e-10, atol=1e-10)

    def t(*shape):
        return loom.tensor(rng.standard_normal(shape)).to(dtype)
    for a, b in [(t(64, 32), t(32, 48)), (t(5, 64, 32), t(5, 32, 7)), (t(5, 64, 32), t(32, 7)), (t(32), t(32, 9)),
                 (t(9, 32), t(32)), (t(2, 3, 4, 5), t(3, 5, 6)), (t(31, 17).t(), t(31, 5)), (t(0, 3), t(3, 2)),
                 (t(2, 3, 8, 4), t(2, 3, 8, 4).transpose(-1, -2)), (t(2, 3, 8, 4), t(1, 1, 4, 5)),
                 (t(3, 2, 8, 4).transpose(0, 1), t(2, 3, 4, 5)), (t(2, 1, 8, 4), t(3, 4, 6)), (t(4, 0), t(0, 3)),
                 (t(2, 3, 8, 4), t(2, 4, 4, 6)[:, 1:])]:
        np.testing.assert_allclose(loom.matmul(a.cuda(), b.cuda()).cpu().numpy(), loom.matmul(a, b).numpy(), **tol)
    x, w, bias = t(10, 6, 32), t(16, 32), t(16)
    np.testing.assert_allclose(loom.nn.functional.linear(x.cuda(), w.cuda(), bias.cuda()).cpu().numpy(),
                               loom.nn.functional.linear(x, w, bias).numpy(), **tol)


@needs_gpu
def test_autograd_mlp_step_matches_cpu():
    loom.manual_seed(0)
    net = loom.nn.Sequential(loom.nn.Linear(20, 32), loom.nn.Tanh(), loom.nn.Linear(32, 3))
    x, y = loom.randn(16, 20), loom.randn(16, 3)
    loss = ((net(x) - y) ** 2).mean()
    loss.backward()
    grads = [p.grad.numpy().copy() for p in net.parameters()]
    net.zero_grad()
    net_c = net.to("cuda")
    assert all(p.is_cuda for p in net_c.parameters())
    loss_c = ((net_c(x.cuda()) - y.cuda()) ** 2).mean()
    loss_c.backward()
    np.testing.assert_allclose(loss_c.item(), loss.item(), rtol=1e-5)
    for g, p in zip(grads, net_c.parameters()):
        assert p.grad.is_cuda
        np.testing.assert_allclose(p.grad.cpu().numpy(), g, rtol=1e-4, atol=1e-5)
    opt = loom.optim.SGD(net_c.parameters(), lr=0.1)
    opt.step()


@needs_gpu
def test_caching_allocator_bookkeeping():
    loom.cuda.synchronize()
    base = loom.cuda.memory_allocated()
    x = loom.empty(1 << 20, device="cuda")   # 4 MiB
    assert loom.cuda.memory_allocated() - base >= 4 << 20
    assert loom.cuda.max_memory_allocated() >= loom.cuda.memory_allocated()
    reserved = loom.cuda.memory_reserved()
    del x
    assert loom.cuda.memory_allocated() == base
    assert loom.cuda.memory_reserved() == reserved   # kept in the cache, not given back
    y = loom.empty(1 << 20, device="cuda")   # reused without a new cudaMalloc
    assert loom.cuda.memory_reserved() == reserved
    del y
    loom.cuda.empty_cache()
    assert loom.cuda.memory_reserved() < reserved


@needs_gpu
def test_cuda_array_interface_with_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this torch has no CUDA")
    x = loom.arange(6, dtype=loom.float32, device="cuda").reshape(2, 3)
    t = torch.as_tensor(x, device="cuda")
    assert t.data_ptr() == x.data_ptr()   # zero-copy
    assert t.sum().item() == 15.0


@needs_gpu
def test_dlpack_cuda_both_ways():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this torch has no CUDA")
    t = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)[:, 1:]   # strided
    x = loom.from_dlpack(t)
    assert x.is_cuda and x.data_ptr() == t.data_ptr() and x.shape == (3, 3)
    t.add_(1)   # shared memory: the write shows through
    torch.cuda.synchronize()
    np.testing.assert_array_equal(x.cpu().numpy(), t.cpu().numpy())
    y = loom.arange(5, dtype=loom.int64, device="cuda")
    u = torch.from_dlpack(y)
    assert u.device.type == "cuda" and u.data_ptr() == y.data_ptr() and u.tolist() == [0, 1, 2, 3, 4]
    del y   # the capsule's deleter keeps the memory alive for torch
    assert u.sum().item() == 10
    with pytest.raises(RuntimeError, match="require gradient"):
        loom.ones(2, device="cuda", requires_grad=True).__dlpack__()


@needs_gpu
def test_save_load_keeps_the_device(tmp_path):
    sd = {"w": loom.randn(3, 4, device="cuda"), "b": loom.ones(2)}
    loom.save(sd, tmp_path / "m.loom")
    back = loom.load(tmp_path / "m.loom")
    assert back["w"].is_cuda and not back["b"].is_cuda
    np.testing.assert_array_equal(back["w"].cpu().numpy(), sd["w"].cpu().numpy())
    assert not loom.load(tmp_path / "m.loom", map_location="cpu")["w"].is_cuda
    assert loom.load(tmp_path / "m.loom", map_location={"cpu": "cuda:0"})["b"].is_cuda


@needs_gpu
def test_digits_trains_on_cuda(tmp_path):
    from loom.examples import digits
    results = digits.main(["--device", "cuda", "--epochs", "3", "--no-progress", "--out", str(tmp_path)])
    assert results["mlp"] > 0.85 and results["cnn"] > 0.5


@needs_gpu
def test_device_info_events_and_streams():
    assert loom.cuda.get_device_name()   # the driver's name for it
    free, total = loom.cuda.mem_get_info()
    assert 0 < free <= total
    start, end = loom.cuda.Event(enable_timing=True), loom.cuda.Event(enable_timing=True)
    x = loom.randn(1 << 22, device="cuda")
    start.record()
    for _ in range(5):
        x = x * 1.0001
    end.record()
    end.synchronize()
    assert end.query() and start.elapsed_time(end) > 0
    s = loom.cuda.current_stream()
    with loom.cuda.stream(s):
        y = x + 1
    s.synchronize()
    assert y.is_cuda


@needs_gpu
def test_pinned_memory_and_loader():
    x = loom.arange(10, dtype=loom.float32)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and p.pin_memory() is p
    np.testing.assert_array_equal(p.to("cuda", non_blocking=True).cpu().numpy(), x.numpy())
    ds = loom.utils.data.TensorDataset(loom.randn(8, 3), loom.arange(8))
    for xb, yb in loom.utils.data.DataLoader(ds, batch_size=4, pin_memory=True):
        assert xb.is_pinned() and yb.is_pinned()


@needs_gpu
def test_transformer_layer_on_device_matches_cpu():
    loom.manual_seed(0)
    layer = loom.nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0, batch_first=True).double()
    x = loom.randn(3, 10, 32, dtype=loom.float64)
    mask = loom.nn.Transformer.generate_square_subsequent_mask(10).double()
    y = layer(x, src_mask=mask, is_causal=True)
    y.square().mean().backward()
    grads = [p.grad.numpy().copy() for p in layer.parameters()]
    layer.zero_grad()
    layer.cuda()
    yc = layer(x.cuda(), src_mask=mask.cuda(), is_causal=True)
    yc.square().mean().backward()
    _compare(yc.detach(), y.detach(), "encoder layer")
    for g, p in zip(grads, layer.parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), g, rtol=1e-9, atol=1e-12)


@needs_gpu
@pytest.mark.parametrize("dtype", [loom.float16, loom.bfloat16])
def test_16bit_products_on_cublas_match_the_cpu(dtype):
    """float16/bfloat16 matmul, bmm and linear (forward and backward) run as cuBLAS's 16-bit
    GEMMs accumulating in float32; the CPU's GEMM converts the 16-bit operands as it packs them. Both
    round once, so they differ by the accumulation order: a unit or two in the last place."""
    rng = np.random.default_rng(1)
    tol = dict(rtol=2e-2, atol=2e-2) if dtype == loom.bfloat16 else dict(rtol=3e-3, atol=3e-3)

    def t(*shape):
        return loom.tensor(rng.standard_normal(shape) / 4).to(dtype)

    def same(got, want):
        assert got.is_cuda and got.dtype == dtype and got.shape == want.shape
        np.testing.assert_allclose(got.cpu().float().numpy(), want.float().numpy(), **tol)
    for a, b in [(t(64, 32), t(32, 48)), (t(5, 64, 32), t(5, 32, 7)), (t(5, 64, 32), t(32, 7)), (t(31, 17).t(), t(31, 5)),
                 (t(2, 3, 4, 5), t(3, 5, 6)), (t(0, 3), t(3, 2)), (t(4, 0), t(0, 3))]:
        same(loom.matmul(a.cuda(), b.cuda()), loom.matmul(a, b))
    a, b = t(3, 8, 16), t(3, 16, 4)
    same(loom.bmm(a.cuda(), b.cuda()), loom.bmm(a, b))
    x, w, bias = t(10, 6, 32), t(16, 32), t(16)
    xs = [v.clone().requires_grad_() for v in (x, w, bias)]
    xc = [v.cuda().requires_grad_() for v in (x, w, bias)]
    yh, yc = loom.nn.functional.linear(*xs), loom.nn.functional.linear(*xc)
    same(yc, yh)
    yh.float().square().sum().backward()
    yc.float().square().sum().backward()
    for h, c in zip(xs, xc):
        assert c.grad.dtype == dtype
        np.testing.assert_allclose(c.grad.cpu().float().numpy(), h.grad.float().numpy(), rtol=5e-2, atol=5e-2)


@needs_gpu
@pytest.mark.parametrize("dtype", [loom.float16, loom.bfloat16])
def test_autocast_training_step_on_the_gpu(dtype):
    """A float32 MLP trained under loom.autocast("cuda", dtype) with a GradScaler: the
    products run in the 16-bit dtype, the loss falls, the parameters stay float32."""
    loom.manual_seed(0)
    net = loom.nn.Sequential(loom.nn.Linear(32, 64), loom.nn.ReLU(), loom.nn.Linear(64, 1)).cuda()
    opt = loom.optim.Adam(net.parameters(), lr=1e-2)
    scaler = loom.amp.GradScaler("cuda", enabled=dtype == loom.float16)
    x = loom.randn(256, 32, device="cuda")
    y = x[:, :4].sum(1, keepdim=True)
    losses = []
    for _ in range(60):
        with loom.autocast("cuda", dtype=dtype):
            out = net(x)
            assert out.dtype == dtype
            loss = loom.nn.functional.mse_loss(out.float(), y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert all(p.dtype == loom.float32 and p.is_cuda for p in net.parameters())
    assert losses[-1] < 0.2 * losses[0], losses[::10]


@needs_gpu
@pytest.mark.parametrize("dtype", [loom.float16, loom.bfloat16])
def test_16bit_pointwise_reduction_and_casts_on_the_gpu(dtype):
    """The generated 16-bit kernels (16-bit loads, float32 math, one rounding) agree with
    the CPU's bit for bit on the simple ops, and reductions accumulate in float32."""
    x = loom.linspace(-4, 4, 1001).to(dtype)
    xc = x.cuda()
    for f in (lambda v: v + v * 3, lambda v: v.abs(), lambda v: -v, lambda v: v.clamp(-1, 1), lambda v: v.relu()):
        assert loom.equal(f(xc).cpu(), f(x))
    np.testing.assert_allclose(loom.exp(xc).cpu().float().numpy(), loom.exp(x).float().numpy(), rtol=1e-2)
    ones = loom.ones(4096, dtype=dtype, device="cuda")
    assert ones.sum().item() == 4096.0   # a 16-bit accumulator would stop at 2048 (f16) or 256 (bf16)
    assert loom.ones(1 << 16, dtype=loom.float16, device="cuda").sum().item() == float("inf")   # > 65504, as torch
    assert xc.float().cpu().dtype == loom.float32 and loom.equal(xc.float().cpu().to(dtype), x)
