"""loom.func: composable function transforms, as torch.func (vmap, grad, vjp, jvp, jacrev, jacfwd,
hessian, functional_call, stack_module_state)."""
from . import _rules  # noqa: F401  (registers the hand-written batching rules)
from ._grad import grad, grad_and_value, vjp
from ._jac import hessian, jacfwd, jacrev, jvp
from ._module import functional_call, stack_module_state
from ._vmap import vmap

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "functional_call",
           "stack_module_state"]
