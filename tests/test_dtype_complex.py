"""complex64 and complex128: the table rows, Python numbers, promotion, NumPy/DLPack
exchange, the ops that list them (against PyTorch), views of the parts, matmul
through cgemm/zgemm, and autograd with PyTorch's convention (conjugate Wirtinger
gradients), gradcheck on complex inputs and optimizer steps on complex parameters."""
import numpy as np
import pytest

import loom
from loom.autograd import gradcheck, gradgradcheck
from opinputs import MODEL

torch = pytest.importorskip("torch")

COMPLEX = ("complex64", "complex128")
TOL = {"complex64": dict(rtol=2e-5, atol=2e-5), "complex128": dict(rtol=1e-10, atol=1e-12)}


def cvalues(shape, dtype, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return ((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * scale).astype(dtype)


def both(arr):
    return loom.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def close(a, t, dtype, **kw):
    want = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    got = a.detach().numpy()
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, **{**TOL.get(dtype, TOL["complex128"]), **kw})


# ---- the dtypes ----
def test_dtype_objects_and_aliases():
    assert loom.cfloat is loom.complex64 and loom.cdouble is loom.complex128
    for name, size in (("complex64", 8), ("complex128", 16)):
        d = getattr(loom, name)
        assert d.is_complex and not d.is_floating_point and d.itemsize == size
        assert d.numpy == np.dtype(name)
    assert loom.zeros(2, dtype=loom.cfloat).is_complex()
    assert not loom.zeros(2).is_complex()
    assert loom.finfo(loom.complex64).eps == torch.finfo(torch.complex64).eps
    assert loom.finfo(loom.complex128).dtype == "float64"


def test_python_complex_numbers():
    t = loom.tensor([1 + 2j, -1j])
    assert t.dtype is loom.complex64
    assert t.tolist() == [1 + 2j, -1j]
    assert t[0].item() == 1 + 2j and isinstance(t[0].item(), complex)
    assert loom.full((2,), 1 - 1j).dtype is loom.complex64
    assert loom.ones(2, dtype=loom.complex128).tolist() == [1, 1]
    prev = loom.get_default_dtype()
    loom.set_default_dtype(loom.float64)
    try:
        assert loom.tensor([1j]).dtype is loom.complex128
        assert (loom.ones(2) + 1j).dtype is loom.complex128
    finally:
        loom.set_default_dtype(prev)


@pytest.mark.parametrize("a", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                               "float64", "complex64", "complex128"])
@pytest.mark.parametrize("b", COMPLEX)
def test_promote_types_match_torch(a, b):
    got = loom.promote_types(getattr(loom, a), getattr(loom, b))
    assert got.name == str(torch.promote_types(getattr(torch, a), getattr(torch, b))).split(".")[1]


@pytest.mark.parametrize("case", [
    ("float32", (3,), 1j), ("int64", (3,), 1j), ("float64", (3,), 2j), ("bool", (3,), 1j),
    ("complex64", (3,), 1.5), ("complex64", (3,), 2), ("complex128", (3,), 1j),
])
def test_weak_scalar_promotion_matches_torch(case):
    dt, shape, s = case
    a = loom.ones(shape, dtype=getattr(loom, dt)) + s
    t = torch.ones(shape, dtype=getattr(torch, dt)) + s
    close(a, t, str(t.dtype).split(".")[1])


def test_zero_dim_and_dimensioned_complex_promotion():
    # a 0-d float64 beside a complex64 tensor only raises the category: complex64 (as torch)
    assert (loom.ones(3, dtype=loom.complex64) + loom.tensor(1.0, dtype=loom.float64)).dtype is loom.complex64
    assert (loom.ones(3, dtype=loom.complex64) + loom.ones(3, dtype=loom.float64)).dtype is loom.complex128
    assert (loom.ones(3) + loom.tensor(1j)).dtype is loom.complex64


def test_complex_scalar_into_real_tensor_refused():
    a = loom.zeros(3)
    with pytest.raises(TypeError, match="can't be cast to the desired output type float32"):
        a.add_(1j)
    with pytest.raises(OverflowError, match="float32"):
        a.fill_(1 + 1j)
    a.fill_(2 + 0j)   # no imaginary part: fits, as in torch
    assert a.tolist() == [2, 2, 2]


def test_ops_not_listing_complex_refuse_it():
    z = loom.tensor([1 + 1j])
    with pytest.raises(TypeError, match="complex64"):
        z < z
    with pytest.raises(TypeError, match="complex64"):
        loom.amax(z)


