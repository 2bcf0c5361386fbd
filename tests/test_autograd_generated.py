"""Every op with formulas in derivatives/: gradcheck (and gradgradcheck for
smooth ops) in float64, and in complex128 where the op lists it (one formula
serves both, PyTorch's convention), over contiguous, transposed and broadcast
inputs. The cases come from the op and derivative models."""
import numpy as np
import pytest

import loom
from codegen import derivatives
from conftest import ROOT
from opinputs import MODEL, make_inputs

# ops whose test hint says they cannot take generated inputs (a backward helper
# that needs the forward's indices) are covered through their forward op's tests
DERIVS = [d for d in derivatives.load(ROOT / "derivatives", MODEL)
          if d.formulas and not d.op.mutating and not d.op.test.get("skip")]
# kinks and ties: first derivatives only, and not at the kink
NONSMOOTH = {"abs", "relu", "clamp", "amax", "amin", "max", "min", "maximum", "minimum", "sign", "floor",
             "ceil", "round", "remainder", "where"}
LAYOUTS = ("contiguous", "transposed", "broadcast")


def _dtypes(d):
    """float64, and complex128, where the op (or its test hint) lists them."""
    listed = d.op.test.get("dtypes", d.op.dtypes)
    return [dt for dt in ("float64", "complex128") if dt in listed]


def _case(d, layout, dtype="float64"):
    made = make_inputs(d.op, dtype, layout, seed=3)
    if made is None:
        return None
    _, lm = made
    args = {}
    with_formula = {i for f in d.formulas for i in f.inputs}   # non_differentiable inputs stay constants
    for a in d.op.schema.args:
        v = lm[a.name]
        if a.type.base == "Tensor" and a.type.is_list:   # index tensors (int64) take no gradient
            v = [t.detach().requires_grad_() if t.dtype.differentiable else t for t in v]
        elif a.type.base == "Tensor" and v is not None and v.dtype.differentiable and a.name in with_formula:
            v = v.detach().requires_grad_()   # the transposed layout stays non-contiguous
        args[a.name] = v
    if d.op.kind == "reduction" and "dim" in args:
        args["dim"] = 1 if args["self"].ndim > 1 else None
    return args


def _fn(d, args):
    names = [a.name for a in d.op.schema.args]
    tensor_names = [n for n in names if isinstance(args[n], loom.Tensor) and args[n].requires_grad]
    fn = getattr(loom, d.op.name) if "function" in d.op.variants else None
    lists = [a.name for a in d.op.schema.args if a.type.base == "Tensor" and a.type.is_list
             and any(t.requires_grad for t in args[a.name])]

    def call(*ts):
        kw = dict(args)
        if lists:
            kw[lists[0]] = list(ts)
        else:
            kw.update(zip(tensor_names, ts))
        pos = [kw[a.name] for a in d.op.schema.args if not a.kwonly]
        kwo = {a.name: kw[a.name] for a in d.op.schema.args if a.kwonly}
        if fn is not None:
            out = fn(*pos, **kwo)
        else:
            out = getattr(pos[0], d.op.name)(*pos[1:], **kwo)
        return out[0] if d.op.returns_tuple else out
    inputs = args[lists[0]] if lists else [args[n] for n in tensor_names]
    return call, inputs


CASES = [(d, layout, dt) for d in DERIVS for dt in _dtypes(d) for layout in LAYOUTS
         if layout in d.op.test.get("layouts", LAYOUTS)]


def _id(c):
    return "-".join([c[0].op.schema.full_name, *c[1:]]).replace("-float64", "")


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_gradcheck(case):
    d, layout, dt = case
    args = _case(d, layout, dt)
    if args is None:
        pytest.skip(f"layout {layout} does not apply to {d.op.schema.full_name}")
    fn, inputs = _fn(d, args)
    if not inputs:
        pytest.skip("no floating inputs")
    if layout == "transposed" and not any(a.type.is_list for a in d.op.schema.args):
        assert any(not x.is_contiguous() for x in inputs if x.ndim >= 2)
    assert loom.autograd.gradcheck(fn, inputs)


def _wide(d):
    """The broadcast layout where the op allows it, else contiguous."""
    return "broadcast" if "broadcast" in d.op.test.get("layouts", LAYOUTS) else "contiguous"


SMOOTH = [(d, _wide(d), dt) for d in DERIVS if d.op.name not in NONSMOOTH for dt in _dtypes(d)]


@pytest.mark.parametrize("case", SMOOTH, ids=_id)
def test_gradgradcheck(case):
    d, layout, dt = case
    args = _case(d, layout, dt) or _case(d, "contiguous", dt)
    fn, inputs = _fn(d, args)
    assert loom.autograd.gradgradcheck(fn, inputs)


