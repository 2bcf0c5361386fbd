"""loom.optim against torch.optim: updates, state, state_dict round trips, argument errors, schedulers."""
import math

import numpy as np
import pytest

import loom
from loom import optim

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((8, 3))
Y = RNG.standard_normal((8, 2))
INIT = {"w": RNG.standard_normal((2, 3)), "b": RNG.standard_normal(2), "s": RNG.standard_normal(())}


def _loss(lib, X_, Y_, w, b, s):
    r = X_ @ w.T + b - Y_
    return (r * r).mean() + s * s * 0.5


def _run(lib, cls, groups_spec, kwargs, steps, dtype, unused=False):
    """Minimise a least-squares loss; groups_spec lists parameter names per group with per-group options.
    With unused=True an extra parameter "u" never gets a gradient."""
    if lib is loom:
        mk = lambda a: loom.tensor(a.copy(), dtype=getattr(loom, dtype), requires_grad=True)
        data = loom.tensor(X, dtype=getattr(loom, dtype)), loom.tensor(Y, dtype=getattr(loom, dtype))
    else:
        mk = lambda a: torch.tensor(a.copy(), dtype=getattr(torch, dtype), requires_grad=True)
        data = torch.tensor(X, dtype=getattr(torch, dtype)), torch.tensor(Y, dtype=getattr(torch, dtype))
    params = {k: mk(v) for k, v in INIT.items()}
    params["u"] = mk(np.ones(4))
    groups = [dict(opts, params=[params[n] for n in names]) for names, opts in groups_spec]
    opt = cls(groups, **kwargs)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(lib, *data, params["w"], params["b"], params["s"]).backward()
        opt.step()
        history.append({k: np.array(p.detach().numpy() if lib is torch else p.numpy()) for k, p in params.items()})
    return history, opt, params


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.05, maximize=True, eps=1e-3)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, centered=True, maximize=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.5, maximize=True)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, eps=1e-3, maximize=True)),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, momentum_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.2, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.05)),
    # beta2 = 0.5 makes rho_t pass 5 at step 3 (the rectified update); weight decay both ways
    ("RAdam", dict(lr=0.05, betas=(0.8, 0.5), weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.6), weight_decay=0.2, decoupled_weight_decay=True, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.08), maximize=True)),
    ("ASGD", dict(lr=0.05)),
    # t0 = 2 starts the averaging (mu < 1) within the run; heavy lambd decays eta visibly
    ("ASGD", dict(lr=0.05, lambd=0.3, alpha=0.5, t0=2, weight_decay=0.1, maximize=True)),
]
# one group (the fused path), two groups with their own options, and a group with a parameter
# that never gets a gradient (the per-parameter path)
LAYOUTS = {
    "one_group": [(("w", "b", "s"), {})],
    "two_groups": [(("w",), {}), (("b", "s"), {"lr": 0.02})],
    "unused_param": [(("w", "b", "u"), {}), (("s",), {"lr": 0.03})],
}


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_torch(name, kwargs, layout, dtype):
    spec = LAYOUTS[layout]
    ours, lopt, lparams = _run(loom, getattr(optim, name), spec, kwargs, 5, dtype)
    theirs, topt, _ = _run(torch, getattr(torch.optim, name), spec, kwargs, 5, dtype)
    tol = dict(rtol=2e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-11, atol=1e-12)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for k in a:
            np.testing.assert_allclose(a[k], b[k], **tol, err_msg=f"{name} step {step + 1} param {k}")
    # the state has PyTorch's layout: the same keys per parameter index and per group, same values
    lsd, tsd = lopt.state_dict(), topt.state_dict()
    assert sorted(lsd["state"]) == sorted(tsd["state"])
    for i, tstate in tsd["state"].items():
        assert list(lsd["state"][i]) == list(tstate), f"state keys of parameter {i}"
        for key, v in tstate.items():
            np.testing.assert_allclose(np.asarray(lsd["state"][i][key]), v.numpy(), **tol)
    for lg, tg in zip(lsd["param_groups"], tsd["param_groups"]):
        assert set(lg) == set(tg) and lg["params"] == tg["params"]
    np.testing.assert_array_equal(lparams["u"].numpy(), np.ones(4))