# ---- exchange ----
@pytest.mark.parametrize("dtype", COMPLEX)
def test_numpy_zero_copy_both_ways(dtype):
    arr = cvalues((3, 4), dtype)
    t = loom.from_numpy(arr)
    arr[0, 0] = 7 - 7j
    assert t[0, 0].item() == 7 - 7j
    back = t.numpy()
    back[1, 1] = 3j
    assert arr[1, 1] == 3j and back.dtype == np.dtype(dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_dlpack_round_trips_with_torch_exactly(dtype):
    arr = cvalues((2, 5), dtype)
    t = torch.from_dlpack(loom.from_numpy(arr))
    np.testing.assert_array_equal(t.numpy(), arr)
    back = loom.from_dlpack(torch.from_numpy(arr))
    assert back.dtype.name == dtype
    np.testing.assert_array_equal(back.numpy(), arr)


def test_casts_between_real_and_complex():
    z = loom.tensor([1.5 + 2j, -3 - 0.5j, 0j])
    assert z.to(loom.float32).tolist() == [1.5, -3.0, 0.0]       # the real part, as torch
    assert z.to(loom.bool).tolist() == [True, True, False]
    assert z.to(loom.int64).tolist() == [1, -3, 0]
    assert z.to(loom.complex128).tolist() == z.tolist()
    assert loom.tensor([1.5, -2.0]).to(loom.complex64).tolist() == [1.5, -2]
    assert z.to(loom.float16).tolist() == [1.5, -3.0, 0.0]


# ---- ops against torch ----
UNARY = ["exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "asinh",
         "acosh", "atanh", "sigmoid", "reciprocal", "neg", "abs", "angle", "sgn", "conj", "conj_physical", "log2",
         "log10", "isnan", "isfinite"]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_torch(name, dtype):
    a, t = both(cvalues((4, 5), dtype))
    close(getattr(loom, name)(a), getattr(torch, name)(t).resolve_conj(), dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "eq", "ne"])
def test_binary_matches_torch(name, dtype):
    a, t = both(cvalues((4, 5), dtype, 1))
    b, u = both(cvalues((1, 5), dtype, 2))
    close(getattr(loom, name)(a, b), getattr(torch, name)(t, u), dtype, rtol=1e-4 if dtype == "complex64" else 1e-10)
    close(getattr(loom, name)(a, 0.5 - 2j), getattr(torch, name)(t, 0.5 - 2j), dtype,
          rtol=1e-4 if dtype == "complex64" else 1e-10)


def test_add_with_complex_alpha_and_where():
    a, t = both(cvalues((3,), "complex64"))
    close(loom.add(a, a, alpha=2 - 1j), torch.add(t, t, alpha=2 - 1j), "complex64")
    m = loom.tensor([True, False, True])
    close(loom.where(m, a, 0j), torch.where(torch.tensor([True, False, True]), t, 0j), "complex64")


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_reductions_match_torch(name, dtype, dim):
    a, t = both(cvalues((30, 7), dtype, scale=0.5 if name == "prod" else 1.0))
    kw = {} if dim is None else {"dim": dim}
    close(getattr(loom, name)(a, **kw), getattr(torch, name)(t, **kw), dtype, rtol=1e-4 if dtype == "complex64" else 1e-9)


# ---- parts ----
def test_real_imag_are_views():
    z = loom.tensor([1 + 2j, 3 - 4j])
    assert z.real.tolist() == [1, 3] and z.imag.tolist() == [2, -4]
    z.imag[0] = 9
    z.real = 0
    assert z.tolist() == [9j, -4j]
    assert z.real.dtype is loom.float32 and loom.real(loom.ones(2)).dtype is loom.float32
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        loom.ones(2).imag


def test_view_as_real_and_complex_share_memory():
    z = loom.from_numpy(cvalues((3, 2), "complex128"))
    r = loom.view_as_real(z)
    assert tuple(r.shape) == (3, 2, 2) and r.dtype is loom.float64
    r[1, 0, 1] = 5.0
    assert z[1, 0].item().imag == 5.0
    back = loom.view_as_complex(r)
    assert back.dtype is loom.complex128 and back.tolist() == z.tolist()
    zt = loom.view_as_real(z.transpose(0, 1))   # strided: parts of a transposed view
    np.testing.assert_array_equal(zt.numpy(), np.stack([z.numpy().T.real, z.numpy().T.imag], -1))
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        loom.view_as_complex(loom.ones(3, 3))
    with pytest.raises(RuntimeError, match="stride 1"):
        loom.view_as_complex(loom.ones(2, 3).t())
    with pytest.raises(RuntimeError, match="only supported for complex tensors"):
        loom.view_as_real(loom.ones(2))


