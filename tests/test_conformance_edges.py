"""Edge cases where loom must give PyTorch's values: gradients at singular points, shape
errors, and the call forms PyTorch code uses (issue 16). Each compares with torch."""
import numpy as np
import pytest

import loom
import loom.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def grads(fn_loom, fn_torch, *values, dtype="float32"):
    """The gradients of sum(fn(*inputs)) for each input, loom's and torch's, as NumPy arrays."""
    lx = [loom.tensor(np.asarray(v, dtype=dtype), requires_grad=True) for v in values]
    tx = [torch.tensor(np.asarray(v, dtype=dtype), requires_grad=True) for v in values]
    fn_loom(*lx).sum().backward()
    fn_torch(*tx).sum().backward()
    return [x.grad.numpy() for x in lx], [x.grad.numpy() for x in tx]


def assert_grads(fn_loom, fn_torch, *values, rtol=1e-5, **kw):
    got, want = grads(fn_loom, fn_torch, *values, **kw)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=0)


def test_matmul_vector_vector_backward():
    assert_grads(lambda a, b: a @ b, lambda a, b: a @ b, [1.0, 2.0, 3.0], [4.0, -5.0, 6.0])
    a = loom.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (a @ a).backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 4.0, 6.0])


@pytest.mark.parametrize("x", [[[2.0, 0.0, 3.0]], [[2.0, 0.0, 0.0]], [[0.0, 5.0], [3.0, 4.0]],
                               [[[1.0, 0.0], [2.0, 3.0]], [[0.0, 0.0], [4.0, -1.5]]]])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, -1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_prod_backward_with_zeros(x, dim, keepdim):
    if dim is None:
        assert_grads(lambda t: t.prod(), lambda t: t.prod(), x)
    elif isinstance(dim, tuple):   # torch's prod takes one dim: reduce them one after the other
        assert_grads(lambda t: t.prod(list(dim), keepdim=keepdim),
                     lambda t: t.prod(dim[1], keepdim=True).prod(dim[0], keepdim=keepdim), x)
    else:
        assert_grads(lambda t: t.prod(dim, keepdim=keepdim), lambda t: t.prod(dim, keepdim=keepdim), x)


def test_prod_backward_values_from_the_issue():
    x = loom.tensor([[2.0, 0.0, 3.0]], requires_grad=True)
    x.prod(1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 6.0, 0.0]])


def test_pow_backward_at_zero():
    base = [0.0, 0.0, 0.0, 2.0, -2.0, 0.0, 3.0]
    expo = [0.0, 2.5, -1.0, 0.0, 2.0, 1.0, -0.5]
    assert_grads(lambda a, b: loom.pow(a, b), lambda a, b: torch.pow(a, b), base, expo)
    assert_grads(lambda a: a ** 0, lambda a: a ** 0, [0.0, 1.0])


def test_atan2_backward_at_origin():
    assert_grads(lambda a, b: loom.atan2(a, b), lambda a, b: torch.atan2(a, b),
                 [0.0, 1e-30, -2.0, 1.0], [0.0, 0.0, 2.0, -3.0])


KINKS = [-6.0, -3.0, -2.5, -1e-7, 0.0, 1e-7, 2.5, 3.0, 5.0, 6.0, 7.0]


@pytest.mark.parametrize("name", ["relu6", "hardsigmoid", "hardswish"])
def test_activation_gradients_at_kinks(name):
    assert_grads(getattr(F, name), getattr(TF, name), KINKS, dtype="float64")


