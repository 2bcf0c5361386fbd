"""GroupNorm and InstanceNorm1d/2d (modules and functional) against PyTorch's: values, gradients, running
statistics over training steps and eval mode; gradcheck of the composites; argument errors."""
import numpy as np
import pytest

import loom
from loom import nn
import loom.nn.functional as F
from test_nn_layers import check_module, copy_weights, rand, torch

tnn = torch.nn


def _randomise_affine(tm):
    with torch.no_grad():
        for p in tm.parameters():
            p.uniform_(0.5, 1.5)


@pytest.mark.parametrize("kw", [dict(), dict(affine=False), dict(eps=1e-3), dict(bias=False)], ids=str)
@pytest.mark.parametrize("groups,shape", [(3, (2, 6, 5)), (2, (3, 6, 4, 5)), (6, (2, 6, 3)), (1, (4, 6, 3, 2))], ids=str)
def test_group_norm(kw, groups, shape):
    # (6 groups over a (2, 6) input would hold one element each: the output is 0 and PyTorch's gradient noise)
    tm, lm = tnn.GroupNorm(groups, 6, **kw), nn.GroupNorm(groups, 6, **kw)
    _randomise_affine(tm)
    check_module(tm, lm, rand(*shape), atol=1e-4)


INSTANCE = [dict(), dict(affine=True), dict(affine=True, bias=False), dict(track_running_stats=True), dict(affine=True, track_running_stats=True,
            momentum=0.3), dict(track_running_stats=True, momentum=None)]


@pytest.mark.parametrize("kw", INSTANCE, ids=str)
@pytest.mark.parametrize("cls,shape", [("InstanceNorm1d", (3, 4, 7)), ("InstanceNorm2d", (2, 4, 5, 3)),
                                       ("InstanceNorm2d", (4, 5, 3))], ids=str)
def test_instance_norm_train_then_eval(kw, cls, shape):
    tm, lm = getattr(tnn, cls)(4, **kw), getattr(nn, cls)(4, **kw)
    _randomise_affine(tm)
    copy_weights(tm, lm)
    for _ in range(3):   # running statistics, when tracked, accumulate over steps
        check_module(tm, lm, rand(*shape), atol=1e-4, copy=False)
    tm.eval(), lm.eval()
    check_module(tm, lm, rand(*shape), atol=1e-4, copy=False)


def test_functional_instance_norm_with_running_stats():
    x = rand(3, 2, 6)
    trm, trv = torch.zeros(2), torch.ones(2)
    lrm, lrv = loom.zeros(2), loom.ones(2)
    ty = torch.nn.functional.instance_norm(torch.tensor(x), trm, trv, momentum=0.2)
    ly = F.instance_norm(loom.tensor(x), lrm, lrv, momentum=0.2)
    np.testing.assert_allclose(ly.numpy(), ty.numpy(), atol=1e-5)
    np.testing.assert_allclose(lrm.numpy(), trm.numpy(), atol=1e-6)
    np.testing.assert_allclose(lrv.numpy(), trv.numpy(), atol=1e-6)
    ty = torch.nn.functional.instance_norm(torch.tensor(x), trm, trv, use_input_stats=False)
    ly = F.instance_norm(loom.tensor(x), lrm, lrv, use_input_stats=False)
    np.testing.assert_allclose(ly.numpy(), ty.numpy(), atol=1e-5)


def test_gradcheck():
    rng = np.random.default_rng(0)
    t = lambda *s: loom.tensor(rng.standard_normal(s), requires_grad=True)
    x, w, b = t(2, 6, 3, 2), t(6), t(6)
    assert loom.autograd.gradcheck(lambda x, w, b: F.group_norm(x, 3, w, b), [x, w, b])
    assert loom.autograd.gradgradcheck(lambda x, w, b: F.group_norm(x, 3, w, b), [x, w, b])
    assert loom.autograd.gradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [x, w, b])
    assert loom.autograd.gradgradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [x, w, b])


def test_errors():
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match=r"^group_norm\(\): Expected number of channels in input to be divisible by "
                                         r"num_groups, but got input of shape \[2, 6, 3\] and num_groups=4"):
        F.group_norm(loom.zeros(2, 6, 3), 4)
    with pytest.raises(ValueError, match=r"^group_norm\(\): Expected weight to be a vector of size equal to the number "
                                         r"of channels"):
        F.group_norm(loom.zeros(2, 6, 3), 3, loom.ones(3))
    with pytest.raises(ValueError, match=r"^group_norm\(\): Expected at least 2 dimensions"):
        F.group_norm(loom.zeros(6), 3)
    with pytest.raises(ValueError, match=r"^instance_norm\(\): Expected more than 1 spatial element when training"):
        F.instance_norm(loom.zeros(2, 3, 1))
    with pytest.raises(ValueError, match=r"^instance_norm\(\): running_mean should contain 3 elements not 2"):
        F.instance_norm(loom.zeros(2, 3, 4), loom.zeros(2), loom.ones(2))
    with pytest.raises(ValueError, match=r"^instance_norm\(\): Expected running_mean and running_var to be defined"):
        F.instance_norm(loom.zeros(2, 3, 4), use_input_stats=False)
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
        nn.InstanceNorm2d(3)(loom.zeros(3, 4))
    with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match num_features \(3\), but got: 4"):
        nn.InstanceNorm1d(3, affine=True)(loom.zeros(2, 4, 5))
    with pytest.warns(UserWarning, match="does not match num_features"):
        nn.InstanceNorm1d(3)(loom.zeros(2, 4, 5))