def test_complex_and_polar():
    re, im = loom.tensor([1.0, 2.0]), loom.tensor([[0.5], [-1.0]])
    close(loom.complex(re, im), torch.complex(torch.tensor([1.0, 2.0]), torch.tensor([[0.5], [-1.0]])), "complex64")
    close(loom.polar(re, loom.tensor([0.3, 2.0])), torch.polar(torch.tensor([1.0, 2.0]), torch.tensor([0.3, 2.0])),
          "complex64")
    with pytest.raises(RuntimeError, match="same|scalar type"):
        loom.complex(re, re.double())


def test_printing():
    assert repr(loom.tensor([1 + 2j, -1j])) == "tensor([ 1.+2.j, -0.-1.j])"
    assert "dtype=loom.complex128" in repr(loom.tensor([1j], dtype=loom.complex128))
    assert repr(loom.tensor([1.5 + 2j])) == "tensor([1.5000+2.0000j])"


# ---- matmul ----
@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shapes", [((5, 7), (7, 3)), ((2, 5, 7), (7, 3)), ((7,), (7, 4)), ((4, 7), (7,))])
def test_matmul_matches_numpy(dtype, shapes):
    A, B = cvalues(shapes[0], dtype, 1), cvalues(shapes[1], dtype, 2)
    a, b = loom.from_numpy(A), loom.from_numpy(B)
    close(a @ b, A @ B, dtype, rtol=1e-4 if dtype == "complex64" else 1e-10)
    if a.ndim == 2 and b.ndim == 2:   # a transposed (conjugated) operand read in place
        close(a.mH @ a, A.conj().T @ A, dtype, rtol=1e-4 if dtype == "complex64" else 1e-10)
        close(loom.mm(a, b), A @ B, dtype, rtol=1e-4 if dtype == "complex64" else 1e-10)


def test_vdot_conjugates_its_first_argument():
    A = cvalues((2, 6), "complex128")
    a = loom.from_numpy(A)
    assert abs(loom.vdot(a[0], a[1]).item() - np.vdot(A[0], A[1])) < 1e-12
    assert abs(loom.dot(a[0], a[1]).item() - np.dot(A[0], A[1])) < 1e-12


# ---- autograd ----
FUNCS = {
    "abs2": lambda M, z: (z * z.conj()).real.sum(),
    "abs": lambda M, z: z.abs().sum(),
    "exp_mul_imag": lambda M, z: (z.exp() * z).imag.sum(),
    "sin_div_parts": lambda M, z: M.view_as_real(z.sin() / z).pow(2).sum(),
    "angle": lambda M, z: z.angle().sum(),
    "sgn": lambda M, z: (z * z).sgn().real.sum(),
    "chain": lambda M, z: z.tanh().sqrt().log().abs().mean(),
    "recip_cos_sigmoid": lambda M, z: (1 / z + z.cos() - z.sigmoid()).abs().sum(),
    "matmul": lambda M, z: (z.reshape(2, 2) @ z.reshape(2, 2).mH).real.sum() + (z.reshape(2, 2) @ z.reshape(2, 2)).imag.sum(),
    "python_scalars": lambda M, z: ((z * (2 - 1j)) / (0.5 + 1j) - 3j).abs().sum(),
}


@pytest.mark.parametrize("name", list(FUNCS))
def test_backward_matches_torch(name):
    v = np.array([1 + 2j, -0.5 + 0.3j, 0.7 - 1.1j, -1.2 - 0.4j])
    z = loom.tensor(v, dtype=loom.complex128, requires_grad=True)
    tz = torch.tensor(v, dtype=torch.complex128, requires_grad=True)
    FUNCS[name](loom, z).backward()
    FUNCS[name](torch, tz).backward()
    assert z.grad.dtype is loom.complex128
    np.testing.assert_allclose(z.grad.numpy(), tz.grad.numpy(), rtol=1e-10, atol=1e-12)


# every pointwise op listing complex128 that is differentiable: gradcheck on complex inputs
GRAD_OPS = sorted({op.name for op in MODEL.ops if op.kind == "pointwise" and "complex128" in op.dtypes
                   and op.promote != "bool_out"})


@pytest.mark.parametrize("name", GRAD_OPS)
def test_gradcheck_complex_inputs(name):
    op = next(o for o in MODEL.ops if o.name == name and o.kind == "pointwise")
    rng = np.random.default_rng(3)
    args = [loom.tensor(0.3 + 0.6 * rng.random(3) + 1j * (0.2 + 0.5 * rng.random(3)), dtype=loom.complex128,
                        requires_grad=True) for _ in op.inputs]
    fn = getattr(loom, name)
    assert gradcheck(lambda *xs: fn(*xs), args)