def test_gradcheck_catches_a_wrong_formula():
    x = loom.tensor([0.3, 0.7], dtype=loom.float64, requires_grad=True)

    class Wrong(loom.autograd.Node):
        pass
    ok = loom.autograd.gradcheck(lambda t: (t * t).detach().requires_grad_() * t, (x,), raise_exception=False)
    assert ok is False


# ops whose PyTorch spelling differs from loom's schema (name or argument form)
TORCH_SKIP = {"to.dtype", "to.device", "where.self", "index.Tensor",   # index: torch's x[i0, i1] (test_indexing_advanced)
              "_fft_c2c", "_fft_r2c", "_fft_c2r"}   # torch's private kernels assert on these inputs: test_fft.py compares torch.fft


def _torch_fn(torch, name):
    """PyTorch's public function of that name: torch.X, else torch.nn.functional.X. loom's
    *_backward helper ops have only private PyTorch counterparts with other signatures."""
    if "_backward" in name:
        return None
    return getattr(torch, name, None) or getattr(torch.nn.functional, name, None)


@pytest.mark.parametrize("case", [(d, _wide(d), dt) for d in DERIVS if d.op.schema.full_name not in TORCH_SKIP
                                  and "_backward" not in d.op.name for dt in _dtypes(d)], ids=_id)
def test_gradients_match_pytorch(case):
    torch = pytest.importorskip("torch")
    d, layout, dt = case
    args = _case(d, layout, dt) or _case(d, "contiguous", dt)
    fn, inputs = _fn(d, args)
    tfn = _torch_fn(torch, d.op.name) if "function" in d.op.variants else None
    to_t = lambda x: torch.tensor(x.detach().numpy(), requires_grad=True)
    t_args = {k: ([to_t(v) for v in a] if isinstance(a, list) and a and isinstance(a[0], loom.Tensor)
                  else to_t(a) if isinstance(a, loom.Tensor) and a.requires_grad
                  else torch.tensor(a.numpy()) if isinstance(a, loom.Tensor) else a) for k, a in args.items()}
    pos = [t_args[a.name] for a in d.op.schema.args if not a.kwonly]
    # keywords at their defaults are left out: PyTorch spreads some over overloads (sort's stable=)
    kwo = {a.name: t_args[a.name] for a in d.op.schema.args if a.kwonly and t_args[a.name] is not None
           and not (a.type.base != "Tensor" and a.has_default and t_args[a.name] == a.default)}
    while pos and pos[-1] is None:   # PyTorch spells "None" by leaving the argument out
        pos.pop()
    if tfn is None and not hasattr(torch.Tensor, d.op.name):
        pytest.skip(f"PyTorch has no public {d.op.name} to compare with")
    out = tfn(*pos, **kwo) if tfn is not None else getattr(pos[0], d.op.name)(*pos[1:], **kwo)
    out = out[0] if isinstance(out, tuple) else out
    rng = np.random.default_rng(7)
    seed = rng.standard_normal(tuple(out.shape))
    if out.is_complex():
        seed = seed + 1j * rng.standard_normal(tuple(out.shape))
    out.backward(torch.tensor(seed))
    lo = fn(*inputs)
    lo.backward(loom.tensor(seed))
    tensor_lists = [a.name for a in d.op.schema.args if a.type.base == "Tensor" and a.type.is_list
                    and any(t.requires_grad for t in args[a.name])]
    t_inputs = (t_args[tensor_lists[0]] if tensor_lists
                else [t_args[a.name] for a in d.op.schema.args
                      if isinstance(args[a.name], loom.Tensor) and args[a.name].requires_grad])
    for li, ti in zip(inputs, t_inputs):
        np.testing.assert_allclose(li.grad.numpy(), ti.grad.numpy(force=True), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("case", [(d, layout, dt) for d in DERIVS for dt in _dtypes(d)
                                  for layout in ("contiguous", "broadcast")
                                  if layout in d.op.test.get("layouts", LAYOUTS)], ids=_id)
def test_forward_mode_matches_finite_differences(case):
    from loom.autograd import forward_ad as fw
    d, layout, dt = case
    args = _case(d, layout, dt)
    if args is None:
        pytest.skip(f"layout {layout} does not apply to {d.op.schema.full_name}")
    fn, inputs = _fn(d, args)
    rng = np.random.default_rng(5)
    primals = [x.detach() for x in inputs]
    tangents = [loom.tensor(rng.standard_normal(tuple(x.shape)) + (1j * rng.standard_normal(tuple(x.shape))
                                                                   if x.is_complex() else 0)) for x in inputs]
    with fw.dual_level():
        out = fn(*[fw.make_dual(p, t) for p, t in zip(primals, tangents)])
        jvp = fw.unpack_dual(out).tangent
    eps = 1e-6
    plus = fn(*[p + eps * t for p, t in zip(primals, tangents)]).numpy()
    minus = fn(*[p - eps * t for p, t in zip(primals, tangents)]).numpy()
    expected = (plus - minus) / (2 * eps)
    got = np.zeros_like(expected) if jvp is None else jvp.numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