# ---- batch norm in training through its CPU kernel (_batch_norm_train, native/cpu/batch_norm.c) ----
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(5, 4, 7, 9), (3, 4, 33), (2, 4, 1, 1), (6, 4)], ids=str)
def test_batch_norm_train_kernel_against_torch(dtype, shape):
    """Values, all three gradients and both running statistics over three training steps; lengths that
    leave a remainder after the kernel's vector loops, a 1x1 plane, and a permuted (non-contiguous) input."""
    cls = {2: "BatchNorm1d", 3: "BatchNorm1d", 4: "BatchNorm2d"}[len(shape)]
    tm, lm = getattr(tnn, cls)(4, momentum=0.3).double(), getattr(nn, cls)(4, momentum=0.3)
    _randomise_affine(tm)
    if dtype == np.float32:
        tm = tm.float()
    else:
        lm = lm.double()
    for step in range(3):
        x = (rand(*shape, dtype=dtype) * (step + 1) + step)
        if len(shape) == 4:   # a channels-last array seen as NCHW
            x = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
        # two values a channel (the 1x1 plane): float32 gradients there amplify rounding, ~3e-4 off on some draws
        f32 = 1e-3 if np.prod(shape) // 4 <= 2 else 1e-4
        check_module(tm, lm, x, atol=f32 if dtype == np.float32 else 1e-9, copy=step == 0)
        for p in list(tm.parameters()) + list(lm.parameters()):
            p.grad = None


def test_batch_norm_train_double_backward_matches_torch():
    x = rand(3, 4, 5, 2, dtype=np.float64)
    w, b = rand(4, dtype=np.float64), rand(4, dtype=np.float64)
    grads = []
    for mod in (torch, loom):
        xs, ws, bs = (mod.tensor(v, requires_grad=True) for v in (x, w, b))
        y = mod.nn.functional.batch_norm(xs, None, None, ws, bs, True)
        gx, gw = mod.autograd.grad((y * y * y).sum(), [xs, ws], create_graph=True)
        (gx * gx).sum().add((gw * gw).sum()).backward()
        grads.append([np.asarray(t.detach()) for t in (xs.grad, ws.grad, bs.grad)])
    for a, e in zip(*grads):
        np.testing.assert_allclose(a, e, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("batched_weight", [False, True])
def test_batch_norm_train_under_vmap(batched_weight):
    """vmap's rule folds its dim into the channels: each sample of the vmap gets its own statistics."""
    x = loom.tensor(rand(3, 5, 4, 2, 3))
    w = loom.tensor(rand(3, 4) if batched_weight else rand(4))
    out = loom.func.vmap(lambda t, ww: F.batch_norm(t, None, None, ww, None, True),
                         in_dims=(0, 0 if batched_weight else None))(x, w)
    ref = loom.stack([F.batch_norm(x[i], None, None, w[i] if batched_weight else w, None, True) for i in range(3)])
    np.testing.assert_allclose(out.numpy(), ref.numpy(), atol=1e-6)
    dx = loom.func.vmap(loom.func.grad(lambda t: (F.batch_norm(t, None, None, w if not batched_weight else w[0],
                                                                None, True) ** 3).sum()))(x)
    t = torch.tensor(x.numpy(), requires_grad=True)
    tw = torch.tensor((w if not batched_weight else w[0]).numpy())
    for i in range(3):
        ti = t[i].detach().requires_grad_()
        (torch.nn.functional.batch_norm(ti, None, None, tw, None, True) ** 3).sum().backward()
        np.testing.assert_allclose(dx[i].numpy(), ti.grad.numpy(), atol=1e-3, rtol=1e-4)


@pytest.mark.parametrize("norm", ["layer_norm", "batch_norm"])
def test_native_norm_backward_casts_a_float32_cotangent(norm):
    """A float32 cotangent into a float64 graph reaches the kernels' backward in the input's dtype, as
    PyTorch's engine casts it (the kernels refuse mixed dtypes)."""
    x = rand(3, 4, 5, dtype=np.float64)
    g = rand(3, 4, 5)
    grads = []
    for mod in (torch, loom):
        xs = mod.tensor(x, requires_grad=True)
        f = mod.nn.functional
        y = f.layer_norm(xs, (5,)) if norm == "layer_norm" else f.batch_norm(xs, None, None, training=True)
        y.backward(mod.tensor(g))
        assert xs.grad.dtype == mod.float64
        grads.append(np.asarray(xs.grad.detach()))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6, atol=1e-6)
