"""Clearing the .grad of leaves: what Module.zero_grad and Optimizer.zero_grad share."""


def zero_grads(params, set_to_none=True):
    """Drop each parameter's .grad (set_to_none) or zero it in place, detached from any graph."""
    for p in params:
        g = p.grad
        if g is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if g.grad_fn is not None:
                g.detach_()
            elif g.requires_grad:
                g.requires_grad_(False)
            g.fill_(0)
