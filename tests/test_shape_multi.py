"""split, chunk, unbind, broadcast_tensors, meshgrid and atleast_* (python/loom/_multi.py),
and behaviour of the shape composites in ops.yaml that the generated tests do not reach:
views against copies, errors, gradients against PyTorch's."""
import numpy as np
import pytest

import loom

A = np.arange(24, dtype=np.float64).reshape(4, 6)


def np_of(ts):
    return [np.asarray(t) for t in ts]


@pytest.mark.parametrize("size, dim, sizes", [(4, 1, [4, 2]), (2, 0, [2, 2]), ([1, 5], 1, [1, 5]), ([0, 4], 0, [0, 4])])
def test_split_sizes_and_values(size, dim, sizes):
    parts = loom.split(loom.tensor(A), size, dim)
    assert [p.shape[dim] for p in parts] == sizes
    np.testing.assert_array_equal(np.concatenate(np_of(parts), axis=dim), A)


def test_split_pieces_are_views():
    x = loom.tensor(A)
    a, b = x.split(3, 1)
    a[0, 0] = 100.0
    assert x[0, 0].item() == 100.0


@pytest.mark.parametrize("call, msg", [
    (lambda x: x.split(-1), "non-negative"),
    (lambda x: x.split(0), "can only be 0"),
    (lambda x: x.split([1, 1]), "sum exactly to 4"),
    (lambda x: x.split(2, 5), "Dimension out of range"),
    (lambda x: x.chunk(0), "greater than 0"),
    (lambda x: loom.tensor(1.0).unbind(), "no dimensions"),
])
def test_errors_name_the_op(call, msg):
    with pytest.raises(RuntimeError, match=msg) as err:
        call(loom.tensor(A))
    assert str(err.value).split("(")[0] in ("split", "chunk", "unbind")


def test_chunk_and_unbind():
    x = loom.tensor(A)
    assert [p.shape[1] for p in x.chunk(4, 1)] == [2, 2, 2]   # 6 in chunks of ceil(6/4)=2: 3 pieces
    assert len(loom.chunk(loom.zeros(0), 3)) == 3
    rows = loom.unbind(x)
    assert len(rows) == 4 and rows[2].shape == (6,)
    np.testing.assert_array_equal(np.asarray(x.unbind(1)[5]), A[:, 5])


def test_broadcast():
    a, b = loom.broadcast_tensors(loom.zeros(3, 1), loom.ones(4))
    assert a.shape == b.shape == (3, 4) and b.stride() == (0, 1)
    assert loom.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
    with pytest.raises(RuntimeError, match="broadcast_tensors"):
        loom.broadcast_tensors(loom.zeros(3), loom.zeros(2))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_as_numpy(indexing):
    xs = [np.arange(2.0), np.arange(3.0), np.arange(4.0)]
    got = loom.meshgrid(*[loom.tensor(v) for v in xs], indexing=indexing)
    for g, w in zip(got, np.meshgrid(*xs, indexing=indexing)):
        np.testing.assert_array_equal(np.asarray(g), w)
    with pytest.raises(ValueError, match="indexing"):
        loom.meshgrid(loom.zeros(2), indexing="yx")


def test_atleast():
    s = loom.tensor(2.0)
    assert loom.atleast_1d(s).shape == (1,) and loom.atleast_2d(s).shape == (1, 1)
    assert loom.atleast_3d(loom.zeros(5)).shape == (1, 5, 1) and loom.atleast_3d(loom.zeros(2, 5)).shape == (2, 5, 1)
    a, b = loom.atleast_2d(s, loom.zeros(3))
    assert a.shape == (1, 1) and b.shape == (1, 3)
    x = loom.zeros(2, 3)
    assert loom.atleast_2d(x) is x


def test_copies_and_views():
    x = loom.tensor(A)
    for y in (x.repeat(1, 1), x[:1].repeat(3, 1), x.tile(1), x[:, :1].repeat_interleave(2, 1), x.flip([]), x.roll(0)):
        y.fill_(-1.0)
        assert x.min().item() == 0.0   # never wrote x
    v = x.select(1, 2)
    v.fill_(7.0)
    assert (x[:, 2] == 7.0).all().item()
    d = x.diagonal(-1)   # a view, as PyTorch's, with one stride for the two dims
    assert d.stride() == (7,) and d.shape == (3,)
    d.fill_(-2.0)
    np.testing.assert_array_equal(np.diagonal(np.asarray(x), -1), [-2.0] * 3)
    assert x.diagonal(10).shape == (0,) and x.diagonal(-(2**63)).shape == (0,)
    assert loom.movedim(loom.tensor(1.0), 0, -1).shape == ()   # PyTorch allows dim 0 of a 0-d tensor
    x.diag().fill_(5.0)   # diag copies
    assert x[0, 0].item() == 0.0