@pytest.mark.parametrize("name", ["relu6", "hardsigmoid", "hardswish"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activation_values_and_dtypes(name, dtype):
    v = np.array(KINKS + [float("nan"), float("inf"), -float("inf")], dtype=dtype)
    got = getattr(F, name)(loom.tensor(v))
    want = getattr(TF, name)(torch.tensor(v)).numpy()
    assert got.numpy().dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
def test_normalize_zero_vector_gradient(p):
    x = [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]]
    assert_grads(lambda t: F.normalize(t, p=p, dim=1), lambda t: TF.normalize(t, p=p, dim=1), x,
                 dtype="float64")


def test_cosine_similarity_zero_vector_gradient():
    a = [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [1e-10, 0.0, 0.0]]
    b = [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [2.0, 1.0, 0.0]]
    assert_grads(lambda s, t: F.cosine_similarity(s, t), lambda s, t: TF.cosine_similarity(s, t), a, b,
                 dtype="float64")
    got = F.cosine_similarity(loom.tensor(a, dtype=loom.float64), loom.tensor(b, dtype=loom.float64))
    want = TF.cosine_similarity(torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("values", [[3e38, -3e38, 0.0, 1.0], [1e-45, 0.0, 2e-45], [1.0, 2.0, 4.0],
                                    [1e30, 1e30 * (1 + 2 ** -20), 1e30], [-3.0e38, 1.0]])
def test_std_var_do_not_overflow(dtype, values):
    a = np.array(values, dtype=dtype)
    for name in ("std", "var"):
        got = getattr(loom.tensor(a), name)().numpy()
        want = getattr(torch.tensor(a), name)().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert np.isfinite(loom.tensor(np.array([3e38, -3e38, 0, 1], dtype="float32")).std().item())


def test_std_var_special_rows_and_gradient():
    inf, nan = float("inf"), float("nan")
    rows = [[1.0, inf, 2.0], [inf, inf, 1.0], [-inf, inf, 1.0], [nan, 1.0, 2.0], [5.0, 5.0, 5.0]]
    for name in ("std", "var"):
        for kw in ({"dim": 1}, {"dim": 1, "keepdim": True}, {}):
            got = getattr(loom.tensor(rows, dtype=loom.float64), name)(**kw).numpy()
            want = getattr(torch.tensor(rows, dtype=torch.float64), name)(**kw).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-12)
    # float64 near its max: PyTorch's float64 std overflows to inf, loom scales and gives the true value
    np.testing.assert_allclose(loom.tensor([3e300, -3e300, 1.0], dtype=loom.float64).std().item(), 3e300, rtol=1e-12)
    # the float32 gradient near the max is the true one (PyTorch's float32 gives 0 there: compare in float64)
    x = [[3e38, -3e38, 0.0, 1.0], [1.0, 2.0, 3.0, 5.0]]
    lx = loom.tensor(x, requires_grad=True)
    lx.std(1).sum().backward()
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    tx.std(1).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-30)
    assert_grads(lambda t: t.var(0), lambda t: t.var(0), [[1.0, 2.0], [4.0, -1.0]], dtype="float64")


@pytest.mark.parametrize("call", [
    lambda m, F_: F_.max_pool2d(m.ones(1, 1, 3, 3), 5), lambda m, F_: F_.avg_pool2d(m.ones(1, 1, 3, 3), 5),
    lambda m, F_: F_.max_pool1d(m.ones(1, 1, 3), 5), lambda m, F_: F_.avg_pool1d(m.ones(1, 1, 3), 5),
    lambda m, F_: F_.max_pool2d(m.ones(2, 4, 4), (2, 7), stride=1)])
def test_pool_output_too_small(call):
    with pytest.raises(RuntimeError):
        call(torch, TF)
    with pytest.raises(ValueError, match="Output size is too small"):
        call(loom, F)


@pytest.mark.parametrize("kw", [dict(kernel_size=5, ceil_mode=True), dict(kernel_size=4, padding=2),
                                dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, stride=2, padding=1)])
def test_pool_output_shapes_near_the_edge(kw):
    x = np.arange(9.0, dtype="float32").reshape(1, 1, 3, 3)
    for name in ("max_pool2d", "avg_pool2d"):
        np.testing.assert_allclose(getattr(F, name)(loom.tensor(x), **kw).numpy(),
                                   getattr(TF, name)(torch.tensor(x), **kw).numpy(), rtol=1e-6)


@pytest.mark.parametrize("shape,dim,keepdim", [((2, 0), 1, False), ((2, 0), [1], True), ((0, 3), 1, False),
                                               ((2, 0, 3), [1, 2], False)])
