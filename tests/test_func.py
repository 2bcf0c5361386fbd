"""loom.func against torch.func: vmap's in_dims/out_dims/nesting/randomness/chunk_size, grad and
friends, functional_call, and per-sample gradients of the digits MLP against single-sample backwards."""
import numpy as np
import pytest
import torch

import loom
from loom import func
from loom.examples.digits import make_model


def t2l(t):
    return loom.tensor(t.detach().numpy())


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy() if hasattr(b, "detach") else b,
                               rtol=tol, atol=tol)


def test_vmap_in_out_dims_nested():
    x = torch.randn(3, 4, 5)
    y = torch.randn(5)
    f = lambda a, b: (a * b).sum(-1)
    close(func.vmap(f, in_dims=(1, None))(t2l(x), t2l(y)), torch.func.vmap(f, in_dims=(1, None))(x, y))
    close(func.vmap(func.vmap(f, in_dims=(0, None)), in_dims=(0, None))(t2l(x), t2l(y)),
          torch.func.vmap(torch.func.vmap(f, in_dims=(0, None)), in_dims=(0, None))(x, y))
    g = lambda a: a.T.softmax(0)
    close(func.vmap(g, out_dims=2)(t2l(x)), torch.func.vmap(g, out_dims=2)(x))
    d = {"a": t2l(x), "b": t2l(y)}
    r = func.vmap(lambda p: p["a"] @ p["b"], in_dims=({"a": 0, "b": None},))(d)
    close(r, torch.func.vmap(lambda p: p["a"] @ p["b"], in_dims=({"a": 0, "b": None},))({"a": x, "b": y}))
    close(func.vmap(lambda a: a.sum(), chunk_size=2)(t2l(x)), x.sum((1, 2)))


def test_vmap_errors_match_torch():
    x = loom.randn(3, 4)
    with pytest.raises(ValueError, match="same size in the mapped dimension, got sizes \\[3, 2\\]"):
        func.vmap(loom.add)(x, loom.randn(2, 4))
    with pytest.raises(ValueError, match="at least one Tensor to vmap over"):
        func.vmap(loom.sin, in_dims=(None,))(x)
    with pytest.raises(ValueError, match="satisfy -2 <= in_dim < 2"):
        func.vmap(loom.sin, in_dims=5)(x)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        func.vmap(loom.sin, randomness="x")
    with pytest.raises(ValueError, match="must only return Tensors"):
        func.vmap(lambda a: 3)(x)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        func.vmap(lambda a: a + loom.rand(4))(x)
    with pytest.raises(RuntimeError, match="calling .item"):
        func.vmap(lambda a: a.sum().item())(x)


def test_vmap_no_rule_names_the_op():
    with pytest.raises(NotImplementedError, match="vmap: no batching rule for loom.nonzero"):
        func.vmap(loom.nonzero)(loom.randn(3, 4))


def test_randomness_modes():
    x = loom.zeros(4, 3)
    same = func.vmap(lambda a: a + loom.rand(3), randomness="same")(x)
    assert (same - same[0]).abs().max().item() == 0
    diff = func.vmap(lambda a: a + loom.rand(3), randomness="different")(x)
    assert (diff - diff[0]).abs().max().item() > 0


def test_grad_family_against_torch():
    xt = torch.randn(5, dtype=torch.float64)
    x = t2l(xt)
    f_t = lambda a: (a.sin() * a[0]).sum()
    f_l = lambda a: (a.sin() * a[0]).sum()
    close(func.grad(f_l)(x), torch.func.grad(f_t)(xt))
    g, v = func.grad_and_value(f_l)(x)
    close(v, f_t(xt))
    g, aux = func.grad(lambda a: (f_l(a), a * 2), has_aux=True)(x)
    close(aux, xt * 2)
    close(func.jacrev(lambda a: a.sin() * a)(x), torch.func.jacrev(lambda a: a.sin() * a)(xt))
    close(func.jacfwd(lambda a: a.sin() * a)(x), torch.func.jacfwd(lambda a: a.sin() * a)(xt))
    close(func.hessian(f_l)(x), torch.func.hessian(f_t)(xt))
    close(func.grad(func.grad(lambda a: (a ** 3).sum()))(loom.tensor(2.0, dtype=loom.float64)), 12.0)
    out, fn = func.vjp(lambda a: a.exp(), x)
    close(fn(loom.ones_like(x))[0], xt.exp())
    p, tan = func.jvp(lambda a: a.exp(), (x,), (loom.ones_like(x),))
    close(tan, xt.exp())
    a2 = func.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, x * 2)
    close(a2[0], xt * 2) and close(a2[1], xt)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor, got tensor with 1 dims"):
        func.grad(lambda a: a)(x)
    with pytest.raises(RuntimeError, match="Got argnum=3, but only 1 positional inputs"):
        func.grad(lambda a: a.sum(), argnums=3)(x)
    with pytest.raises(RuntimeError, match="should be a tuple: \\(output, aux\\)"):
        func.grad(lambda a: a.sum(), has_aux=True)(x)


def _loss(model):
    def loss(params, x, y):
        out = func.functional_call(model, params, (x.unsqueeze(0),))
        return loom.nn.functional.cross_entropy(out, y.unsqueeze(0))
    return loss


def test_per_sample_grads_digits_mlp():
    loom.manual_seed(0)
    model = make_model("mlp")
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = loom.randn(8, 64)
    y = loom.randint(0, 10, (8,))
    per = func.vmap(func.grad(_loss(model)), in_dims=(None, 0, 0))(params, x, y)
    for i in range(8):
        model.zero_grad()
        loom.nn.functional.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        for k, p in model.named_parameters():
            close(per[k][i], p.grad, 1e-5)


def test_functional_call_and_stack_module_state():
    m = loom.nn.Linear(3, 2)
    w = loom.zeros(2, 3)
    b = loom.ones(2)
    out = func.functional_call(m, {"weight": w, "bias": b}, (loom.randn(4, 3),))
    close(out, np.ones((4, 2)))
    assert m.weight.abs().sum().item() > 0   # restored
    models = [loom.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = func.stack_module_state(models)
    assert tuple(params["weight"].shape) == (4, 2, 3) and params["weight"].requires_grad
    x = loom.randn(5, 3)
    ens = func.vmap(lambda p: func.functional_call(models[0], p, (x,)))(params)
    for i, mi in enumerate(models):
        close(ens[i], mi(x))
