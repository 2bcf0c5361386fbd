"""linear, linear_backward and matmul/mm/bmm in float16/bfloat16 on the CPU: the GEMM converts the 16-bit operands as it
packs them, so the results must equal, to the bit, the float32 path run on the operands' float32 copies
and rounded once (PyTorch's opmath), over shapes on each side of the kernels' size thresholds (the
converted-copy path for small products, one thread, the split over threads), strided operands
included. bfloat16 products on AMX tiles sum products in pairs, so these tests turn them off
(test_matmul_amx.py tests that path)."""
import pytest

import loom
import loom.nn.functional as F



@pytest.fixture(autouse=True)
def _float32_path():
    loom.backends.cpu.matmul.allow_bf16_amx = False
    yield
    loom.backends.cpu.matmul.allow_bf16_amx = True


SHAPES = [(3, 5, 4), (64, 96, 80), (256, 512, 784), (7, 33, 300), (1, 10, 512)]   # (M, N, K)


def _operands(dtype, M, N, K, transposed):
    g = loom.Generator().manual_seed(M * 1000 + N * 10 + K)
    x = loom.randn(M, K, generator=g).to(dtype)
    w = loom.randn(K, N, generator=g).to(dtype).T if transposed else loom.randn(N, K, generator=g).to(dtype)
    b = loom.randn(N, generator=g).to(dtype)
    return x, w, b


@pytest.mark.parametrize("dtype", [loom.bfloat16, loom.float16], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_linear_is_float32_rounded_once(dtype, shape, transposed):
    x, w, b = _operands(dtype, *shape, transposed)
    for bias in (b, None):
        got = F.linear(x, w, bias)
        want = F.linear(x.float(), w.float(), None if bias is None else bias.float()).to(dtype)
        assert got.dtype == dtype and got.shape == want.shape
        assert loom.equal(got.view(loom.int16), want.view(loom.int16))


@pytest.mark.parametrize("dtype", [loom.bfloat16, loom.float16], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_linear_backward_is_float32_rounded_once(dtype, shape):
    M, N, K = shape
    x, w, _ = _operands(dtype, M, N, K, False)
    g = loom.randn(M, N, generator=loom.Generator().manual_seed(7)).to(dtype)
    got = loom.linear_backward(g, x, w)
    want = loom.linear_backward(g.float(), x.float(), w.float())
    for a, b in zip(got, want):
        assert a.dtype == dtype
        assert loom.equal(a.view(loom.int16), b.to(dtype).view(loom.int16))


@pytest.mark.parametrize("dtype", [loom.bfloat16, loom.float16], ids=str)
@pytest.mark.parametrize("case", [((3, 4), (4, 5)), ((2, 64, 96), (2, 96, 80)), ((4, 1, 33, 70), (3, 70, 20)),
                                  ((300,), (300, 600)), ((256, 784), (784,)), ((0, 5), (5, 3))], ids=str)
def test_matmul_family_is_float32_rounded_once(dtype, case):
    g = loom.Generator().manual_seed(3)
    a, b = (loom.randn(*sh, generator=g).to(dtype) for sh in case)
    want = (a.float() @ b.float()).to(dtype)
    for got in (a @ b, loom.matmul(a, b.transpose(-1, -2).contiguous().transpose(-1, -2)) if b.ndim > 1 else a @ b):
        assert got.dtype == dtype and got.shape == want.shape
        assert loom.equal(got.view(loom.int16), want.view(loom.int16))
    if a.ndim == b.ndim == 2:
        assert loom.equal(loom.mm(a, b).view(loom.int16), want.view(loom.int16))
    if a.ndim == b.ndim == 3:
        assert loom.equal(loom.bmm(a, b).view(loom.int16), want.view(loom.int16))


def test_empty_and_leading_dims():
    x = loom.randn(2, 3, 0).bfloat16()
    w = loom.randn(4, 0).bfloat16()
    b = loom.arange(4.0).bfloat16()
    assert loom.equal(F.linear(x, w, b).float(), b.float().expand(2, 3, 4))
    assert loom.equal(F.linear(x, w).float(), loom.zeros(2, 3, 4))
    x = loom.randn(2, 3, 5).half()
    w = loom.randn(4, 5).half()
    assert loom.equal(F.linear(x, w), F.linear(x.float(), w.float()).half())


def _train(amp):
    loom.manual_seed(0)
    model = loom.nn.Sequential(loom.nn.Linear(20, 32), loom.nn.ReLU(), loom.nn.Linear(32, 3))
    opt = loom.optim.SGD(model.parameters(), lr=0.3)
    x = loom.randn(64, 20)
    y = x[:, :3].argmax(1)   # a rule the model can learn
    losses = []
    for _ in range(30):
        opt.zero_grad()
        with loom.autocast("cpu", dtype=loom.bfloat16, enabled=amp):
            out = model(x)
            loss = F.cross_entropy(out, y)
        assert out.dtype == (loom.bfloat16 if amp else loom.float32) and loss.dtype == loom.float32
        loss.backward()
        assert model[0].weight.grad.dtype == loom.float32
        opt.step()
        losses.append(loss.item())
    return losses


def test_autocast_step_trains_as_float32_does():
    amp, full = _train(True), _train(False)
    assert amp[-1] < 0.6 * amp[0]
    assert abs(amp[-1] - full[-1]) < 0.03
