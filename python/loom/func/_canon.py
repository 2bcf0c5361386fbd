"""A (possibly batched) tensor as one plain tensor with a dim per active vmap level, and back.

grad and jvp work on plain tensors (autograd and forward AD know nothing of vmap): an input is
brought to every active level, its batch dims in front, outer levels first (an input not mapped at
some level is expanded there, without a copy); what comes back has the same layout and is wrapped
again. Gradients with respect to an expanded input are then per-sample, as torch.func's are."""
from .. import _batched
from .._batched import BatchedTensor, wrap


def active():
    return [(lv[0], lv[1]) for lv in _batched.levels]


def canon(x, lvls):
    """x as a plain tensor of shape (B_1, ..., B_k, *x.shape) for lvls [(level, size)] outer first."""
    if not lvls:
        if x.__class__ is BatchedTensor:
            raise RuntimeError("vmap: a BatchedTensor escaped the vmap it belongs to")
        return x
    level, size = lvls[-1]
    if x.__class__ is BatchedTensor and x._level == level:
        return canon(x._value, lvls[:-1])
    p = canon(x, lvls[:-1])
    k = len(lvls) - 1
    shape = tuple(p.shape)
    return p.unsqueeze(k).expand(shape[:k] + (size,) + shape[k:])


def rewrap(p, lvls):
    for level, _ in lvls:
        p = wrap(p, level)
    return p
