"""Every public function and Tensor method, given an object of a type no op accepts in its first
or second position, fails with one of the exceptions PyTorch uses for bad arguments (TypeError,
ValueError, RuntimeError, NotImplementedError, IndexError), never an internal AttributeError or
KeyError from inside its body, and never crashes; one in the first position, or in any position
that takes a tensor, is a TypeError naming the function (or method)."""
import importlib
import inspect
import re
import warnings

import numpy as np
import pytest

import loom

NAMESPACES = ["loom", "loom.linalg", "loom.fft", "loom.special", "loom.nn.functional", "loom.nn.init"]
# functions that take no tensors, or whose job is to accept anything
NOT_TENSOR_FUNCTIONS = {"save", "load", "manual_seed", "seed", "set_default_dtype", "set_printoptions", "compile",
                        "set_num_threads", "use_deterministic_algorithms", "set_rng_state", "set_default_device",
                        "set_grad_enabled", "no_grad", "enable_grad", "inference_mode", "is_tensor", "is_storage",
                        "typename", "is_floating_point", "set_parallel_threshold", "set_num_interop_threads"}
CALLBACK_METHODS = {"apply_", "map_", "register_hook", "backward", "numpy", "tolist", "item"}
ALLOWED = (TypeError, ValueError, RuntimeError, NotImplementedError, IndexError)


class Odd:
    def __repr__(self):
        return "Odd()"


def _functions():
    for m in NAMESPACES:
        mod = importlib.import_module(m)
        for n in sorted(dir(mod)):
            f = getattr(mod, n)
            if (n.startswith("_") or n in NOT_TENSOR_FUNCTIONS or inspect.isclass(f) or inspect.ismodule(f)
                    or not callable(f)):
                continue
            yield pytest.param(f, id=f"{m}.{n}")


def _methods():
    for n in sorted(dir(loom.Tensor)):
        if n.startswith("_") or n in CALLBACK_METHODS:
            continue
        if callable(inspect.getattr_static(loom.Tensor, n)):
            yield n


