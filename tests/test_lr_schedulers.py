"""The lr_scheduler families beyond StepLR/CosineAnnealingLR/LambdaLR, against torch.optim.lr_scheduler:
the same rate (and momentum) sequences, state_dict round trips, step(epoch), argument errors."""
import warnings

import numpy as np
import pytest

import loom
from loom import optim

torch = pytest.importorskip("torch")


def _opt(lib, cls="SGD", **kw):
    mk = lambda: lib.zeros(2, requires_grad=True)
    o = getattr(lib.optim, cls)
    kw = dict({"lr": 0.1, "momentum": 0.9} if cls == "SGD" else {"lr": 0.1}, **kw)
    return o([{"params": [mk()]}, {"params": [mk()], "lr": 0.3}], **kw)


def _make(lib, name, kwargs, opt):
    S = lib.optim.lr_scheduler
    if name == "SequentialLR":
        return S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.25, total_iters=3),
                                    S.ExponentialLR(opt, gamma=0.8), S.StepLR(opt, 2, 0.5)], milestones=[4, 7])
    if name == "ChainedScheduler":
        return S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=3), S.ExponentialLR(opt, gamma=0.9),
                                   S.MultiStepLR(opt, [2, 5])])
    return getattr(S, name)(opt, **kwargs)


def _momentum(group):
    return group["betas"][0] if "betas" in group else group.get("momentum")


def _sequence(lib, name, kwargs, steps, cls="SGD", metrics=None):
    opt = _opt(lib, cls)
    sched = _make(lib, name, kwargs, opt)
    seq = [(list(sched.get_last_lr()), [_momentum(g) for g in opt.param_groups])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(steps):
            opt.step()
            sched.step(metrics[i]) if metrics is not None else sched.step()
            seq.append((list(sched.get_last_lr()), [_momentum(g) for g in opt.param_groups]))
            assert [g["lr"] for g in opt.param_groups] == seq[-1][0]
    return seq, sched, opt


CASES = [
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.5)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95 if e % 2 else 0.9)),
    ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=6)),
    ("LinearLR", dict()),
    ("ConstantLR", dict(factor=0.25, total_iters=4)),
    ("PolynomialLR", dict(total_iters=8, power=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.001)),
    ("CosineAnnealingWarmRestarts", dict(T_0=4)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=3, step_size_down=2)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2")),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.9)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, scale_fn=lambda x: 0.5 ** x,
                      scale_mode="iterations", cycle_momentum=False)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=15)),
    ("OneCycleLR", dict(max_lr=[1.0, 2.0], epochs=3, steps_per_epoch=5, anneal_strategy="linear",
                        three_phase=True, pct_start=0.4)),
    ("SequentialLR", {}),
    ("ChainedScheduler", {}),
]


@pytest.mark.parametrize("cls", ["SGD", "Adam"])
@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_matches_torch(name, kwargs, cls):
    steps = 14
    ours, sched, _ = _sequence(loom, name, kwargs, steps, cls)
    theirs, _, _ = _sequence(torch, name, kwargs, steps, cls)
    np.testing.assert_allclose([s[0] for s in ours], [s[0] for s in theirs], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose([s[1] for s in ours], [s[1] for s in theirs], rtol=1e-12, atol=1e-15)
    if name != "ChainedScheduler":   # which keeps no epoch of its own, as torch's
        assert sched.last_epoch == steps


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_state_dict_round_trip(name, kwargs):
    """A fresh scheduler loaded with the state_dict after 5 steps continues exactly as the original."""
    seq, sched, opt = _sequence(loom, name, kwargs, 5)
    sd = sched.state_dict()
    assert "optimizer" not in sd
    opt2 = _opt(loom)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched2 = _make(loom, name, kwargs, opt2)
        opt2.load_state_dict(opt.state_dict())
        sched2.load_state_dict(sd)
        for _ in range(6):
            for o, s in ((opt, sched), (opt2, sched2)):
                o.step()
                s.step()
            assert sched.get_last_lr() == sched2.get_last_lr()
            assert [g["lr"] for g in opt2.param_groups] == sched.get_last_lr()


PLATEAU = [
    dict(),
    dict(mode="max", factor=0.5, patience=1, threshold=0.1, threshold_mode="abs", cooldown=2, min_lr=[0.02, 0.05]),
    dict(factor=0.3, patience=0, cooldown=1, min_lr=0.01, eps=1e-3),
]
METRICS = [1.0, 0.9, 0.95, 0.95, 0.95, 0.94, 0.5, 0.7, 0.7, 0.7, 0.7, 0.2, 0.2, 0.2] * 2


@pytest.mark.parametrize("kwargs", PLATEAU)
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    kwargs = dict(kwargs, patience=kwargs.get("patience", 2))
    ours, sched, _ = _sequence(loom, "ReduceLROnPlateau", kwargs, len(METRICS), metrics=METRICS)
    theirs, tsched, _ = _sequence(torch, "ReduceLROnPlateau", kwargs, len(METRICS), metrics=METRICS)
    assert [s[0] for s in ours] == [s[0] for s in theirs]
    assert len({tuple(s[0]) for s in ours}) > 1   # the rate did drop
    assert (sched.best, sched.num_bad_epochs, sched.last_epoch) == (tsched.best, tsched.num_bad_epochs,
                                                                    tsched.last_epoch)
    sd = sched.state_dict()
    opt2 = _opt(loom)
    s2 = optim.lr_scheduler.ReduceLROnPlateau(opt2)
    s2.load_state_dict(sd)
    assert s2.mode == sched.mode and s2.best == sched.best and s2.patience == sched.patience


def test_step_with_epoch_uses_closed_form():
    for name, kwargs in CASES[:8]:
        if name == "MultiplicativeLR":
            continue
        vals = []
        for lib in (loom, torch):
            opt = _opt(lib)
            s = _make(lib, name, kwargs, opt)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                vals.append([(s.step(e), list(s.get_last_lr()))[1] for e in (3, 7, 2, 10)])
        np.testing.assert_allclose(vals[0], vals[1], rtol=1e-12, err_msg=name)
    opt = _opt(loom)
    s = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3)
    t = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(torch), T_0=2, T_mult=3)
    for e in (0.5, 3.25, 9, 20.0):
        s.step(e)
        t.step(e)
        np.testing.assert_allclose(s.get_last_lr(), t.get_last_lr(), rtol=1e-12)