@pytest.mark.parametrize("call, exc, msg", [
    (lambda x: x.flip(0, 0), RuntimeError, "dim 0 appears multiple times"),
    (lambda x: x.roll((1, 2)), RuntimeError, "shifts and dimensions must align"),
    (lambda x: x.repeat(2), RuntimeError, "can not be smaller"),
    (lambda x: x.repeat_interleave(loom.tensor([1, 2]), dim=0), RuntimeError, "same size as input along dim"),
    (lambda x: x.repeat_interleave(-1), RuntimeError, "non-negative"),
    (lambda x: x.movedim((0, 0), (0, 1)), RuntimeError, "repeated dim in `source`"),
    (lambda x: x.select(0, 4), IndexError, "index 4 out of range"),
    (lambda x: x.unflatten(1, (4, -1)), RuntimeError, "don't multiply up"),
    (lambda x: x.take_along_dim(loom.zeros(4, 1), 1), RuntimeError, "int64"),
    (lambda x: x.masked_select(x), RuntimeError, "BoolTensor"),
    (lambda x: x.reshape(2, 2, 6).diag(), RuntimeError, "1D or 2D"),
    (lambda x: x.diagonal(0, 1, -1), RuntimeError, "cannot be identical"),
    (lambda x: x[0].trace(), RuntimeError, "expected a matrix"),
    (lambda x: x.rot90(1, (0, 0)), RuntimeError, "rotation dims to be different"),
    (lambda x: x[0, 0].fliplr(), RuntimeError, ">= 2-d"),
    (lambda x: x[0].tril(), RuntimeError, "at least 2 dimensions"),
    (lambda x: loom.hstack([]), RuntimeError, "non-empty"),
])
def test_composite_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call(loom.tensor(A))


CASES = {
    "flip": lambda m, x: x.flip(0, 1), "roll": lambda m, x: x.roll(2), "repeat": lambda m, x: x.repeat(2, 1, 2),
    "repeat_interleave": lambda m, x: x.repeat_interleave(m.tensor([1, 0, 2, 1, 1, 3]), dim=1),
    "tril": lambda m, x: x.tril(1), "movedim": lambda m, x: m.movedim(x, 0, 1), "select": lambda m, x: x.select(1, -2),
    "take_along_dim": lambda m, x: m.take_along_dim(x, m.tensor([[0], [5], [1], [1]]), 1),
    "masked_select": lambda m, x: x.masked_select(m.tensor([True, False, True, True, False, True])),
    "diag": lambda m, x: m.diag(x[0], -1), "diagonal": lambda m, x: x.reshape(2, 2, 6).diagonal(1, 2, 0),
    "trace": lambda m, x: x.trace(), "rot90": lambda m, x: x.rot90(3), "vstack": lambda m, x: m.vstack([x, x[0]]),
    "split": lambda m, x: m.cat([p * (i + 1) for i, p in enumerate(x.split([1, 2, 3], 1))], 1),
    "unbind": lambda m, x: m.stack(x.unbind(1)[::-1]), "chunk": lambda m, x: x.chunk(3)[1],
    "meshgrid": lambda m, x: m.stack(m.meshgrid(x[0], x[1], indexing="xy")),
    "broadcast_tensors": lambda m, x: m.broadcast_tensors(x, x[:1, :])[1],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    torch = pytest.importorskip("torch")
    g = np.random.default_rng(1).standard_normal(A.shape)
    xl = loom.tensor(A * 0.1 + g, requires_grad=True)
    xt = torch.tensor(A * 0.1 + g, requires_grad=True)
    yl, yt = CASES[name](loom, xl), CASES[name](torch, xt)
    np.testing.assert_allclose(np.asarray(yl.detach()), yt.detach().numpy())
    w = np.random.default_rng(2).standard_normal(tuple(yt.shape))
    (yl * loom.tensor(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(np.asarray(xl.grad), xt.grad.numpy(), atol=1e-12)
