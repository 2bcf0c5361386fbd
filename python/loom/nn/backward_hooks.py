"""Module full backward hooks (PyTorch's torch.utils.hooks.BackwardHook): a module call with
register_full_backward_hook / register_full_backward_pre_hook hooks passes its tensor inputs and
its outputs through identity autograd Functions, whose backwards see the gradients with respect
to the outputs (pre-hooks, which may replace them) and then to the inputs (hooks, called as
hook(module, grad_input, grad_output), which may replace grad_input)."""
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import grad_enabled


def _pack_with_none(indices, values, size):
    out = [None] * size
    for i, v in zip(indices, values):
        out[i] = v
    return tuple(out)


def _check_count(result, expected, what):
    if not isinstance(result, tuple):
        result = (result,)
    if len(result) != expected:
        raise RuntimeError(f"Backward hook returned an invalid number of {what}, got {len(result)}, but expected "
                           f"{expected}")
    return result


class _InputHook(Function):
    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        outs = tuple(t.detach() for t in tensors)
        ctx.mark_non_differentiable(*[o for o, t in zip(outs, tensors) if not t.requires_grad])
        return outs

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + ctx.state.on_input_grads(grads)


class _OutputHook(Function):
    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        return tuple(t.detach() for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + ctx.state.on_output_grads(grads)


class BackwardHook:
    """One module call's hook state: which positions of its inputs and outputs are tensors,
    and the gradients with respect to the outputs until the inputs' arrive."""

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.n_inputs, self.input_index = 0, None
        self.n_outputs, self.output_index = 0, None
        self.grad_outputs = None

    def _wrap(self, fn, args):
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new = list(args)
        for i, t in zip(index, fn.apply(self, *tensors)):
            new[i] = t
        return tuple(new), index

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        args, self.input_index = self._wrap(_InputHook, args)
        return args

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        outs = (result,) if single else result
        if not isinstance(outs, (tuple, list)):
            return result
        self.n_outputs = len(outs)
        wrapped, self.output_index = self._wrap(_OutputHook, tuple(outs))
        if self.output_index is None:
            return result
        return wrapped[0] if single else type(outs)(wrapped) if isinstance(outs, list) else wrapped

    def on_output_grads(self, grads):
        self.grad_outputs = _pack_with_none(self.output_index, grads, self.n_outputs)
        for hook in self.pre_hooks():
            res = hook(self.module, self.grad_outputs)
            if res is not None:
                self.grad_outputs = _check_count(res, self.n_outputs, "grad_output")
        if self.input_index is None:   # no input requires grad: the hooks run now, with no grad_input
            grad_inputs = _pack_with_none([], [], self.n_inputs)
            for hook in self.hooks():
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
            return tuple(grads)
        return tuple(self.grad_outputs[i] for i in self.output_index)

    def on_input_grads(self, grads):
        res = _pack_with_none(self.input_index, grads, self.n_inputs)
        for hook in self.hooks():
            out = hook(self.module, res, self.grad_outputs)
            if out is not None:
                res = _check_count(out, self.n_inputs, "grad_input")
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_index)