@pytest.mark.parametrize("make,err,message", [
    (lambda o, S: S.ConstantLR(o, factor=1.5), ValueError, "between 0 and 1"),
    (lambda o, S: S.LinearLR(o, start_factor=0), ValueError, "greater than 0"),
    (lambda o, S: S.LinearLR(o, end_factor=2), ValueError, "Ending multiplicative factor"),
    (lambda o, S: S.MultiplicativeLR(o, lr_lambda=3), TypeError, "lr_lambda should be a function"),
    (lambda o, S: S.CosineAnnealingWarmRestarts(o, T_0=0), ValueError, "positive integer T_0"),
    (lambda o, S: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0), ValueError, "T_mult >= 1"),
    (lambda o, S: S.CyclicLR(o, 0.1, 1.0, mode="sawtooth"), ValueError, "mode is invalid"),
    (lambda o, S: S.CyclicLR(o, [0.1], 1.0), ValueError, "expected 2 values for base_lr, got 1"),
    (lambda o, S: S.OneCycleLR(o, 1.0), ValueError, "total_steps OR"),
    (lambda o, S: S.OneCycleLR(o, 1.0, total_steps=0), ValueError, "positive integer total_steps"),
    (lambda o, S: S.OneCycleLR(o, 1.0, 10, pct_start=1.5), ValueError, "pct_start"),
    (lambda o, S: S.OneCycleLR(o, 1.0, 10, anneal_strategy="cubic"), ValueError, "anneal_strategy"),
    (lambda o, S: S.SequentialLR(o, [], []), ValueError, "at least one scheduler"),
    (lambda o, S: S.SequentialLR(o, [S.StepLR(o, 2)] * 2, []), ValueError, "one more than the number of milestone"),
    (lambda o, S: S.SequentialLR(o, [S.ReduceLROnPlateau(o)], []), ValueError, "does not support"),
    (lambda o, S: S.ChainedScheduler([S.StepLR(o, 2), S.StepLR(_opt(loom), 2)]), ValueError, "same optimizer"),
    (lambda o, S: S.ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be < 1.0"),
    (lambda o, S: S.ReduceLROnPlateau(o, mode="up"), ValueError, "mode up is unknown"),
    (lambda o, S: S.ReduceLROnPlateau(o, min_lr=[0.1]), ValueError, "expected 2 min_lrs, got 1"),
    (lambda o, S: S.ReduceLROnPlateau("sgd"), TypeError, "str is not an Optimizer"),
])
def test_invalid_arguments(make, err, message):
    with pytest.raises(err, match=message):
        make(_opt(loom), optim.lr_scheduler)


def test_one_cycle_refuses_steps_past_total_and_cyclic_needs_momentum():
    opt = _opt(loom)
    s = optim.lr_scheduler.OneCycleLR(opt, 1.0, total_steps=2)
    opt.step()
    s.step()
    s.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
        s.step()
    p = loom.zeros(1, requires_grad=True)
    plain = optim.RMSprop([p])
    del plain.defaults["momentum"]
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        optim.lr_scheduler.CyclicLR(plain, 0.1, 1.0)