def test_logsumexp_empty_dim(shape, dim, keepdim):
    for dtype in ("float32", "int64"):
        got = loom.logsumexp(loom.tensor(np.ones(shape, dtype=dtype)), dim, keepdim)
        want = torch.logsumexp(torch.tensor(np.ones(shape, dtype=dtype)), dim, keepdim)
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("alpha,beta", [(1.5, 1), (2, 0.5), (-1.5, 2.7), (1, 0), (0.5, 0.5)])
def test_addmm_integer_with_float_scalars(alpha, beta):
    a = [[1, 2], [3, -4]]
    got = loom.addmm(loom.tensor(a), loom.tensor(a), loom.tensor(a), alpha=alpha, beta=beta)
    want = torch.addmm(torch.tensor(a), torch.tensor(a), torch.tensor(a), alpha=alpha, beta=beta)
    assert got.dtype == loom.int64
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_tensor_call_forms_match_torch():
    v = np.array([[1.0, -2.0, float("nan")], [3.0, -0.0, 4.5]], dtype="float32")
    lx, tx = loom.tensor(v), torch.tensor(v)
    assert lx.ndimension() == tx.ndimension() == 2
    for name, args in [("absolute", ()), ("clip", (-1.0, 2.0)), ("expand_as", "other3"), ("view_as", "other6"),
                       ("reshape_as", "other32"), ("type_as", "int")]:
        shapes = {"other3": (4, 2, 3), "other6": (6,), "other32": (3, 2)}
        if args == "int":
            largs, targs = (loom.ones(1, dtype=loom.int64),), (torch.ones(1, dtype=torch.int64),)
        elif isinstance(args, str):
            largs, targs = (loom.ones(*shapes[args]),), (torch.ones(*shapes[args]),)
        else:
            largs = targs = args
        got = getattr(lx, name)(*largs).numpy()
        want = getattr(tx, name)(*targs).numpy()
        assert got.dtype == want.dtype and got.shape == want.shape, name
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(loom.clip(lx, min=0).numpy(), torch.clip(tx, min=0).numpy())
    np.testing.assert_array_equal(loom.absolute(lx).numpy(), torch.absolute(tx).numpy())
    y = loom.tensor(v.copy())
    y.clip_(max=1.0).absolute_()
    np.testing.assert_array_equal(y.numpy(), torch.tensor(v).clip_(max=1.0).absolute_().numpy())


@pytest.mark.parametrize("a,b", [([1, 2], [1, 2]), ([1, 2], [1, 3]), ([1, 2], [[1, 2]]), ([1.0, float("nan")], [1.0, float("nan")]),
                                 ([1, 2], [1.0, 2.0])])
def test_equal(a, b):
    want = torch.equal(torch.tensor(a), torch.tensor(b))
    assert loom.equal(loom.tensor(a), loom.tensor(b)) is want
    assert loom.tensor(a).equal(loom.tensor(b)) is want


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_new_factories(dtype):
    lx, tx = loom.tensor(np.ones(2, dtype=dtype)), torch.tensor(np.ones(2, dtype=dtype))
    for name, args in [("new_zeros", (2, 3)), ("new_zeros", ((2, 3),)), ("new_ones", ((4,),)), ("new_full", ((2,), 7)),
                       ("new_tensor", ([1.5, 2.0],)), ("new_empty", ((3, 1),))]:
        got, want = getattr(lx, name)(*args), getattr(tx, name)(*args)
        assert got.numpy().dtype == want.numpy().dtype and tuple(got.shape) == tuple(want.shape), name
        if name != "new_empty":
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    g = lx.new_zeros(2, dtype=loom.float64, requires_grad=True)
    assert g.dtype == loom.float64 and g.requires_grad
    src = loom.ones(2, requires_grad=True)
    assert not lx.new_tensor(src).requires_grad


def test_compile_returns_the_callable_and_warns_once():
    import warnings
    import loom._compile as c
    c._warned = False
    model = loom.nn.Linear(2, 3)
    with pytest.warns(UserWarning, match="eagerly"):
        assert loom.compile(model, mode="max-autotune", fullgraph=True) is model
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn = lambda t: t * 2   # noqa: E731
        assert loom.compile(fn) is fn
        assert loom.compile(dynamic=True)(fn) is fn
    assert "eagerly" in loom.compile.__doc__