def test_gradgradcheck_complex():
    z = loom.tensor([0.4 + 0.3j, -0.7 + 1.1j], dtype=loom.complex128, requires_grad=True)
    assert gradgradcheck(lambda z: z.exp() * z.tanh() / (z + 2), (z,))


def test_gradcheck_catches_a_missing_conjugate():
    class BadMul(loom.autograd.Function):   # d(z * c)/dz passed back without conj(c): wrong for complex
        @staticmethod
        def forward(ctx, z, c):
            ctx.save_for_backward(c)
            return z * c

        @staticmethod
        def backward(ctx, g):
            (c,) = ctx.saved_tensors
            return g * c, None

    z = loom.tensor([0.4 + 0.3j, -0.7 + 1.1j], dtype=loom.complex128, requires_grad=True)
    c = loom.tensor([1 + 2j, 0.5 - 1j], dtype=loom.complex128)
    assert not gradcheck(lambda z: BadMul.apply(z, c), (z,), raise_exception=False)
    assert gradcheck(lambda z: z * c, (z,))


@pytest.mark.parametrize("opt", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_optimizer_steps_on_complex_parameters_match_torch(opt):
    w0 = cvalues((4,), "complex64", 5)
    losses, ws = [], []
    for M in (loom, torch):
        w = M.tensor(w0.copy(), requires_grad=True)
        target = M.tensor([1 + 1j, 2, -1j, 0.5])
        kw = dict(lr=0.05, momentum=0.9) if opt == "SGD" else dict(lr=0.05)
        o = getattr(M.optim, opt)([w], **kw)
        seen = []
        for _ in range(6):
            o.zero_grad()
            loss = (w - target).abs().pow(2).sum()
            loss.backward()
            o.step()
            seen.append(loss.item())
        losses.append(seen)
        ws.append(w.detach().numpy())
    assert losses[0][-1] < losses[0][0]   # a real loss decreases
    np.testing.assert_allclose(ws[0], ws[1], rtol=1e-5, atol=1e-6)


def test_complex_on_cuda_is_refused_by_name():
    if not loom.cuda.is_available():
        pytest.skip("no CUDA device")
    z = loom.ones(2, dtype=loom.complex64, device="cuda")   # made and moved: casts and copies serve it
    assert z.cpu().tolist() == [1, 1]
    with pytest.raises(NotImplementedError, match="no CUDA kernel for dtype complex64"):
        z.exp()


def test_indexing_complex_tensors_and_its_gradients():
    v = np.array([1 + 2j, 3 - 1j, 0.5j, -2 + 0.25j])
    z = loom.tensor(v)
    np.testing.assert_array_equal(z[z.real > 0.6].numpy(), v[v.real > 0.6].astype(np.complex64))
    np.testing.assert_array_equal(z[[0, 2]].numpy(), v[[0, 2]].astype(np.complex64))
    np.testing.assert_array_equal(loom.index_select(z, 0, loom.tensor([3, 0])).numpy(), v[[3, 0]].astype(np.complex64))
    fs = [lambda M, w: w[[0, 2, 0]].abs().sum(), lambda M, w: M.index_select(w, 0, M.tensor([2, 2, 1])).abs().sum(),
          lambda M, w: (w[w.real > 0.6] * w[w.real > 0.6]).real.sum()]
    for f in fs:
        w, t = loom.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
        f(loom, w).backward()
        f(torch, t).backward()
        np.testing.assert_allclose(w.grad.numpy(), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("ord", [2, 1, 0, 3, float("inf"), -float("inf")])
def test_complex_vector_norms_are_the_moduli_norms(ord):
    """The norm of a complex vector is the norm of its moduli, real (x * x is not |x|^2): every
    order, and normalize/pairwise_distance over it."""
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex128)
    b = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex128)
    got = loom.linalg_vector_norm(loom.tensor(a), ord, [1])
    assert got.dtype == loom.float64
    want = (np.abs(a) != 0).sum(1) if ord == 0 else np.linalg.norm(np.abs(a), ord, axis=1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    n = loom.nn.functional.normalize(loom.tensor(a))
    np.testing.assert_allclose(n.numpy(), a / np.maximum(np.linalg.norm(np.abs(a), 2, axis=1, keepdims=True), 1e-12),
                               rtol=1e-12)
    d = loom.nn.functional.pairwise_distance(loom.tensor(a), loom.tensor(b))
    assert d.dtype == loom.float64
    np.testing.assert_allclose(d.numpy(), np.linalg.norm(np.abs(a - b + 1e-6), axis=1), rtol=1e-12)
