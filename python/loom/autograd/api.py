"""autograd.backward / autograd.grad and the Tensor autograd surface."""
from .._C import ffi, lib
from .._autograd import grad_fn_of, grad_of, init, is_leaf, requires_grad_of, run, set_grad
from .._args import _raise
from .._dtype import BY_CODE, DEVICES
from .._tensor import GradTensor, Size, Tensor, _new
from . import engine
from .node import AccumulateGrad, AutogradMeta


def _as_list(x):
    return [x] if isinstance(x, Tensor) else list(x)


_ONE = (1.0, 1, 2)                   # an lm_scalar: the float 1
_ZERO_STRIDES = ffi.new("int64_t[]", 16)


def _implicit_grad(t, what):
    """ones of t's one-element shape (made straight from handles: it is on every backward())"""
    h = t._h
    if lib.lm_numel(h) != 1:
        raise RuntimeError(f"{what}: grad can be implicitly created only for scalar outputs")
    one = lib.lm_scalar_tensor(_ONE, h.dtype, False)
    if one and h.device != lib.LM_CPU:
        one = lib.lm_move_to(one, h.device)
    if h.ndim and one:
        view = lib.lm_as_strided(one, h.ndim, h.shape, _ZERO_STRIDES, 0)
        lib.lm_release(one)
        one = view
    if not one:
        _raise(what.rstrip("()"))
    return _new(one)


def _root(t, g, what):
    meta = getattr(t, "_ag", None)
    if meta is None or not meta.requires_grad:
        raise RuntimeError(f"{what}: element 0 of tensors does not require grad and does not have a grad_fn")
    if g is None:
        g = _implicit_grad(t, what)
    elif tuple(g.shape) != tuple(t.shape):
        raise RuntimeError(f"{what}: Mismatch in shape: grad_output has a shape of {list(g.shape)} and output has "
                           f"a shape of {list(t.shape)}.")
    node = meta.grad_fn
    if node is None:   # backward from a leaf: its accumulator is the root
        if meta.accumulator is None:
            meta.accumulator = AccumulateGrad(t)
        node = meta.accumulator
    return node, meta.output_nr if meta.grad_fn is not None else 0, g


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    tensors = _as_list(tensors)
    grads = [None] * len(tensors) if grad_tensors is None else _as_list(grad_tensors)
    roots = [_root(t, g, "backward()") for t, g in zip(tensors, grads)]
    if inputs is not None:
        got = grad(tensors, _as_list(inputs), grads, retain_graph, create_graph, allow_unused=True)
        for x, g in zip(_as_list(inputs), got):
            if g is not None:
                engine._accumulate(x, g, create_graph)
        return
    run(roots, create_graph if retain_graph is None else retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    outputs, inputs = _as_list(outputs), _as_list(inputs)
    gouts = [None] * len(outputs) if grad_outputs is None else _as_list(grad_outputs)
    roots = [_root(t, g, "grad()") for t, g in zip(outputs, gouts)]
    capture = {}
    for i, x in enumerate(inputs):
        meta = getattr(x, "_ag", None)
        if meta is None or not meta.requires_grad:
            raise RuntimeError(f"grad(): input {i} does not require grad")
        if meta.grad_fn is not None:
            capture[(meta.grad_fn, meta.output_nr)] = i
        else:
            if meta.accumulator is None:
                meta.accumulator = AccumulateGrad(x)
            capture[(meta.accumulator, 0)] = i
    got = run(roots, create_graph if retain_graph is None else retain_graph, create_graph, capture)
    out = [got.get(i) for i in range(len(inputs))]
    for i, g in enumerate(out):
        if g is None and not allow_unused:
            raise RuntimeError(f"grad(): one of the differentiated Tensors (input {i}) appears to not have been "
                               f"used in the graph. Set allow_unused=True if this is the desired behavior.")
    return tuple(out)


# ---- the Tensor surface ----

def _meta(t):
    return getattr(t, "_ag", None)


def requires_grad_(self, requires_grad=True):
    if type(requires_grad).__name__ != "bool":   # Python's bool or NumPy's, as PyTorch takes
        raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, "
                        f"not {type(requires_grad).__name__}")
    m = _meta(self)
    if m is not None and m.grad_fn is not None:
        if not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        return self
    if requires_grad:
        if not self.dtype.differentiable:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if self.__class__ is Tensor:
            self.__class__ = GradTensor
        if m is None:
            self._ag = AutogradMeta(True)
        else:
            m.requires_grad = True
    elif m is not None:
        m.requires_grad = False
    return self


def _set_requires_grad(self, value):
    requires_grad_(self, value)


def _set_grad(self, value):   # set_grad (C) calls this for a tensor without autograd metadata
    m = _meta(self)
    if m is None:
        if value is None:
            return
        self._ag = m = AutogradMeta(False)
        if self.__class__ is Tensor:
            self.__class__ = GradTensor
    m.grad = value


def detach(self):
    """A tensor sharing this one's data, outside the graph."""
    lib.lm_retain(self._h)
    return _new(self._h)


def detach_(self):
    m = _meta(self)
    if m is not None:
        m.grad_fn, m.requires_grad = None, False
    return self


def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    backward([self], None if gradient is None else [gradient], retain_graph, create_graph, inputs)


def register_hook(self, hook):
    """hook(grad) runs when this tensor's gradient is computed; it may return a replacement."""
    m = _meta(self)
    if m is None or not m.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if m.grad_fn is not None:
        node, nr = m.grad_fn, m.output_nr
    else:
        if m.accumulator is None:
            m.accumulator = AccumulateGrad(self)
        node, nr = m.accumulator, 0
    if node.pre_hooks is None:
        node.pre_hooks = {}
    node.pre_hooks.setdefault(nr, []).append(hook)
    return _Handle(node.pre_hooks[nr], hook)


def retain_grad(self):
    m = _meta(self)
    if m is None or not m.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if m.grad_fn is None or m.retains_grad:
        return
    m.retains_grad = True

    def keep(g, m=m):
        m.grad = g.detach() if m.grad is None else (m.grad + g).detach()
    keep.runs_last = True   # PyTorch: .grad of a retained tensor sees the other hooks' result
    register_hook(self, keep)


class _Handle:
    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def install(T):
    T.requires_grad = property(requires_grad_of, _set_requires_grad)   # getters: C
    T.requires_grad_ = requires_grad_
    T.grad = property(grad_of, set_grad)
    T.grad_fn = property(grad_fn_of)
    T.is_leaf = property(is_leaf)
    T.detach = detach
    T.detach_ = detach_
    T.backward = tensor_backward
    T.register_hook = register_hook
    T.retain_grad = retain_grad



# The C side's Python collaborators, registered once: the tensor classes and how to read
# and drop a handle; the leaf node and the engine's Python steps; Tensor.grad's slow setter;
# the Size, dtype and device objects a SavedMeta hands back
init(Tensor=Tensor, GradTensor=GradTensor, tensor_ptr_type=ffi.typeof("lm_tensor *"),
     release_address=int(ffi.cast("uintptr_t", ffi.addressof(lib, "lm_release"))),
     AccumulateGrad=AccumulateGrad, accumulate=engine._accumulate, run_hooks=engine._run_hooks,
     sum_to=engine.sum_to, set_grad=_set_grad, Size=Size, dtypes=BY_CODE, devices=DEVICES)