# The call forms of issue 16 beyond dim=/axis=: each is called the same way on loom and torch.
CALL_FORMS = {
    "var(x, dim, unbiased=False)": lambda L, a: L.var(a, 1, unbiased=False),
    "var(x, unbiased=False)": lambda L, a: L.var(a, unbiased=False),
    "x.std(dim, unbiased)": lambda L, a: a.std(1, True),
    "x.std(dim, unbiased, keepdim)": lambda L, a: a.std(1, False, True),
    "sort(stable=True)": lambda L, a: L.sort(a, stable=True, dim=1)[1],
    "argsort(stable=True)": lambda L, a: L.argsort(a, dim=1, stable=True),
    "nonzero(as_tuple=True)": lambda L, a: L.stack(L.nonzero(a > 0, as_tuple=True)),
    "x.nonzero(as_tuple=True) 0-d": lambda L, a: L.stack((a[0, 0] > -9).nonzero(as_tuple=True)),
    "where(cond)": lambda L, a: L.stack(L.where(a > 0)),
    "round(decimals=2)": lambda L, a: L.round(a, decimals=2),
    "round(decimals=-1)": lambda L, a: L.round(a * 100, decimals=-1),
    "round_(decimals=1)": lambda L, a: a.clone().round_(decimals=1),
    "softmax(int, dtype=)": lambda L, a: L.softmax((a * 10).long(), 1, dtype=L.float32),
    "log_softmax(int, dtype=)": lambda L, a: L.log_softmax((a * 10).long(), 1, dtype=L.float64),
    "cumsum(int, dtype=float)": lambda L, a: L.cumsum((a * 10).long(), 1, dtype=L.float32),
    "clamp(tensor bounds)": lambda L, a: L.clamp(a, min=a * 0 - 0.5, max=a * 0 + 0.5),
    "x.clamp(min=tensor)": lambda L, a: a.clamp(min=a[0]),
    "clamp_(tensor, tensor)": lambda L, a: a.clone().clamp_(a[0], a[1]),
    "clamp_min(tensor)": lambda L, a: L.clamp_min(a, a * 0),
    "x.clamp_max(tensor)": lambda L, a: a.clamp_max(a[1]),
    "clip(tensor, tensor)": lambda L, a: L.clip(a, a[0], a[1]),
    "gather(int32 index)": lambda L, a: L.gather(a, 1, L.zeros(3, 2, dtype=L.int32)),
    "scatter(int32 index)": lambda L, a: L.scatter(a, 1, L.ones(3, 1, dtype=L.int32), 1.0),
    "scatter_add(int32 index)": lambda L, a: L.scatter_add(a, 1, L.ones(3, 1, dtype=L.int32), a[:, :1]),
    "x.to(memory_format=)": lambda L, a: a.reshape(1, 3, 2, 2).to(memory_format=L.channels_last),
    "x.to(dtype, memory_format=)": lambda L, a: a.reshape(1, 3, 2, 2).to(L.float64, memory_format=L.channels_last),
    "x.cumsum_(dim)": lambda L, a: a.clone().cumsum_(1),
    "x.cumprod_(dim)": lambda L, a: a.clone().cumprod_(0),
    "randint_like(x, high).shape": lambda L, a: L.tensor(L.randint_like(a, 5).shape),
}


@pytest.mark.parametrize("form", list(CALL_FORMS), ids=list(CALL_FORMS))
def test_call_forms_as_torch(form):
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    got, want = CALL_FORMS[form](loom, loom.tensor(x)), CALL_FORMS[form](torch, torch.tensor(x))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


def test_module_to_channels_last():
    m = loom.nn.Conv2d(3, 4, 3).to(memory_format=loom.channels_last)
    assert m.weight.is_contiguous(memory_format=loom.channels_last) and m.bias.is_contiguous()
    x = loom.randn(2, 3, 8, 8)
    y = m(x.to(memory_format=loom.channels_last))   # the layers take channels_last input as any strided one
    want = loom.nn.functional.conv2d(x, m.weight.contiguous(), m.bias)
    np.testing.assert_allclose(y.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_clamp_needs_a_bound():
    for lib in (loom, torch):
        with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
            lib.clamp(lib.ones(2))
    with pytest.raises(RuntimeError, match=r"^clamp\(\): At least one of 'min' or 'max'"):
        loom.clamp(loom.ones(2), min=None, max=None)


def test_functions_take_input_by_keyword_as_torch():
    """A schema's `self` is the function's `input`, as PyTorch's Python signatures (torch.exp(input=x))."""
    x, y = np.array([[1.0, -2.0], [3.0, 0.5]]), np.array([[2.0, 2.0], [1.0, 4.0]])
    for name, kw in [("exp", {}), ("sum", {"dim": 1}), ("add", {"other": y}), ("div", {"other": y}),
                     ("clamp", {"min": 0.0}), ("nonzero", {})]:
        lk = {k: loom.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        tk = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        got = getattr(loom, name)(input=loom.tensor(x), **lk)
        want = getattr(torch, name)(input=torch.tensor(x), **tk)
        np.testing.assert_allclose(got.numpy(), want.numpy(), err_msg=name)
    with pytest.raises(TypeError, match=r"exp\(\) missing 1 required positional argument: 'input'"):
        loom.exp()
    with pytest.raises(TypeError, match="argument 'input' must be Tensor, not str"):
        loom.sum("a")
    assert loom.nn.functional.sigmoid is loom.sigmoid and loom.nn.functional.linear is loom.linear


def test_numpy_views_of_any_layout():
    base = loom.arange(24.0).reshape(2, 3, 4)
    for t in (base, base.transpose(0, 2), base[:, 1:, ::2], base[0], loom.tensor(5.0), loom.zeros(0, 3)):
        a = np.asarray(t)
        np.testing.assert_array_equal(a, np.array(t.tolist(), dtype=a.dtype).reshape(a.shape))
        assert a.shape == tuple(t.shape) and (t.numel() == 0 or a.__array_interface__["data"][0] == t.data_ptr())