@pytest.mark.parametrize("name,kwargs", CASES[1::2], ids=[n for n, _ in CASES[1::2]])
def test_state_dict_round_trip_continues_identically(name, kwargs, tmp_path):
    cls = getattr(optim, name)
    spec = LAYOUTS["two_groups"]
    _, opt, params = _run(loom, cls, spec, kwargs, 3, "float32")
    path = tmp_path / "opt.loom"
    loom.save({"opt": opt.state_dict(), "params": {k: p.detach() for k, p in params.items()}}, path)
    saved = loom.load(path)
    params2 = {k: v.clone().requires_grad_(True) for k, v in saved["params"].items()}
    opt2 = cls([dict(o, params=[params2[n] for n in names]) for names, o in spec], **kwargs)
    opt2.load_state_dict(saved["opt"])
    data = loom.tensor(X, dtype=loom.float32), loom.tensor(Y, dtype=loom.float32)
    for _ in range(3):
        for o, ps in ((opt, params), (opt2, params2)):
            o.zero_grad()
            _loss(loom, *data, ps["w"], ps["b"], ps["s"]).backward()
            o.step()
        for k in params:
            np.testing.assert_array_equal(params[k].numpy(), params2[k].numpy())


def test_loading_torch_style_state_with_plain_step_numbers():
    p = loom.zeros(3, requires_grad=True)
    opt = optim.Adam([p], lr=0.1)
    sd = {"state": {0: {"step": 4, "exp_avg": loom.ones(3), "exp_avg_sq": loom.ones(3)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0])]}
    opt.load_state_dict(sd)
    assert opt.state[p]["step"].dtype == loom.float32 and opt.state[p]["step"].item() == 4
    sd["state"][0]["exp_avg"].fill_(5)   # loaded state does not alias the dict it came from
    assert opt.state[p]["exp_avg"].numpy().tolist() == [1, 1, 1]


def test_state_tensors_stay_live_after_fused_steps():
    """state[p] entries are views the fused step updates; replacing one falls back and rebuilds."""
    a, b = loom.ones(2, requires_grad=True), loom.ones(3, requires_grad=True)
    opt = optim.SGD([a, b], lr=0.1, momentum=0.5)
    for _ in range(2):
        opt.zero_grad()
        ((a * a).sum() + (b * 2).sum()).backward()
        opt.step()
    buf = opt.state[b]["momentum_buffer"]
    np.testing.assert_allclose(buf.numpy(), [3.0] * 3)   # 2 + 0.5 * 2
    opt.state[b]["momentum_buffer"] = loom.zeros(3)
    opt.zero_grad()
    ((a * a).sum() + (b * 2).sum()).backward()
    opt.step()
    np.testing.assert_allclose(opt.state[b]["momentum_buffer"].numpy(), [2.0] * 3)


