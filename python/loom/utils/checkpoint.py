"""loom.utils.checkpoint: activation checkpointing, as torch.utils.checkpoint. The forward pass of
`function` runs without recording a graph (its intermediate tensors are freed); backward runs it
again, with the random generator replayed so dropout draws the same masks, and back-propagates
through that second run (gradients reach the parameters `function` uses, and its inputs)."""
from ..autograd.api import backward as _backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from .._rng_state import get_rng_state, set_rng_state
from .._tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


class _Recompute(Function):
    @staticmethod
    def forward(ctx, run, rng, *args):
        ctx.run, ctx.rng, ctx.inputs = run, rng, args
        return run(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in ctx.inputs]
        outer = None
        if ctx.rng is not None:
            outer = get_rng_state()
            set_rng_state(ctx.rng)
        try:
            with enable_grad():
                out = ctx.run(*inputs)
        finally:
            if outer is not None:
                set_rng_state(outer)
        outs = out if isinstance(out, tuple) else (out,)
        pairs = [(o, g) for o, g in zip(outs, grads) if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if pairs:
            _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) and a.requires_grad else None for a in inputs)


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """function(*args, **kwargs), its activations recomputed in backward instead of kept."""
    if kwargs:
        def run(*a):
            return function(*a, **kwargs)
    else:
        run = function
    if not is_grad_enabled():
        return run(*args)
    rng = get_rng_state() if preserve_rng_state else None
    return _Recompute.apply(run, rng, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, preserve_rng_state=True):
    """A Sequential (or list of modules) in `segments` checkpointed pieces; the last runs normally."""
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = max(1, len(fns) // segments)

    def piece(start, end):
        def run(x):
            for f in fns[start:end]:
                x = f(x)
            return x
        return run

    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(piece(start, end), input, preserve_rng_state=preserve_rng_state)
    return piece(end, len(fns))(input)