def _fails_cleanly(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except ALLOWED:
            return None
        except Exception as e:   # noqa: BLE001  (what the test is looking for)
            return f"{type(e).__name__}: {e}"
    return None


@pytest.mark.parametrize("fn", list(_functions()))
def test_functions_refuse_a_foreign_object(fn):
    x = loom.ones(2, 2)
    for args in ((Odd(),), (x, Odd()), (Odd(), x)):
        bad = _fails_cleanly(lambda: fn(*args))
        assert bad is None, f"{fn.__name__}{args}: {bad}"


@pytest.mark.parametrize("name", list(_methods()))
def test_methods_refuse_a_foreign_object(name):
    for args in ((Odd(),), (Odd(), Odd())):
        m = getattr(loom.ones(2, 2), name)
        bad = _fails_cleanly(lambda: m(*args))
        assert bad is None, f"Tensor.{name}{args}: {bad}"


@pytest.mark.parametrize("call, names", [
    (lambda: loom.norm(3), "norm(): argument 'input' must be Tensor, not int"),
    (lambda: loom.ones(2).type_as(3), "type_as(): argument 'other' must be Tensor, not int"),
    (lambda: loom.linalg.det("A"), "det(): argument 'A' must be Tensor, not str"),
    (lambda: loom.linalg.solve(loom.eye(2), [1, 2]), "solve(): argument 'B' must be Tensor, not list"),
    (lambda: loom.bernoulli(0.5), "bernoulli(): argument 'input' must be Tensor, not float"),
    (lambda: loom.ones(2).expand_as((2,)), "expand_as(): argument 'other' must be Tensor, not tuple"),
    (lambda: loom.ones(2, 2).tril_("1"), "tril_(): argument 'diagonal' must be int, not str"),   # via tril
    (lambda: loom.ones(2).cumsum_(), "cumsum_() missing 1 required positional argument: 'dim'"),
    (lambda: loom.hann_window(2.5), "hann_window(): argument 'window_length' must be int, not float"),
    (lambda: loom.nn.functional.mse_loss(loom.ones(2), loom.ones(2), weight=[1.0]),
     "mse_loss(): argument 'weight' must be Tensor, not list"),
])
def test_the_message_names_the_function_and_argument(call, names):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == names


# A foreign object as the first argument is a TypeError that names the function, except for these,
# whose first argument is no tensor and which PyTorch lets be anything of its own kind (a strict
# list, so one that starts naming itself must leave it):
FIRST_ARG_UNNAMED = {
    "loom.vmap",                    # any callable, called only later (torch.vmap checks nothing either)
    "loom.nn.init.calculate_gain",  # a nonlinearity's name: PyTorch's ValueError "Unsupported nonlinearity"
}


def _names_itself(fn, qualname):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(Odd())
        except TypeError as e:
            return qualname.rsplit(".", 1)[1] in str(e) or getattr(fn, "__name__", "") in str(e)
        except Exception:   # noqa: BLE001  (another type is the gap this test measures)
            return False
    return False


@pytest.mark.parametrize("fn", list(_functions()))
def test_a_foreign_first_argument_is_a_type_error_naming_the_function(fn, request):
    qualname = request.node.callspec.id
    assert _names_itself(fn, qualname) != (qualname in FIRST_ARG_UNNAMED), (
        f"{qualname}: " + ("now names itself: take it off FIRST_ARG_UNNAMED" if qualname in FIRST_ARG_UNNAMED
                           else "a foreign first argument is not a TypeError naming the function"))


# ---- a foreign object in every position that takes a tensor, functions and Tensor methods alike:
# a TypeError naming the function (or method), with valid arguments everywhere else.
# Which positions take tensors: the generated ops' schemas (the "Schema:" lines of their docstrings,
# from ops/*.yaml), else the parameter's name, for one PyTorch gives tensors (with no default, or
# None: a name such as `value` or `tau` with a number for default is a number there).
TENSOR_NAMES = {
    "input", "other", "self", "tensor", "A", "B", "L", "LU", "x", "x1", "x2", "y", "weight", "bias", "target",
    "targets", "mat", "mat1", "mat2", "vec", "vec1", "vec2", "batch1", "batch2", "tensor1", "tensor2", "mask",
    "index", "indices", "src", "source", "condition", "log_probs", "logits", "query", "key", "value", "attn_mask",
    "running_mean", "running_var", "pivots", "end", "exponent", "offsets", "per_sample_weights", "anchor",
    "positive", "negative", "input1", "input2", "theta", "grid", "boundaries", "sorted_sequence", "elements",
    "test_elements", "input_lengths", "target_lengths", "var", "labels", "hx", "cx", "grad", "values", "sample",
    "dividend", "divisor", "tau", "in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias", "bias_k",
    "bias_v", "key_padding_mask", "q_proj_weight", "k_proj_weight", "v_proj_weight", "static_k", "static_v",
    "a", "b", "LU_data", "LU_pivots", "window", "tensors", "operands", "inputs"}
LIST_NAMES = {"tensors", "operands", "inputs"}   # a sequence of tensors (or *tensors)
# valid values of the other, non-tensor, arguments that have no default: by schema type, else by name
KIND_VALUES = {"int": 1, "int[]": [0], "int[1]": [0], "int[2]": [1, 1], "bool": False, "float": 1.0, "Scalar": 1,
               "ScalarType": loom.float32, "Device": "cpu", "str": "sum"}
NAME_VALUES = {"dim": 0, "dims": [0], "size": (2, 2), "shape": (2, 2), "n": 2, "k": 1, "p": 2.0, "chunks": 1,
               "sections": 1, "split_size_or_sections": 1, "repeats": 1, "normalized_shape": (2,), "kernel_size": 1,
               "output_size": 1, "num_classes": 2, "pad": (1, 1), "start": 0, "length": 1, "dim0": 0, "dim1": 1,
               "source_dims": 0, "destination": 0, "ord": 2, "equation": "ij->ij", "diagonal": 0, "fill_value": 1.0,
               "scale_factor": 2, "upscale_factor": 1, "downscale_factor": 1, "groups": 1, "eps": 1e-5,
               "margin": 1.0, "num_groups": 1, "reduction": "mean", "mode": "constant", "indices_or_sections": 1,
               "n_fft": 2, "norm_type": 2.0, "threshold": 0.5, "val": 1.0, "sparsity": 0.5,
               "embed_dim_to_check": 2, "num_heads": 1, "add_zero_attn": False, "dropout_p": 0.0,
               "data": [1.0, 2.0], "window_length": 4, "to": loom.float32, "from_": loom.float32,
               "type1": loom.float32, "type2": loom.float32, "enabled": False, "func": abs,
               "nonlinearity": "leaky_relu", "split_size": 1}
# (function or Tensor.method, parameter) pairs given a foreign object that do not raise a TypeError
# naming the function (a strict list: one that starts naming itself must leave it)
POSITION_UNNAMED = set()
_SCHEMA = re.compile(r"Schema: [\w.]+\((.*)\)")


def _schema_kinds(fn):
    kinds = {}
    for m in _SCHEMA.finditer(getattr(fn, "__doc__", None) or ""):
        for a in m.group(1).split(", "):
            t, _, n = a.rpartition(" ")
            kinds.setdefault(n, t)
    return kinds


def _tensor_kind(p, kinds):
    """'one' (a Tensor), 'list' (a sequence of them), 'var' (*tensors) or None."""
    k = kinds.get(p.name)
    if k is not None:
        return "list" if k.startswith("Tensor[]") else "one" if k.startswith("Tensor") else None
    if p.kind is p.VAR_POSITIONAL:
        return "var" if p.name in LIST_NAMES else None
    if p.name in LIST_NAMES:
        return "list"
    return "one" if p.name in TENSOR_NAMES and p.default in (p.empty, None) else None


def _positional(fn, skip_self=False):
    ps = list(inspect.signature(fn).parameters.values())[1 if skip_self else 0:]
    return [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]


def _tensor_positions(fn, skip_self=False):
    kinds = _schema_kinds(fn)
    return [(i, p.name) for i, p in enumerate(_positional(fn, skip_self)) if _tensor_kind(p, kinds)]


def _valid(p, kinds):
    tk = _tensor_kind(p, kinds)
    if tk == "one":
        return [loom.ones(2, 2)]
    if tk == "list":
        return [[loom.ones(2, 2), loom.ones(2, 2)]]
    if tk == "var":
        return [loom.ones(2, 2), loom.ones(2, 2)]
    if p.default is not p.empty:
        return [p.default]
    k = kinds.get(p.name, "")
    if k.endswith("?"):
        return [None]
    if k in KIND_VALUES:
        return [KIND_VALUES[k]]
    assert p.name in NAME_VALUES, f"no valid value for argument {p.name!r}: add one to NAME_VALUES"
    return [NAME_VALUES[p.name]]


def _args_with_foreign(fn, i, skip_self=False):
    """Positional arguments up to the last required one (or i), with a foreign object at position i
    (as an element of a tensor sequence there)."""
    kinds, pos = _schema_kinds(fn), _positional(fn, skip_self)
    last = max([i] + [j for j, p in enumerate(pos) if p.default is p.empty and p.kind is not p.VAR_POSITIONAL])
    args = []
    for j, p in enumerate(pos[:last + 1]):
        if j != i:
            args += _valid(p, kinds)
        else:
            tk = _tensor_kind(p, kinds)
            args += ([[loom.ones(2, 2), Odd()]] if tk == "list" else [loom.ones(2, 2), Odd()] if tk == "var"
                     else [Odd()])
    return args


def _names(msg, name):
    """name as a word of msg, or the end of one under a public prefix (`linalg_multi_dot()` and
    `Tensor.add` name multi_dot and add; `cumsum_()` does not name cumsum, nor `addmm()` add, nor
    a private op's `_linalg_lu_solve()` lu_solve)."""
    return re.search(rf"(?<!\w)(?:[A-Za-z0-9]+[._])*{re.escape(name)}(?!\w)", msg) is not None


def _type_error_naming(call, names):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except TypeError as e:
            return None if any(_names(str(e), n) for n in names) else f"TypeError: {e}"
        except Exception as e:   # noqa: BLE001  (another type is what this test looks for)
            return f"{type(e).__name__}: {e}"
    return "no error"


def _own_names(public, fn):
    # an alias (the same function under another name: absolute for abs) names the op it stands for,
    # and a deprecated spelling (nn.init.constant) the function it forwards to
    return {public, getattr(fn, "__name__", public), getattr(getattr(fn, "__wrapped__", fn), "__name__", public)}


def _overload_specs(fn, skip_self=False):
    """A generated overloaded function's (*args, **kwargs) overloads: for each, its positional
    arguments as (name, kind, has_default, kwonly, varargs), from the table it resolves calls by."""
    code = getattr(fn, "__code__", None)
    tables = [n for n in (code.co_names if code else ()) if n.endswith("_overloads")]
    if not tables:
        return []
    return [[a for a in spec if not a[3]][1 if skip_self else 0:] for _, spec in fn.__globals__[tables[0]]]


def _overload_args(spec, i):
    last = max([i] + [j for j, a in enumerate(spec) if not a[2] and not a[4]])
    args = []
    for j, (name, kind, *_) in enumerate(spec[:last + 1]):
        if kind.startswith("Tensor"):
            one = Odd() if j == i else loom.ones(2, 2)
            args.append([loom.ones(2, 2), one] if kind.startswith("Tensor[]") else one)
        elif kind.endswith("?"):
            args.append(None)
        else:
            assert kind in KIND_VALUES, f"no valid value for a {kind} argument: add one to KIND_VALUES"
            args.append(KIND_VALUES[kind])
    return args


def _positions(fn, skip_self=False):
    """(where, parameter name) for each position of fn taking a tensor: where is ("arg", i), or for an
    overloaded function ("overload", k, i), overload k's i-th."""
    specs = _overload_specs(fn, skip_self)
    if specs:
        return [(("overload", k, i), f"{a[0]}@{k}") for k, spec in enumerate(specs) for i, a in enumerate(spec)
                if a[1].startswith("Tensor")]
    return [(("arg", i), name) for i, name in _tensor_positions(fn, skip_self)]


def _call_args(fn, where, skip_self=False):
    if where[0] == "overload":
        return _overload_args(_overload_specs(fn, skip_self)[where[1]], where[2])
    return _args_with_foreign(fn, where[1], skip_self)


def _position_cases():
    for f in _functions():
        fn, qualname = f.values[0], f.id
        for where, name in _positions(fn):
            yield pytest.param(fn, where, id=f"{qualname}-{name}")


def _method_position_cases():
    for n in _methods():
        for where, name in _positions(getattr(loom.Tensor, n), skip_self=True):
            yield pytest.param(n, where, id=f"Tensor.{n}-{name}")


FUNCTION_POSITIONS = list(_position_cases())
METHOD_POSITIONS = list(_method_position_cases())


def test_the_positions_taking_tensors_are_found():
    assert _tensor_positions(loom.add) == [(0, "input"), (1, "other")]   # from its schema (self: input)
    assert _tensor_positions(loom.cat) == [(0, "tensors")]
    assert _tensor_positions(loom.nn.functional.linear) == [(0, "input"), (1, "weight"), (2, "bias")]  # names
    assert _tensor_positions(loom.nn.functional.gumbel_softmax) == [(0, "logits")]   # tau=1: a number
    assert _tensor_positions(loom.Tensor.addmm, skip_self=True) == [(0, "mat1"), (1, "mat2")]
    assert [n for _, n in _positions(loom.div)] == ["input@0", "other@0", "input@1", "other@1"]   # its overloads


@pytest.mark.parametrize("fn, where", FUNCTION_POSITIONS)
def test_a_foreign_object_in_any_tensor_position_is_a_type_error_naming_the_function(fn, where, request):
    case = request.node.callspec.id
    qualname = case.rpartition("-")[0]
    bad = _type_error_naming(lambda: fn(*_call_args(fn, where)), _own_names(qualname.rsplit(".", 1)[1], fn))
    assert (bad is not None) == (case in POSITION_UNNAMED), (
        f"{case}: " + ("now names itself: take it off POSITION_UNNAMED" if case in POSITION_UNNAMED else bad))


@pytest.mark.parametrize("name, where", METHOD_POSITIONS)
def test_a_foreign_object_in_any_tensor_position_of_a_method_is_a_type_error_naming_it(name, where, request):
    case = request.node.callspec.id
    fn = getattr(loom.Tensor, name)
    bad = _type_error_naming(lambda: getattr(loom.ones(2, 2), name)(*_call_args(fn, where, skip_self=True)),
                             _own_names(name, fn))
    assert (bad is not None) == (case in POSITION_UNNAMED), (
        f"{case}: " + ("now names itself: take it off POSITION_UNNAMED" if case in POSITION_UNNAMED else bad))


# hand-written functions whose tensors come in *args, and ones whose tensor arguments default to numbers
_x = loom.ones(2, 2)


@pytest.mark.parametrize("name, call", [
    ("einsum", lambda: loom.einsum("ij,jk", _x, Odd())),
    ("einsum", lambda: loom.einsum(_x, [0, 1], Odd(), [1, 2])),
    ("block_diag", lambda: loom.block_diag(_x, Odd())),
    ("cartesian_prod", lambda: loom.cartesian_prod(loom.ones(2), Odd())),
    ("normal", lambda: loom.normal(Odd(), _x)),
    ("normal", lambda: loom.normal(_x, Odd())),
    ("tensordot", lambda: loom.tensordot(_x, Odd())),
], ids=lambda v: v if isinstance(v, str) else "")
def test_a_foreign_object_among_tensors_given_otherwise_is_a_type_error_naming_the_function(name, call):
    bad = _type_error_naming(call, {name})
    assert bad is None, bad


# ---- a foreign object in every other position of the hand-written functions (ints, floats, strings,
# sizes, dtypes: `takes_tensors`' name=kind checks; the generated ones convert every argument by its
# schema's kind): a TypeError naming the function, with valid arguments everywhere else.
# Flags PyTorch reads by truthiness alone (`if inplace:`), so any object is one there as well:
TRUTHY_FLAGS = {"inplace", "training", "size_average", "reduce", "return_indices", "ceil_mode", "full", "hard", "swap",
                "log_input", "align_corners", "antialias", "recompute_scale_factor", "need_weights", "add_zero_attn",
                "use_separate_proj_weight", "average_attn_weights", "is_causal", "center", "count_include_pad",
                "scale_grad_by_freq", "sparse"}
# other positions that take any object (not tested here):
ACCEPTS_ANYTHING = {
    "loom.vmap-func",                       # any callable, called only later (as torch.vmap)
    "loom.vmap-in_dims",                    # a pytree of dims matched to the inputs only when called
    "loom.vmap-out_dims",
    "loom.vmap-randomness",                 # a RuntimeError naming the allowed values, as torch.vmap's
    "loom.nn.init.calculate_gain-nonlinearity",   # a name: PyTorch's ValueError "Unsupported nonlinearity"
    "loom.nn.init.calculate_gain-param",          # PyTorch's ValueError "... not a valid number"
    "loom.set_anomaly_enabled-check_nan",   # a flag (truthiness), as torch's
}
# positions given a foreign object that do not raise a TypeError naming the function (a strict list:
# one that starts naming itself must leave it)
NONTENSOR_UNNAMED = {
    "loom.tensordot-dims",              # an int, a pair of dim lists or a tensor: checked in the body
    "Tensor.pin_memory-device",         # a RuntimeError: no CUDA in a CPU build
    "Tensor.to_device-device",          # array API's: device()'s own TypeError
    "Tensor.new_tensor-data",           # tensor()'s "could not infer a dtype", as PyTorch's
}


def _nontensor_cases():
    for f in _functions():
        fn, qualname = f.values[0], f.id
        if _overload_specs(fn) or "_ops" in getattr(fn, "__module__", ""):
            continue
        tensors = {i for i, _ in _tensor_positions(fn)}
        for i, p in enumerate(_positional(fn)):
            case = f"{qualname}-{p.name}"
            if (i not in tensors and p.kind is not p.VAR_POSITIONAL and p.name not in TRUTHY_FLAGS
                    and case not in ACCEPTS_ANYTHING):
                yield pytest.param(fn, i, id=case)


NONTENSOR_POSITIONS = list(_nontensor_cases())


def _method_nontensor_cases():
    for n in _methods():
        fn = getattr(loom.Tensor, n)
        if _overload_specs(fn, skip_self=True) or not hasattr(fn, "__code__") or "_ops" in fn.__module__:
            continue
        tensors = {i for i, _ in _tensor_positions(fn, skip_self=True)}
        for i, p in enumerate(_positional(fn, skip_self=True)):
            if i not in tensors and p.kind is not p.VAR_POSITIONAL and p.name not in TRUTHY_FLAGS:
                yield pytest.param(n, i, id=f"Tensor.{n}-{p.name}")


METHOD_NONTENSOR_POSITIONS = list(_method_nontensor_cases())


def test_the_exemptions_are_cases():
    ids = {p.id for p in NONTENSOR_POSITIONS + METHOD_NONTENSOR_POSITIONS}
    assert NONTENSOR_UNNAMED <= ids, NONTENSOR_UNNAMED - ids
    assert not ACCEPTS_ANYTHING & ids
    functions = {p.id: p.values[0] for p in _functions()}
    for case in ACCEPTS_ANYTHING:
        qualname, _, name = case.rpartition("-")
        assert name in inspect.signature(functions[qualname]).parameters, case


@pytest.mark.parametrize("fn, i", NONTENSOR_POSITIONS)
def test_a_foreign_object_in_any_other_position_is_a_type_error_naming_the_function(fn, i, request):
    case = request.node.callspec.id
    qualname = case.rpartition("-")[0]
    bad = _type_error_naming(lambda: fn(*_args_with_foreign(fn, i)), _own_names(qualname.rsplit(".", 1)[1], fn))
    assert (bad is not None) == (case in NONTENSOR_UNNAMED), (
        f"{case}: " + ("now names itself: take it off NONTENSOR_UNNAMED" if case in NONTENSOR_UNNAMED else bad))


@pytest.mark.parametrize("name, i", METHOD_NONTENSOR_POSITIONS)
def test_a_foreign_object_in_any_other_position_of_a_method_is_a_type_error_naming_it(name, i, request):
    case = request.node.callspec.id
    fn = getattr(loom.Tensor, name)
    bad = _type_error_naming(lambda: getattr(loom.ones(2, 2), name)(*_args_with_foreign(fn, i, skip_self=True)),
                             _own_names(name, fn))
    assert (bad is not None) == (case in NONTENSOR_UNNAMED), (
        f"{case}: " + ("now names itself: take it off NONTENSOR_UNNAMED" if case in NONTENSOR_UNNAMED else bad))


@pytest.mark.parametrize("call, message", [
    (lambda: loom.nn.init.uniform_(loom.ones(2), "0"),
     "uniform_(): argument 'a' must be float, not str"),
    (lambda: loom.nn.functional.unfold(loom.ones(1, 1, 2, 2), 2, stride=[1, "1"]),
     "unfold(): argument 'stride' must be tuple of ints, not list"),
    (lambda: loom.nn.init.kaiming_normal_(loom.ones(2, 2), mode=1),
     "kaiming_normal_(): argument 'mode' must be str, not int"),
    (lambda: loom.fft.fft(loom.ones(4), n=2.0), "fft(): argument 'n' must be int, not float"),
    (lambda: loom.linalg.norm(loom.ones(2, 2), [2]), "norm(): argument 'ord' must be Number or str, not list"),
    (lambda: loom.nn.functional.softmin(loom.ones(2), 0, dtype="f"),
     "softmin(): argument 'dtype' must be loom.dtype, not str"),
])
def test_a_wrong_kind_names_the_function_argument_and_kind(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


@pytest.mark.parametrize("call", [
    lambda: loom.nn.init.uniform_(loom.ones(2), 0, loom.tensor(2.0)),       # ints and 0-d tensors as floats
    lambda: loom.nn.functional.unfold(loom.ones(1, 1, 2, 2), loom.Size([2, 2]), stride=[np.int64(1), 1]),
    lambda: loom.nn.functional.adaptive_avg_pool2d(loom.ones(1, 2, 2), (None, 1)),   # None: the input's size
    lambda: loom.nn.functional.interpolate(loom.ones(1, 1, 2), scale_factor=[2]),
    lambda: loom.nn.functional.relu(loom.ones(2), inplace=1),                 # a flag: anything truthy
    lambda: loom.nn.init.dirac_(loom.ones(2, 2, 3), groups=np.int64(1)),      # __index__
])
def test_what_pytorch_accepts_passes_the_checks(call):
    call()
