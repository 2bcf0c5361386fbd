"""gradcheck / gradgradcheck: autograd's Jacobians against central differences
(PyTorch's defaults: eps=1e-6, atol=1e-5, rtol=1e-3; use float64 inputs)."""
import numpy as np

from .. import _ops   # generated; it imports this package, so its names are read at call time
from .._numpy import tensor
from .._tensor import Tensor
from .api import grad as _grad


class GradcheckError(RuntimeError):
    pass


def _realified(func, inputs):
    """Complex inputs and outputs as real pairs (view_as_real), PyTorch's way of checking them: for
    a real loss, the gradient of z = x + iy is dL/dx + i dL/dy, which is exactly the gradient of
    the (..., 2) real view; so func and its gradients are compared on real numbers."""
    if not any(isinstance(x, Tensor) and x.dtype.is_complex for x in inputs) and \
            not any(o.dtype.is_complex for o in _outputs(func, inputs)):
        return func, inputs
    real_inputs = tuple(_ops.view_as_real(x.detach()).clone().requires_grad_(x.requires_grad)
                        if isinstance(x, Tensor) and x.dtype.is_complex else x for x in inputs)
    was_complex = [isinstance(x, Tensor) and x.dtype.is_complex for x in inputs]

    def real_func(*xs):
        out = func(*(_ops.view_as_complex(x) if c else x for x, c in zip(xs, was_complex)))
        outs = (out,) if isinstance(out, Tensor) else tuple(out)
        outs = tuple(_ops.view_as_real(o) if isinstance(o, Tensor) and o.dtype.is_complex else o for o in outs)
        return outs[0] if isinstance(out, Tensor) else outs

    return real_func, real_inputs


def _tensors(inputs):
    return [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]


def _outputs(func, inputs):
    out = func(*inputs)
    return [out] if isinstance(out, Tensor) else [o for o in out if isinstance(o, Tensor)]


def _numerical(func, inputs, wrt, eps):
    """d outputs / d wrt, by central differences: [output][input] -> (out.numel, in.numel)."""
    outs = _outputs(func, inputs)
    jac = [[np.zeros((o.numel(), x.numel())) for x in wrt] for o in outs]
    for j, x in enumerate(wrt):
        view = x.detach().numpy()   # shares x's memory, strided or not
        for k, idx in enumerate(np.ndindex(view.shape)):   # C order, as the analytical rows
            orig = view[idx]   # perturbed in place (func may itself need grad mode: gradgradcheck)
            view[idx] = orig + eps
            plus = [o.detach().numpy().astype(np.float64).copy() for o in _outputs(func, inputs)]
            view[idx] = orig - eps
            minus = [o.detach().numpy().astype(np.float64).copy() for o in _outputs(func, inputs)]
            view[idx] = orig
            for i in range(len(outs)):
                jac[i][j][:, k] = ((plus[i] - minus[i]) / (2 * eps)).reshape(-1)
    return jac


def _analytical(func, inputs, wrt):
    outs = _outputs(func, inputs)
    jac = [[np.zeros((o.numel(), x.numel())) for x in wrt] for o in outs]
    for i, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for r in range(o.numel()):
            seed = np.zeros(o.numel())
            seed[r] = 1
            gs = _grad([o], wrt, [tensor(seed.reshape(tuple(o.shape)), dtype=o.dtype)], retain_graph=True,
                       allow_unused=True)
            for j, g in enumerate(gs):
                if g is not None:
                    jac[i][j][r, :] = g.detach().numpy().reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when autograd's gradients of func at inputs match finite differences."""
    inputs = tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)
    func, inputs = _realified(func, inputs)
    wrt = _tensors(inputs)
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    num, ana = _numerical(func, inputs, wrt, eps), _analytical(func, inputs, wrt)
    for i, (nrow, arow) in enumerate(zip(num, ana)):
        for j, (n, a) in enumerate(zip(nrow, arow)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                if raise_exception:
                    raise GradcheckError(f"Jacobian mismatch for output {i} with respect to input {j},\n"
                                         f"numerical:{n}\nanalytical:{a}\n")
                return False
    return True


def gradgradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, seed=0):
    """gradcheck of the vector-Jacobian product of func (second derivatives)."""
    inputs = tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)
    func, inputs = _realified(func, inputs)
    wrt = _tensors(inputs)
    outs = _outputs(func, inputs)
    rng = np.random.default_rng(seed)
    vs = [tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in outs]

    def vjp(*xs):
        os_ = _outputs(func, xs)
        pairs = [(o, v) for o, v in zip(os_, vs) if o.requires_grad]
        diff = _tensors(xs)
        gs = _grad([o for o, _ in pairs], diff, [v for _, v in pairs], create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)
    return gradcheck(vjp, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception) and bool(wrt)
