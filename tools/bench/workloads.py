"""The benchmark workloads: each builds one callable per library from shared
NumPy data and says how to turn seconds into its unit. Add one with @workload."""
import numpy as np

WORKLOADS = []


def workload(name, unit, amount, target=None):
    """amount: bytes (GB/s), flops (GFLOP/s) or None (latency in us).
    target: (kind, value) - ("le", 0.8), ("ge", 30), ("vs_torch", 1.0) or ("vs_numpy", 0.95)."""
    def register(setup):
        WORKLOADS.append(dict(name=name, unit=unit, amount=amount, target=target, setup=setup))
        return setup
    return register


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


N = 10 ** 7


@workload("a + b, 1 element", "us", None, ("le", 0.8))
def tiny_add(lib, mod):
    a, b = rand(1), rand(1, seed=1)
    if lib == "numpy":
        return ("a + b", {"a": a, "b": b}), a + b
    x, y = mod.from_numpy(a), mod.from_numpy(b)
    return ("x + y", {"x": x, "y": y}), x + y


@workload("add 1e7 f32, new output", "GB/s", 3 * 4 * N, ("ge", 30))
def add_new(lib, mod):
    return _binary(lib, mod, lambda x, y: x + y)


@workload("mul 1e7 f32, new output", "GB/s", 3 * 4 * N, ("ge", 30))
def mul_new(lib, mod):
    return _binary(lib, mod, lambda x, y: x * y)


@workload("add 1e7 f32, out=", "GB/s", 3 * 4 * N)
def add_out(lib, mod):
    a, b = rand(N), rand(N, seed=1)
    if lib == "numpy":
        c = np.empty_like(a)
        return lambda: np.add(a, b, out=c), a + b
    x, y = mod.from_numpy(a), mod.from_numpy(b)
    c = mod.empty(N)
    return lambda: mod.add(x, y, out=c), x + y


@workload("exp 1e7 f32", "GB/s", 2 * 4 * N, ("ge", 20))
def exp(lib, mod):
    a = rand(N)
    if lib == "numpy":
        return lambda: np.exp(a), np.exp(a)
    x = mod.from_numpy(a)
    return lambda: mod.exp(x), mod.exp(x)


@workload("A.T + B, 1000x1000", "GB/s", 3 * 4 * 10 ** 6, ("vs_torch", 1.0))
def transposed_add(lib, mod):
    a, b = rand(1000, 1000), rand(1000, 1000, seed=1)
    if lib == "numpy":
        return lambda: a.T + b, a.T + b
    x, y = mod.from_numpy(a), mod.from_numpy(b)
    return lambda: x.T + y, x.T + y


def _sum(dim):
    def setup(lib, mod):
        a = rand(4000, 4000)
        if lib == "numpy":
            return lambda: a.sum(axis=dim), a.astype(np.float64).sum(axis=dim)
        x = mod.from_numpy(a)
        return (lambda: x.sum()) if dim is None else (lambda: x.sum(dim)), x.sum() if dim is None else x.sum(dim)
    return setup


workload("sum all, 4000x4000", "GB/s", 4 * 16 * 10 ** 6, ("vs_torch", 1.0))(_sum(None))
workload("sum dim=0, 4000x4000", "GB/s", 4 * 16 * 10 ** 6, ("vs_torch", 1.0))(_sum(0))
workload("sum dim=1, 4000x4000", "GB/s", 4 * 16 * 10 ** 6, ("vs_torch", 1.0))(_sum(1))


@workload("matmul 1024^2 f32", "GFLOP/s", 2 * 1024 ** 3, ("vs_numpy", 0.95))
def matmul(lib, mod):
    a, b = rand(1024, 1024), rand(1024, 1024, seed=1)
    if lib == "numpy":
        return lambda: a @ b, a @ b
    x, y = mod.from_numpy(a), mod.from_numpy(b)
    return lambda: x @ y, x @ y


def _binary(lib, mod, f):
    a, b = rand(N), rand(N, seed=1)
    if lib == "numpy":
        return lambda: f(a, b), f(a, b)
    x, y = mod.from_numpy(a), mod.from_numpy(b)
    return lambda: f(x, y), f(x, y)


# ---- autograd (NumPy has none: its column stays empty)

@workload("requires_grad a + b, 1 element", "us", None, ("le", 1.5))
def grad_tiny_add(lib, mod):
    if lib == "numpy":
        return None
    a, b = (mod.tensor([1.0], requires_grad=True) for _ in range(2))
    return ("a + b", {"a": a, "b": b}), (a + b).detach()


@workload("fwd+bwd (a*b + a).sum(), 1 elem", "us", None, ("le", 20))
def grad_tiny_expr(lib, mod):
    if lib == "numpy":
        return None
    a, b = mod.tensor([1.5], requires_grad=True), mod.tensor([2.0], requires_grad=True)

    def step():
        a.grad = None
        (a * b + a).sum().backward()
    step()
    return ("step()", {"step": step}), a.grad.detach()


@workload("MLP 64-128-10 fwd+bwd, batch 64", "us", None, ("vs_torch", 1.0))
def mlp_step(lib, mod):
    if lib == "numpy":
        return None
    x = mod.from_numpy(rand(64, 64))
    w1 = mod.from_numpy(rand(64, 128, seed=1) * 0.1).requires_grad_()
    w2 = mod.from_numpy(rand(128, 10, seed=2) * 0.1).requires_grad_()

    def step():
        w1.grad = w2.grad = None
        y = (x @ w1).relu() @ w2
        (y * y).mean().backward()
    step()
    return ("step()", {"step": step}), w2.grad.detach()
