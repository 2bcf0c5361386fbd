"""Run a loom module and its PyTorch twin from the same weights and compare outputs and gradients."""
import numpy as np
import torch

import loom


def load_from_torch(lm, tm):
    """Copy tm's weights into lm; the state_dict keys (and their order) must be PyTorch's."""
    tkeys, lkeys = list(tm.state_dict()), list(lm.state_dict())
    assert lkeys == tkeys, f"state_dict keys differ:\n loom  {lkeys}\n torch {tkeys}"
    lm.load_state_dict({k: v.detach().numpy() for k, v in tm.state_dict().items()})


def as_pair(x, requires_grad=False, dtype=np.float32):
    """A loom tensor and a torch tensor holding the same values (x a NumPy array)."""
    a = np.asarray(x, dtype=dtype) if np.asarray(x).dtype.kind == "f" else np.asarray(x)
    lt, tt = loom.tensor(a), torch.tensor(a)
    if requires_grad:
        lt.requires_grad_(True)
        tt.requires_grad_(True)
    return lt, tt


def close(a, b, atol=1e-5, rtol=1e-4, what=""):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, f"{what}: shape {a.shape} vs torch {b.shape}"
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, err_msg=what)


def compare_grads(lm, tm, inputs=(), atol=1e-5, rtol=1e-4):
    """After backward on both: every parameter's gradient and each (loom, torch) input pair's."""
    tparams = dict(tm.named_parameters())
    for name, p in lm.named_parameters():
        tp = tparams[name]
        if tp.grad is None:
            assert p.grad is None or not p.grad.detach().numpy().any(), f"{name}: loom has a gradient, torch none"
            continue
        close(p.grad, tp.grad, atol, rtol, f"grad of {name}")
    for i, (li, ti) in enumerate(inputs):
        close(li.grad, ti.grad, atol, rtol, f"grad of input {i}")
