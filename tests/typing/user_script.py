"""A small user script that mypy checks against loom's generated stubs
(tests/test_typing.py): everything here must type-check cleanly."""
import numpy as np

import loom


def normalise(x: loom.Tensor, dim: int = 1) -> loom.Tensor:
    mean = x.mean(dim, keepdim=True)
    return (x - mean) / (x.std(dim, keepdim=True) + 1e-5)


def main() -> float:
    loom.manual_seed(0)
    a = loom.randn(4, 3)
    b = loom.ones(3, dtype=loom.float32)
    c: loom.Tensor = loom.add(a, b, alpha=2)
    c = c * 2.0 + 1
    c.exp_()
    loom.mul(a, b, out=c)
    values, indices = loom.max(a, dim=1)
    s = loom.softmax(normalise(a), dim=-1)
    idx: loom.Tensor = loom.argmax(s, dim=1)
    shape: loom.Size = a.shape
    n: int = a.numel() + shape[0] + indices.ndim + idx.ndim
    arr: np.ndarray = (a @ b).numpy()
    w = loom.from_numpy(np.ones((3, 2), dtype=np.float32))
    y = loom.matmul(a, w).relu().sum(dim=[0, 1])
    flat = loom.cat([a, a], dim=0).reshape(-1)
    halves: tuple[loom.Tensor, ...] = a.split(2) + loom.chunk(a, 2, dim=1) + loom.meshgrid(b, b, indexing="xy")
    flat = loom.hstack([flat, loom.flip(a, [0]).tril().roll(1).reshape(-1), halves[0].reshape(-1)])
    return float(y.item()) + float(values.sum().item()) + n + arr.size + flat.numel() + train_step()


def train_step() -> float:
    w = loom.randn(3, 2, requires_grad=True)
    x = loom.randn(8, 3)
    loss = (loom.tanh(x @ w) ** 2).mean()
    loss.backward()
    grad: loom.Tensor | None = w.grad
    assert grad is not None and w.is_leaf
    with loom.no_grad():
        w -= 0.1 * grad
    model = loom.nn.Sequential(loom.nn.Linear(3, 4), loom.nn.ReLU(), loom.nn.Linear(4, 1))
    out = model(x).sum()
    out.backward()
    norms = loom.linalg.vector_norm(x, 2, dim=1) + x.norm(p=1, dim=[1]) + loom.norm(x, "fro")
    assert loom.allclose(norms, norms) and x.allclose(x)
    adj = loom.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    spread = loom.sparse.mm(adj, loom.ones(2, 3)) + loom.spmm(adj.coalesce(), loom.ones(2, 3))
    assert adj.is_sparse and adj.layout is loom.sparse_coo and x.layout is loom.strided and spread.shape == (2, 3)
    return float(loss.detach().item()) + float(out.item())


if __name__ == "__main__":
    print(main())