def test_zero_grad():
    p = loom.ones(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad.numpy().tolist() == [0, 0]
    opt.zero_grad()
    assert p.grad is None


def test_closure_and_no_grad_step():
    p = loom.tensor([2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert loss.item() == 4.0 and p.item() == 1.0 and p.grad_fn is None


@pytest.mark.parametrize("make,message", [
    (lambda p: optim.SGD(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: optim.SGD(p, momentum=-0.5), "Invalid momentum value: -0.5"),
    (lambda p: optim.SGD(p, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: optim.SGD(p, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    (lambda p: optim.SGD(p, momentum=0.9, dampening=0.1, nesterov=True), "Nesterov momentum requires"),
    (lambda p: optim.Adam(p, lr=-0.1), "Invalid learning rate: -0.1"),
    (lambda p: optim.Adam(p, eps=-1e-8), "Invalid epsilon value: -1e-08"),
    (lambda p: optim.Adam(p, betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: optim.AdamW(p, betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    (lambda p: optim.AdamW(p, weight_decay=-0.1), "Invalid weight_decay value: -0.1"),
    (lambda p: optim.RMSprop(p, alpha=-0.1), "Invalid alpha value: -0.1"),
    (lambda p: optim.RMSprop(p, momentum=-1), "Invalid momentum value: -1"),
    (lambda p: optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
    (lambda p: optim.Adagrad(p, initial_accumulator_value=-1), "Invalid initial_accumulator_value value: -1"),
    (lambda p: optim.Adamax(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: optim.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
    (lambda p: optim.RAdam(p, betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
    (lambda p: optim.RAdam(p, eps=-1), "Invalid epsilon value: -1"),
    (lambda p: optim.SGD([], lr=0.1), "optimizer got an empty parameter list"),
    (lambda p: optim.SGD([{"params": p}, {"params": p}]), "some parameters appear in more than one parameter group"),
])
def test_invalid_arguments(make, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make([loom.zeros(2, requires_grad=True)])


def test_invalid_params():
    p = loom.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        optim.SGD([p, 3.0], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {p}}], lr=0.1)
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})


def test_add_param_group_uses_defaults():
    a, b = loom.zeros(2, requires_grad=True), loom.zeros(2, requires_grad=True)
    opt = optim.Adam([a], lr=0.5, betas=(0.5, 0.6))
    opt.add_param_group({"params": b, "lr": 0.1})
    assert opt.param_groups[1]["lr"] == 0.1 and opt.param_groups[1]["betas"] == (0.5, 0.6)
    assert opt.param_groups[1]["params"] == [b]


# ---------------------------------------------------------------- schedulers
SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("CosineAnnealingLR", dict(T_max=4, eta_min=0.01)),
    ("CosineAnnealingLR", dict(T_max=5)),
    ("LambdaLR", dict(lr_lambda=lambda e: 0.9 ** e + 0.01 * e)),
]


def _lr_sequence(lib_optim, name, kwargs, steps):
    import warnings
    mk = (lambda: loom.zeros(2, requires_grad=True)) if lib_optim is optim else \
        (lambda: torch.zeros(2, requires_grad=True))
    opt = lib_optim.SGD([{"params": [mk()]}, {"params": [mk()], "lr": 0.3}], lr=0.1)
    sched = getattr(lib_optim.lr_scheduler, name)(opt, **kwargs)
    seq = [sched.get_last_lr()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr())
    return seq, sched, opt


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULERS)])
def test_scheduler_matches_torch(name, kwargs):
    ours, sched, opt = _lr_sequence(optim, name, kwargs, 14)
    theirs, _, _ = _lr_sequence(torch.optim, name, kwargs, 14)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
    assert sched.last_epoch == 14
    assert [g["lr"] for g in opt.param_groups] == ours[-1]


@pytest.mark.parametrize("name,kwargs", SCHEDULERS[:2], ids=["StepLR", "Cosine"])
def test_scheduler_state_dict_resumes(name, kwargs):
    seq, sched, opt = _lr_sequence(optim, name, kwargs, 5)
    sd = sched.state_dict()
    assert sd["last_epoch"] == 5 and "optimizer" not in sd
    p = loom.zeros(2, requires_grad=True)
    opt2 = optim.SGD([{"params": [p]}, {"params": [loom.zeros(2, requires_grad=True)]}], lr=0.1)
    opt2.load_state_dict(opt.state_dict())
    sched2 = getattr(optim.lr_scheduler, name)(opt2, **kwargs)
    sched2.load_state_dict(sd)
    for _ in range(4):
        for o, s in ((opt, sched), (opt2, sched2)):
            o.step()
            s.step()
        assert sched.get_last_lr() == sched2.get_last_lr()


def test_scheduler_closed_form_and_warnings():
    p = loom.zeros(1, requires_grad=True)
    opt = optim.SGD([p], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="deprecated"):
        sched.step(5)
    assert math.isclose(opt.param_groups[0]["lr"], 0.01)
    with pytest.raises(KeyError, match="initial_lr"):
        optim.lr_scheduler.StepLR(optim.SGD([loom.zeros(1, requires_grad=True)]), step_size=1, last_epoch=3)
    with pytest.raises(TypeError, match="is not an Optimizer"):
        optim.lr_scheduler.StepLR(object(), step_size=1)
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        optim.lr_scheduler.LambdaLR(opt, [lambda e: 1, lambda e: 2])


# ---------------------------------------------------------------- the fused group step
@pytest.mark.parametrize("kw", [{}, {"weight_decay": 0.1}, {"weight_decay": 0.1, "decoupled_weight_decay": True},
                                {"maximize": True}])
def test_fused_adam_step_matches_the_per_parameter_step(kw):
    """One group takes the fused kernel (adam_step_); one group per parameter takes the general
    path. Both must give the same parameters and state, step after step (speed: tools/bench)."""
    shapes = [(12, 6), (12,), (3, 12), (3,)]
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(4)]

    def run(grouped):
        params = [loom.tensor(x, requires_grad=True) for x in init]
        opt = optim.Adam(params if grouped else [{"params": [p]} for p in params], lr=0.05, **kw)
        for gs in grads:
            for p, g in zip(params, gs):
                p.grad = loom.tensor(g)
            opt.step()
        return opt, params

    (fused, pf), (per, pp) = run(True), run(False)
    assert fused._flat and not per._flat
    for a, b in zip(pf, pp):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(pf, pp):
        for name in ("exp_avg", "exp_avg_sq", "step"):
            np.testing.assert_allclose(np.asarray(fused.state[a][name].numpy()), np.asarray(per.state[b][name].numpy()),
                                       rtol=1e-5, atol=1e-7)


def test_fused_adam_step_falls_back_for_a_non_contiguous_gradient():
    params = [loom.zeros(3, 2, requires_grad=True), loom.zeros(2, requires_grad=True)]
    opt = optim.Adam(params, lr=0.1)
    params[0].grad, params[1].grad = loom.ones(2, 3).t(), loom.ones(2)
    opt.step()
    np.testing.assert_allclose(params[0].detach().numpy(), np.full((3, 2), -0.1), rtol=1e-5)


W0 = RNG.standard_normal((3, 2)) * 0.1


def _rosenbrock_run(lib, steps, dtype, **kw):
    mk = (lambda a: loom.tensor(a, dtype=getattr(loom, dtype), requires_grad=True)) if lib is loom else \
        (lambda a: torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True))
    xy, w = mk(np.array([-1.5, 2.0])), mk(W0.copy())
    target = (lib.tensor if lib is torch else loom.tensor)(np.ones((3, 2)), dtype=getattr(lib, dtype))
    opt = lib.optim.LBFGS([xy, w], **kw)
    losses = []

    def closure():
        opt.zero_grad()
        a, b = xy[0], xy[1]
        loss = (1 - a) ** 2 + 100 * (b - a * a) ** 2 + ((w - target) ** 2).sum()
        loss.backward()
        return loss
    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
    to_np = (lambda p: p.detach().numpy()) if lib is torch else (lambda p: p.numpy())
    return losses, [to_np(xy), to_np(w)], opt


@pytest.mark.parametrize("kw", [dict(), dict(line_search_fn="strong_wolfe"), dict(lr=0.5, history_size=3, max_iter=7),
                                dict(line_search_fn="strong_wolfe", history_size=2, max_eval=9)], ids=str)
def test_lbfgs_matches_torch_on_rosenbrock(kw):
    ours, lp, lopt = _rosenbrock_run(loom, 4, "float64", **kw)
    theirs, tp, topt = _rosenbrock_run(torch, 4, "float64", **kw)
    # (Rosenbrock's valley amplifies the dot products' different rounding orders: 1e-8 after 80 iterations)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-9)
    for a, b in zip(lp, tp):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
    ls, ts = lopt.state[lopt.param_groups[0]["params"][0]], topt.state[topt.param_groups[0]["params"][0]]
    assert (ls["func_evals"], ls["n_iter"]) == (ts["func_evals"], ts["n_iter"])
    if kw == dict(line_search_fn="strong_wolfe"):
        assert ours[-1] < 1e-3 * ours[0]   # the line search reaches the valley floor


def test_lbfgs_arguments():
    p = loom.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="per-parameter options"):
        optim.LBFGS([{"params": [p]}, {"params": [loom.zeros(1, requires_grad=True)]}])
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        optim.LBFGS([p], line_search_fn="armijo")
    with pytest.raises(TypeError, match="closure"):   # (as PyTorch's: the closure is required)
        optim.LBFGS([p]).step()
