"""How an op runs on meta tensors: its meta rule, found by the op's C name.

A generated op whose argument conversion meets a MetaTensor (or a factory given device="meta")
reaches `call` through the same `except` branch as vmap's batched operands, with its arguments by
schema name. The rule computes the result's shape, dtype and strides and allocates nothing. Rules
generated from the op model (codegen/metagen.py: pointwise, reductions, factories, in-place
writers) are interpreted here; hand-written ones (HAND, below) cover the ops the model cannot
place (views, matmul, conv, indexing ...) and win. The result dtype, where a rule does not state
it, is the CPU op's own: the op runs once on one-element CPU stand-ins of the same dtypes and ranks
(cached per dtypes and arguments), so promotion and dtype errors are exactly the CPU's.

An op with no rule raises NotImplementedError naming it and the Meta backend."""
import math

from ._C import lib
from ._autograd import grad_enabled
from ._dims import wrap_dim
from ._dtype import BY_CODE, BY_NAME, complex_of, default_devices, device as _device
from ._dtype_table import PROMOTE
from ._meta import MetaTensor, contiguous_strides, format_strides, is_dense, is_meta_device, make, pointwise_strides
from ._tensor import Tensor, _new

GENERATED = {}   # cname -> (name, rule tuple): from the generated _ops
HAND = {}        # cname -> fn(name, fn, args): hand-written rules
int64, bool_ = BY_NAME["int64"], BY_NAME["bool"]


def install_generated(table):
    GENERATED.update(table)


def _tensors(v):
    if isinstance(v, Tensor):
        yield v
    elif isinstance(v, (list, tuple)):
        for e in v:
            if isinstance(e, Tensor):
                yield e


def involved(args):
    """Whether a call's arguments put it on the meta device."""
    for k, v in args.items():
        for t in _tensors(v):
            if t.__class__ is MetaTensor or isinstance(t, MetaTensor):
                return True
        if k == "device" and _meta_device(v):
            return True
    return False


def _meta_device(v):
    """A device argument naming meta, or left out inside `with loom.device("meta"):`."""
    if v is None:
        return bool(default_devices) and default_devices[-1].type == "meta"
    return is_meta_device(v)


def no_rule(name):
    return NotImplementedError(f"Could not run 'loom.{name}' with arguments from the 'Meta' backend: loom has no "
                               f"meta rule for {name} (its result's shape cannot be computed without data, or the "
                               f"rule is not written yet)")


CROSS_DEVICE = ("to_device", "copy_", "to_other")


_BY_SCHEMA_NAMES = {}


def by_schema_names(fn):
    """fn (a generated function: its `self` is spelled `input`) called with the schema's names, as the
    rules pass arguments (args["self"])."""
    if getattr(fn, "_schema_named", False):
        return fn
    hit = _BY_SCHEMA_NAMES.get(fn)
    if hit is None:
        def hit(**kw):
            if "self" in kw:
                kw["input"] = kw.pop("self")
            return fn(**kw)
        hit._schema_named = True
        _BY_SCHEMA_NAMES[fn] = hit
    return hit


def call(cname, fn, args, out=None, inplace=False):
    fn = by_schema_names(fn)
    gen = GENERATED.get(cname)
    name = gen[0] if gen else cname
    rule = HAND.get(cname)
    if rule is None and (gen is None or gen[1] is None):
        raise no_rule(name)
    if cname not in CROSS_DEVICE:
        _check_devices(name, args)
    if inplace:
        return _inplace(name, cname, fn, args)
    r = rule(name, fn, args) if rule is not None else RULES[gen[1][0]](name, fn, args, *gen[1][1:])
    r = _grad_flag(r, args)
    if out is not None:
        return _write_out(out, r, name)
    return r


def _check_devices(name, args):
    for v in args.values():
        for t in _tensors(v):
            if not isinstance(t, MetaTensor) and t.ndim > 0:   # 0-d CPU tensors act as scalars, as in PyTorch
                raise RuntimeError(f"{name}(): Expected all tensors to be on the same device, but found at least two "
                                   f"devices, meta and {t.device}!")


def _grad_flag(r, args):
    """requires_grad propagates (no graph is recorded on meta tensors)."""
    if not grad_enabled() or not any(t.requires_grad for v in args.values() for t in _tensors(v)):
        return r
    for t in (r if isinstance(r, tuple) else (r,)):
        if isinstance(t, MetaTensor) and t._m_dtype.differentiable and not any(t is a for a in args.values()):
            t._m_rg = True
    return r


def _write_out(out, r, name):
    if isinstance(r, tuple):
        for o, x in zip(out, r):
            _write_out(o, x, name)
        return out
    if not isinstance(out, MetaTensor):
        raise RuntimeError(f"{name}(): out= must be a meta tensor for a result on the meta device")
    if tuple(out.shape) != tuple(r.shape):
        if out.numel() != 0:
            raise RuntimeError(f"{name}(): output with shape {list(out.shape)} doesn't match the broadcast shape "
                               f"{list(r.shape)}")
        out._m_shape, out._m_stride = r._m_shape, r._m_stride
    if not lib.lm_can_cast(r.dtype.code, out.dtype.code):
        raise RuntimeError(f"{name}(): result type {r.dtype.name} can't be cast to the desired output type "
                           f"{out.dtype.name}")
    return out


def _inplace(name, cname, fn, args):
    self = args["self"]
    if not isinstance(self, MetaTensor):
        raise RuntimeError(f"{name}_(): Expected all tensors to be on the same device, but found at least two "
                           f"devices, cpu and meta!")
    gen = GENERATED.get(cname)
    rule = HAND.get(cname)
    r = rule(name, fn, args) if rule is not None else RULES[gen[1][0]](name, fn, args, *gen[1][1:])
    r = r[0] if isinstance(r, tuple) else r
    if tuple(r.shape) != tuple(self.shape):
        raise RuntimeError(f"{name}_(): output with shape {list(self.shape)} doesn't match the broadcast shape "
                           f"{list(r.shape)}")
    if not lib.lm_can_cast(r.dtype.code, self.dtype.code):
        raise RuntimeError(f"{name}_(): result type {r.dtype.name} can't be cast to the desired output type "
                           f"{self.dtype.name}")
    return self


# ---- the CPU op on one-element stand-ins: its result dtype (and its argument checks) ----

_PROXY_CACHE = {}


def stand_in(t, fill=1):
    if not isinstance(t, MetaTensor):
        return t
    s = _new(lib.lm_scalar_tensor((float(fill), fill, 1), t.dtype.code, False))
    nd = t.ndim
    if nd == 0:
        return s
    return _new(lib.lm_as_strided(s._h, nd, [1] * nd, [0] * nd, 0))


def _key(v):
    if isinstance(v, Tensor):
        return (v.dtype.code, v.ndim)
    if isinstance(v, (list, tuple)):
        return tuple(_key(e) for e in v)
    if isinstance(v, _device):
        return str(v)
    try:
        hash(v)
    except TypeError:
        return repr(v)
    return (v.__class__, v)


def proxy(name, fn, args, fill=1, **change):
    """fn's result on CPU stand-ins of args' meta tensors (shape (1,) * ndim, value `fill`), a factory's
    device left to the CPU; `change` replaces arguments (an empty size for factories). Cached on the
    dtypes, ranks and other arguments: the dtypes (a tuple for tuple results) are what is kept."""
    key = (name, fill, tuple(sorted(change.items(), key=lambda kv: kv[0])).__repr__(),
           tuple(_key(v) for v in args.values()))
    hit = _PROXY_CACHE.get(key)
    if hit is not None:
        return hit
    try:
        dt = _proxy_dtypes(fn, args, fill, change)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        if fill != 1:
            raise e.__class__(str(e)) from None
        try:   # positions (index tensors) of 1 can be out of range where 0 is not
            dt = _proxy_dtypes(fn, args, 0, change)
        except (RuntimeError, ValueError, TypeError, IndexError):
            raise e.__class__(str(e)) from None
    if len(_PROXY_CACHE) > 8192:
        _PROXY_CACHE.clear()
    _PROXY_CACHE[key] = dt
    return dt


def _proxy_dtypes(fn, args, fill, change):
    new = {}
    for k, v in args.items():
        if isinstance(v, MetaTensor):
            new[k] = stand_in(v, fill)
        elif isinstance(v, (list, tuple)) and any(isinstance(e, MetaTensor) for e in v):
            new[k] = [stand_in(e, fill) for e in v]
        elif k == "device" and _meta_device(v):
            new[k] = "cpu"
        elif k == "requires_grad":
            new[k] = False
        else:
            new[k] = v
    new.update(change)
    r = fn(**new)
    return tuple(x.dtype for x in r) if isinstance(r, tuple) else r.dtype


# ---- shape helpers ----

def broadcast(name, *shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, n in enumerate(s):
            k = nd - len(s) + i
            if n != 1:
                if out[k] != 1 and out[k] != n:
                    raise RuntimeError(f"{name}(): The size of tensor a ({out[k]}) must match the size of tensor b "
                                       f"({n}) at non-singleton dimension {i}")
                out[k] = n
    return out


def _dims_list(dim, nd):
    if dim is None:
        return list(range(nd))
    if isinstance(dim, int):
        dim = [dim]
    return sorted({wrap_dim(d, nd) for d in dim}) if len(dim) else list(range(nd))


# ---- the generated rules' interpreters ----

def pointwise(name, fn, args, tensors):
    ins = [args[n] for n in tensors if isinstance(args[n], Tensor)]
    shape = broadcast(name, *[tuple(t.shape) for t in ins])
    dt = proxy(name, fn, args)
    compute = ins[0].dtype if ins else dt   # what the inputs are converted to (bool results: their promotion)
    for t in ins[1:]:
        compute = BY_CODE[PROMOTE[compute.code][t.dtype.code]]
    if dt.is_floating_point and not (compute.is_floating_point or compute.is_complex):
        compute = dt
    return make(shape, dt, pointwise_strides(shape, [(t.shape, t.stride(), t.dtype) for t in ins], compute))


def reduction(name, fn, args, tensor, dim, keepdim):
    x = args[tensor]
    nd = x.ndim
    dims = _dims_list(args.get(dim), nd) if nd else []
    keep = args.get(keepdim)
    shape = [1 if d in dims else s for d, s in enumerate(x.shape)] if keep else \
        [s for d, s in enumerate(x.shape) if d not in dims]
    return make(shape, proxy(name, fn, args))


def factory(name, fn, args, size):
    shape = [int(s) for s in args[size]]
    if any(s < 0 for s in shape):
        raise RuntimeError(f"{name}(): Trying to create tensor with negative dimension {min(shape)}: {shape}")
    dt = proxy(name, fn, args, **{size: [0] * len(shape)})
    fmt = args.get("memory_format")
    strides = format_strides(shape, fmt.name) if fmt is not None and getattr(fmt, "name", "") != "preserve_format" \
        else None
    return make(shape, dt, strides, requires_grad=args.get("requires_grad", False))


def mutating(name, fn, args, tensor):
    return args[tensor]


RULES = {"pointwise": pointwise, "reduction": reduction, "factory": factory, "mutating": mutating}


def apply_memory_format(r, fmt, like, op):
    """_args._apply_memory_format for a meta result: the strides the format gives (preserve_format:
    like's, where like is dense)."""
    name = getattr(fmt, "name", None)
    if name is None:
        return r
    if name == "preserve_format":
        if isinstance(like, Tensor) and tuple(like.shape) == tuple(r.shape) and is_dense(like.shape, like.stride()):
            strides = like.stride()
        else:
            strides = contiguous_strides(r.shape)
    else:
        strides = format_strides(r.shape, name)
    return make(r.shape, r.dtype, strides, requires_grad=r.requires_grad)


# ---- hand-written rules ----

def rule(*cnames):
    def reg(fn):
        for c in cnames:
            HAND[c] = fn
        return fn
    return reg


def _like(x, dtype=None):
    return make(x.shape, x.dtype if dtype is None else dtype)


# factories whose size is not an int[] argument

@rule("eye")
def _eye(name, fn, args):
    n, m = args["n"], args["m"]
    m = n if m is None else m
    return make([n, m], proxy(name, fn, args, n=0, m=0), requires_grad=args.get("requires_grad", False))


@rule("linspace")
def _linspace(name, fn, args):
    return make([args["steps"]], proxy(name, fn, args, steps=0), requires_grad=args.get("requires_grad", False))


@rule("arange_start")
def _arange(name, fn, args):
    start, end, step = (float(args[k]) for k in ("start", "end", "step"))
    if step == 0:
        raise RuntimeError(f"{name}(): step must be nonzero")
    n = max(0, math.ceil((end - start) / step))
    return make([n], proxy(name, fn, args, end=args["start"]), requires_grad=args.get("requires_grad", False))


@rule("randperm")
def _randperm(name, fn, args):
    return make([args["n"]], proxy(name, fn, args, n=0), requires_grad=args.get("requires_grad", False))


# conversion and copies

def _preserved(x, dtype):
    """A new tensor as loom's CPU copies make it: contiguous (PyTorch's preserve_format would keep a
    dense x's strides; loom's kernels do not, and meta follows loom's CPU)."""
    return make(x.shape, dtype)


@rule("to_device")
def _to_device(name, fn, args):
    x, dev = args["self"], args["device"]
    if isinstance(x, MetaTensor) and not is_meta_device(dev):
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    dt = x.dtype if args.get("dtype") is None else args["dtype"]
    if isinstance(x, MetaTensor) and dt == x.dtype and not args.get("copy") and args.get("memory_format") is None:
        return x
    # onto the meta device a dense tensor keeps its strides (PyTorch's preserve_format), so a meta
    # copy of a CPU tensor has its exact metadata
    r = make(x.shape, dt, x.stride() if is_dense(x.shape, x.stride()) else None)
    fmt = args.get("memory_format")
    return r if fmt is None else apply_memory_format(r, fmt, x, name)


@rule("to_dtype")
def _to_dtype(name, fn, args):
    x, dt = args["self"], args["dtype"]
    if dt == x.dtype and not args.get("copy") and args.get("memory_format") is None:
        return x
    r = _preserved(x, dt)
    fmt = args.get("memory_format")
    return r if fmt is None else apply_memory_format(r, fmt, x, name)


@rule("copy_")
def _copy(name, fn, args):
    x, src = args["self"], args["src"]
    if not isinstance(x, MetaTensor):
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    shape = broadcast(name, tuple(x.shape), tuple(src.shape))
    if tuple(shape) != tuple(x.shape):
        raise RuntimeError(f"{name}(): output with shape {list(x.shape)} doesn't match the broadcast shape {shape}")
    return x


@rule("contiguous")
def _contiguous(name, fn, args):
    x = args["self"]
    fmt = getattr(args.get("memory_format"), "name", "contiguous_format")
    if x.is_contiguous() if fmt in ("contiguous_format", "preserve_format") else \
            all(n <= 1 or s == w for n, s, w in zip(x.shape, x.stride(), format_strides(x.shape, fmt))):
        return x
    return make(x.shape, x.dtype, format_strides(x.shape, fmt))


@rule("clone")
def _clone(name, fn, args):
    x = args["self"]
    fmt = args.get("memory_format")
    r = _preserved(x, x.dtype)
    return r if fmt is None else apply_memory_format(r, fmt, x, name)


# views

def _view(x, shape, strides, offset=None):
    return make(shape, x.dtype, strides, x.storage_offset() if offset is None else offset,
                requires_grad=x.requires_grad)


def _infer(name, shape, numel):
    shape = [int(s) for s in shape]
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError(f"{name}(): only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"{name}(): invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"{name}(): shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"{name}(): shape '{shape}' is invalid for input of size {numel}")
    return shape


def view_strides(old_shape, old_strides, new_shape):
    """The strides viewing (old_shape, old_strides) as new_shape, or None where no view exists
    (PyTorch's computeStride: each run of old dims that is contiguous within itself maps onto the
    new dims whose sizes multiply to its extent)."""
    numel = 1
    for s in old_shape:
        numel *= s
    if numel == 0:
        return contiguous_strides(new_shape) if list(old_shape) != list(new_shape) else tuple(old_strides)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1] if old_strides else 1
    tensor_numel, view_numel = 1, 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = old_strides[d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(new_strides)


@rule("view")
def _view_rule(name, fn, args):
    x = args["self"]
    shape = _infer(name, args["size"], x.numel())
    st = view_strides(tuple(x.shape), x.stride(), shape) if x.ndim else contiguous_strides(shape)
    if st is None:
        raise RuntimeError(f"{name}(): view size is not compatible with input tensor's size and stride (at least one "
                           f"dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _view(x, shape, st)


@rule("reshape")
def _reshape(name, fn, args):
    x = args["self"]
    shape = _infer(name, args["shape"], x.numel())
    st = view_strides(tuple(x.shape), x.stride(), shape) if x.ndim else contiguous_strides(shape)
    if st is None:
        return make(shape, x.dtype)
    return _view(x, shape, st)


@rule("flatten")
def _flatten(name, fn, args):
    x = args["self"]
    if x.ndim == 0:
        return _view(x, [1], (1,))
    s, e = wrap_dim(args["start_dim"], x.ndim), wrap_dim(args["end_dim"], x.ndim)
    if s > e:
        raise RuntimeError(f"{name}(): flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return x
    n = 1
    for d in range(s, e + 1):
        n *= x.shape[d]
    return _reshape(name, fn, {"self": x, "shape": list(x.shape[:s]) + [n] + list(x.shape[e + 1:])})


@rule("transpose")
def _transpose(name, fn, args):
    x = args["self"]
    nd = max(x.ndim, 1)
    a, b = wrap_dim(args["dim0"], nd), wrap_dim(args["dim1"], nd)
    if x.ndim == 0:
        return _view(x, [], ())
    sh, st = list(x.shape), list(x.stride())
    sh[a], sh[b], st[a], st[b] = sh[b], sh[a], st[b], st[a]
    return _view(x, sh, st)


@rule("t")
def _t(name, fn, args):
    x = args["self"]
    if x.ndim > 2:
        raise RuntimeError(f"{name}(): t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return _view(x, list(x.shape)[::-1], list(x.stride())[::-1])


@rule("permute")
def _permute(name, fn, args):
    x = args["self"]
    dims = [wrap_dim(d, x.ndim) for d in args["dims"]]
    if len(dims) != x.ndim or len(set(dims)) != len(dims):
        raise RuntimeError(f"{name}(): number of dims don't match in permute")
    return _view(x, [x.shape[d] for d in dims], [x.stride(d) for d in dims])


@rule("expand")
def _expand(name, fn, args):
    x = args["self"]
    size = list(args["size"])
    if len(size) < x.ndim:
        raise RuntimeError(f"{name}(): the number of sizes provided ({len(size)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({x.ndim})")
    lead = len(size) - x.ndim
    shape, strides = [], []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"{name}(): the expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            shape.append(s)
            strides.append(0)
            continue
        n, st = x.shape[i - lead], x.stride(i - lead)
        if s == -1:
            s = n
        if n == s:
            shape.append(n)
            strides.append(st)
        elif n == 1:
            shape.append(s)
            strides.append(0)
        else:
            raise RuntimeError(f"{name}(): The expanded size of the tensor ({s}) must match the existing size ({n}) "
                               f"at non-singleton dimension {i}.  Target sizes: {size}.  Tensor sizes: "
                               f"{list(x.shape)}")
    return _view(x, shape, strides)


@rule("squeeze")
def _squeeze(name, fn, args):
    x = args["self"]
    dims = _dims_list(args.get("dim"), x.ndim) if x.ndim else []
    keep = [d for d in range(x.ndim) if not (d in dims and x.shape[d] == 1)]
    return _view(x, [x.shape[d] for d in keep], [x.stride(d) for d in keep])


@rule("unsqueeze")
def _unsqueeze(name, fn, args):
    x = args["self"]
    d = wrap_dim(args["dim"], x.ndim + 1)
    sh, st = list(x.shape), list(x.stride())
    st_new = sh[d] * st[d] if d < x.ndim else 1
    sh.insert(d, 1)
    st.insert(d, st_new)
    return _view(x, sh, st)


@rule("narrow")
def _narrow(name, fn, args):
    x = args["self"]
    if x.ndim == 0:
        raise RuntimeError(f"{name}(): narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(args["dim"], x.ndim)
    start, length = args["start"], args["length"]
    n = x.shape[d]
    if start < 0:
        start += n
    if start < 0 or start > n or length < 0 or start + length > n:
        raise RuntimeError(f"{name}(): start ({args['start']}) + length ({length}) exceeds dimension size ({n}).")
    sh = list(x.shape)
    sh[d] = length
    return _view(x, sh, x.stride(), x.storage_offset() + start * x.stride(d))


@rule("diagonal")
def _diagonal(name, fn, args):
    x = args["self"]
    off = args["offset"]
    a, b = wrap_dim(args["dim1"], x.ndim), wrap_dim(args["dim2"], x.ndim)
    if a == b:
        raise RuntimeError(f"{name}(): diagonal dimensions cannot be identical {args['dim1']}, {args['dim2']}")
    n = max(0, min(x.shape[a], x.shape[b] - off) if off >= 0 else min(x.shape[a] + off, x.shape[b]))
    offset = x.storage_offset()
    if n:
        offset += off * x.stride(b) if off >= 0 else -off * x.stride(a)
    keep = [d for d in range(x.ndim) if d not in (a, b)]
    return _view(x, [x.shape[d] for d in keep] + [n], [x.stride(d) for d in keep] + [x.stride(a) + x.stride(b)],
                 offset)


@rule("unfold")
def _unfold(name, fn, args):
    x = args["self"]
    nd = max(x.ndim, 1)
    d = wrap_dim(args["dimension"], nd)
    size, step = args["size"], args["step"]
    n = x.shape[d] if x.ndim else 1
    if size > n:
        raise RuntimeError(f"{name}(): maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"{name}(): step is {step} but must be > 0")
    if x.ndim == 0:
        return _view(x, [size], (1,))
    sh, st = list(x.shape), list(x.stride())
    sh[d] = (n - size) // step + 1
    stride_d = st[d]
    st[d] = stride_d * step
    return _view(x, sh + [size], st + [stride_d])


@rule("as_strided")
def _as_strided(name, fn, args):
    x = args["self"]
    off = args.get("storage_offset")
    return _view(x, list(args["size"]), list(args["stride"]), x.storage_offset() if off is None else off)


def _complex_part(name, fn, args):
    x = args["self"]
    dt = proxy(name, fn, args)
    if not x.dtype.is_complex:
        return x if name == "real" else make(x.shape, dt)
    return make(x.shape, dt, [st * 2 for st in x.stride()], x.storage_offset() * 2 + (name == "imag"))


HAND["real"] = HAND["imag"] = _complex_part


_REAL_OF = {"complex64": "float32", "complex128": "float64", "complex32": "float16"}


@rule("view_as_real")
def _view_as_real(name, fn, args):
    x = args["self"]
    if not x.dtype.is_complex:
        raise RuntimeError(f"{name}(): view_as_real is only supported for complex tensors")
    dt = BY_NAME[_REAL_OF[x.dtype.name]]
    return make(list(x.shape) + [2], dt, [s * 2 for s in x.stride()] + [1], x.storage_offset() * 2)


@rule("view_as_complex")
def _view_as_complex(name, fn, args):
    x = args["self"]
    dt = complex_of(x.dtype) if x.dtype.is_floating_point and x.dtype.name in ("float32", "float64") else None
    if dt is None:
        raise RuntimeError(f"{name}(): view_as_complex is only supported for float and double tensors, but got a "
                           f"tensor of scalar type: {x.dtype.name}")
    if x.ndim == 0 or x.shape[-1] != 2 or x.stride(-1) != 1:
        raise RuntimeError(f"{name}(): Tensor must have a last dimension of size 2 with stride 1")
    return make(list(x.shape[:-1]), dt, [s // 2 for s in x.stride()[:-1]], x.storage_offset() // 2)


@rule("view_dtype")
def _view_dtype(name, fn, args):
    x, dt = args["self"], args["dtype"]
    old, new = x.dtype.itemsize, dt.itemsize
    shape, strides, offset = list(x.shape), list(x.stride()), x.storage_offset()
    if old != new:
        what = f"to view {x.dtype.scalar_type} as {dt.scalar_type} (different element sizes)"
        if x.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        if old > new:
            r = old // new
            shape[-1], offset = shape[-1] * r, offset * r
            strides = [s * r for s in strides[:-1]] + [1]
        else:
            r = new // old
            if shape[-1] % r:
                raise RuntimeError(f"self.size(-1) must be divisible by {r} {what}, but got {shape[-1]}")
            if offset % r:
                raise RuntimeError(f"self.storage_offset() must be divisible by {r} {what}, but got {offset}")
            for d, s in enumerate(strides[:-1]):
                if s % r:
                    raise RuntimeError(f"self.stride({d}) must be divisible by {r} {what}, but got {s}")
            shape[-1], offset = shape[-1] // r, offset // r
            strides = [s // r for s in strides[:-1]] + [1]
    return make(shape, dt, strides, offset)


# joins

@rule("cat")
def _cat(name, fn, args):
    ts = [t for t in args["tensors"] if not (t.ndim == 1 and t.shape[0] == 0)]   # PyTorch skips 1-d empties
    if not args["tensors"]:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")
    dt = proxy(name, fn, args)
    if not ts:
        return make([0], dt)
    d = wrap_dim(args["dim"], ts[0].ndim)
    shape = list(ts[0].shape)
    for t in ts[1:]:
        if t.ndim != len(shape) or any(t.shape[k] != shape[k] for k in range(len(shape)) if k != d):
            raise RuntimeError(f"{name}(): Sizes of tensors must match except in dimension {d}")
    shape[d] = sum(t.shape[d] for t in ts)
    return make(shape, dt)


@rule("stack")
def _stack(name, fn, args):
    ts = args["tensors"]
    if not ts:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")
    for t in ts[1:]:
        if tuple(t.shape) != tuple(ts[0].shape):
            raise RuntimeError(f"{name}(): stack expects each tensor to be equal size")
    d = wrap_dim(args["dim"], ts[0].ndim + 1)
    shape = list(ts[0].shape)
    shape.insert(d, len(ts))
    return make(shape, proxy(name, fn, args))


# same shape as self, a new tensor (dtype: the CPU op's)

def _same(name, fn, args):
    return make(args["self"].shape, proxy(name, fn, args))


def _same_pair(name, fn, args):
    dts = proxy(name, fn, args)
    x = args["self"]
    return _named(fn, name, make(x.shape, dts[0]), make(x.shape, dts[1]))


GENERATED_RESULT = {"sort": "sort_result", "cummax": "cummax_result", "cummin": "cummin_result",
                    "topk": "topk_result", "max_dim": "max_dim_result", "min_dim": "min_dim_result",
                    "max": "max_dim_result", "min": "min_dim_result"}

for _c in ("softmax", "log_softmax", "cumsum", "cumprod", "logcumsumexp", "flip", "roll", "argsort", "random_draw",
           "scatter_src", "scatter_value", "scatter_add", "scatter_reduce_two", "index_add"):
    HAND[_c] = _same
for _c in ("sort", "cummax", "cummin"):
    HAND[_c] = _same_pair


@rule("softmax_backward", "log_softmax_backward")
def _softmax_backward(name, fn, args):
    return make(args["output"].shape, proxy(name, fn, args))


@rule("fill_", "random_fill_", "index_put_")
def _self(name, fn, args):
    return args["self"]


@rule("topk")
def _topk(name, fn, args):
    x = args["self"]
    d = wrap_dim(args["dim"], max(x.ndim, 1))
    k = args["k"]
    n = x.shape[d] if x.ndim else 1
    if k < 0 or k > n:
        raise RuntimeError(f"{name}(): selected index k out of range")
    sh = list(x.shape)
    if sh:
        sh[d] = k
    dts = proxy(name, fn, args, k=min(k, 1))
    return _named(fn, name, make(sh, dts[0]), make(sh, dts[1]))


def _named(fn, name, *ts):
    """ts as the op's named tuple (sort: values, indices), which the generated module defines."""
    r = fn.__globals__.get(GENERATED_RESULT.get(name, ""), None)
    return r(*ts) if r else tuple(ts)


@rule("max_dim", "min_dim")
def _minmax_dim(name, fn, args):
    x = args["self"]
    r = reduction(name, fn, args, "self", "dim", "keepdim")
    if x.ndim and x.shape[wrap_dim(args["dim"], x.ndim)] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {args['dim']} to have non-zero size.")
    dts = proxy(name, fn, args)
    return _named(fn, name, make(r.shape, dts[0]), make(r.shape, dts[1]))


@rule("argmax", "argmin")
def _argmax(name, fn, args):
    x = args["self"]
    if args["dim"] is None:
        if x.numel() == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        return make([1] * x.ndim if args["keepdim"] else [], int64)
    return reduction(name, fn, args, "self", "dim", "keepdim")


# products

def _same_dtype(name, *ts):
    dts = {t.dtype for t in ts if t is not None}
    if len(dts) > 1:
        a, b = [t.dtype.name for t in ts if t is not None][:2]
        raise RuntimeError(f"{name}(): expected m1 and m2 to have the same dtype, but got: {a} != {b}")
    return ts[0].dtype


@rule("mm")
def _mm(name, fn, args):
    a, b = args["self"], args["mat2"]
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"{name}(): self must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"{name}(): mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    return make([a.shape[0], b.shape[1]], _same_dtype(name, a, b))


@rule("bmm")
def _bmm(name, fn, args):
    a, b = args["self"], args["mat2"]
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"{name}(): batch1 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"{name}(): Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    return make([a.shape[0], a.shape[1], b.shape[2]], _same_dtype(name, a, b))


def matmul_shape(name, sa, sb):
    if not sa or not sb:
        raise RuntimeError(f"{name}(): both arguments to matmul need to be at least 1D, but they are {len(sa)}D and "
                           f"{len(sb)}D")
    a1, b1 = len(sa) == 1, len(sb) == 1
    ma = [1] + list(sa) if a1 else list(sa)
    mb = list(sb) + [1] if b1 else list(sb)
    if ma[-1] != mb[-2]:
        raise RuntimeError(f"{name}(): mat1 and mat2 shapes cannot be multiplied ({ma[-2]}x{ma[-1]} and "
                           f"{mb[-2]}x{mb[-1]})")
    batch = broadcast(name, ma[:-2], mb[:-2])
    out = batch + [ma[-2], mb[-1]]
    if b1:
        out.pop(-1)
    if a1:
        out.pop(-2 if not b1 else -1)
    return out


@rule("matmul")
def _matmul(name, fn, args):
    a, b = args["self"], args["other"]
    return make(matmul_shape(name, tuple(a.shape), tuple(b.shape)), _same_dtype(name, a, b))


@rule("linear")
def _linear(name, fn, args):
    x, w, bias = args["input"], args["weight"], args["bias"]
    if x.ndim == 0:
        raise RuntimeError(f"{name}(): both arguments to linear need to be at least 1D")
    if w.ndim == 1:
        shape = matmul_shape(name, tuple(x.shape), tuple(w.shape))
    else:
        if w.ndim != 2:
            raise RuntimeError(f"{name}(): weight must be 1-D or 2-D, got {w.ndim}-D")
        if x.shape[-1] != w.shape[1]:
            n = x.numel() // max(x.shape[-1], 1)
            raise RuntimeError(f"{name}(): mat1 and mat2 shapes cannot be multiplied ({n}x{x.shape[-1]} and "
                               f"{w.shape[1]}x{w.shape[0]})")
        shape = list(x.shape[:-1]) + [w.shape[0]]
    if bias is not None:
        broadcast(name, shape, tuple(bias.shape))
    return make(shape, _same_dtype(name, x, w, bias))


@rule("embedding")
def _embedding(name, fn, args):
    w, idx = args["weight"], args["indices"]
    if w.ndim != 2:
        raise RuntimeError(f"{name}(): 'weight' must be 2-D")
    if idx.dtype.is_floating_point or idx.dtype.is_complex or idx.dtype == bool_:
        raise RuntimeError(f"{name}(): Expected tensor for argument #1 'indices' to have one of the following scalar "
                           f"types: Long, Int; but got {idx.dtype.name} instead")
    return make(list(idx.shape) + [w.shape[1]], w.dtype)


@rule("sdpa_flash")
def _sdpa(name, fn, args):
    q, k, v = args["query"], args["key"], args["value"]
    out = list(q.shape[:-1]) + [v.shape[-1]]
    if q.shape[-1] != k.shape[-1]:
        raise RuntimeError(f"{name}(): query and key must have the same last dimension")
    lse = list(q.shape[:-1])
    return (make(out, q.dtype), make(lse, BY_NAME["float32"] if q.dtype.itemsize < 4 else q.dtype))


def _conv_out(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


@rule("conv2d")
def _conv2d(name, fn, args):
    x, w, b = args["input"], args["weight"], args["bias"]
    if x.ndim not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of "
                           f"size: {list(x.shape)}")
    unbatched = x.ndim == 3
    shape = ([1] if unbatched else []) + list(x.shape)
    g = args["groups"]
    if shape[1] != w.shape[1] * g:
        raise RuntimeError(f"{name}(): Given groups={g}, weight of size {list(w.shape)}, expected input"
                           f"{shape} to have {w.shape[1] * g} channels, but got {shape[1]} channels instead")
    st, pd, dl = (_pair(args[k]) for k in ("stride", "padding", "dilation"))
    hw = [_conv_out(shape[2 + i], w.shape[2 + i], st[i], pd[i], dl[i]) for i in range(2)]
    if min(hw) <= 0:
        raise RuntimeError(f"{name}(): Calculated output size is too small")
    out = [shape[0], w.shape[0]] + hw
    return make(out[1:] if unbatched else out, _same_dtype(name, x, w, b))


def _pool_out(n, k, s, p, d, ceil):
    o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def _pair(v):
    v = [v] if isinstance(v, int) else list(v)
    return v * 2 if len(v) == 1 else v


def _pool(name, args, dilation):
    x = args["self"]
    k = _pair(args["kernel_size"])
    s = _pair(args["stride"]) if args["stride"] not in (None, [], ()) else k
    p = _pair(args["padding"])
    d = _pair(dilation)
    hw = [_pool_out(x.shape[-2 + i], k[i], s[i], p[i], d[i], args["ceil_mode"]) for i in range(2)]
    if min(hw) <= 0:
        raise RuntimeError(f"{name}(): Output size is too small")
    return list(x.shape[:-2]) + hw


@rule("max_pool2d_with_indices")
def _max_pool(name, fn, args):
    shape = _pool(name, args, args["dilation"])
    return (make(shape, args["self"].dtype), make(shape, int64))


@rule("avg_pool2d")
def _avg_pool(name, fn, args):
    return make(_pool(name, args, [1]), args["self"].dtype)


def _adaptive_shape(name, args):
    x = args["self"]
    o = _pair(args["output_size"])
    return list(x.shape[:-2]) + [x.shape[-2] if s is None else s for s in o]


@rule("adaptive_avg_pool2d")
def _adaptive_avg(name, fn, args):
    return make(_adaptive_shape(name, args), args["self"].dtype)


@rule("adaptive_max_pool2d")
def _adaptive_max(name, fn, args):
    shape = _adaptive_shape(name, args)
    return (make(shape, args["self"].dtype), make(shape, int64))


@rule("pad")
def _pad(name, fn, args):
    x, pad = args["self"], list(args["pad"])
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise RuntimeError(f"{name}(): Padding length must be divisible by 2 and at most twice the input's rank")
    shape = list(x.shape)
    for i in range(len(pad) // 2):
        shape[-1 - i] += pad[2 * i] + pad[2 * i + 1]
        if shape[-1 - i] < 0:
            raise RuntimeError(f"{name}(): the padded size of dimension {x.ndim - 1 - i} is negative")
    return make(shape, x.dtype)


@rule("nll_loss")
def _nll_loss(name, fn, args):
    x, target = args["self"], args["target"]
    red = args["reduction"]
    if x.ndim not in (1, 2) and x.ndim < 2:
        raise RuntimeError(f"{name}(): input tensor should be 1D or 2D")
    if red == "none":
        return make(list(target.shape), x.dtype)
    return make([], x.dtype)


@rule("gather")
def _gather(name, fn, args):
    x, idx = args["self"], args["index"]
    if idx.dtype != int64:
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    return make(idx.shape, x.dtype)


@rule("index_select")
def _index_select(name, fn, args):
    x, idx = args["self"], args["index"]
    if idx.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    if x.ndim == 0:
        return make([], x.dtype)
    d = wrap_dim(args["dim"], x.ndim)
    sh = list(x.shape)
    sh[d] = idx.numel()
    return make(sh, x.dtype)


@rule("index_Tensor")
def _index(name, fn, args):
    x, idx = args["self"], list(args["indices"])
    if any(i is not None and i.dtype == bool_ or i is not None and i.dtype.name == "uint8" for i in idx):
        raise no_rule(name + " with a boolean mask (its result's size depends on the data)")
    if len(idx) > x.ndim:
        raise IndexError(f"{name}(): too many indices for tensor of dimension {x.ndim}")
    pos = [i for i, t in enumerate(idx) if t is not None]
    if not pos:
        return make(x.shape, x.dtype)
    bshape = broadcast(name, *[tuple(idx[i].shape) for i in pos])
    rest = [x.shape[i] for i in range(x.ndim) if i not in pos]
    if pos == list(range(pos[0], pos[-1] + 1)):   # adjacent indexed dims: the result's dims go where they were
        return make(rest[:pos[0]] + bshape + rest[pos[0]:], x.dtype)
    return make(bshape + rest, x.dtype)   # split by a slice: in front, as NumPy's rule


@rule("one_hot")
def _one_hot(name, fn, args):
    n = args["num_classes"]
    if n < 0:
        raise no_rule(name + " with num_classes=-1 (the class count is read from the data)")
    return make(list(args["self"].shape) + [n], int64)


@rule("lstm_gates")
def _lstm_gates(name, fn, args):
    cx = args["cx"]
    return (make(cx.shape, cx.dtype), make(cx.shape, cx.dtype))


@rule("_lstm_layer")
def _lstm_layer(name, fn, args):
    x, h0 = args["x_proj"], args["h0"]
    seq = [x.shape[0], x.shape[1], h0.shape[-1]]
    return (make(seq, x.dtype), make(seq, x.dtype), make(x.shape, x.dtype))


@rule("empty_strided")
def _empty_strided(name, fn, args):
    size, stride = [int(s) for s in args["size"]], [int(s) for s in args["stride"]]
    if any(s < 0 for s in size):
        raise RuntimeError(f"{name}(): Trying to create tensor with negative dimension {min(size)}: {size}")
    if len(size) != len(stride):
        raise RuntimeError(f"{name}(): dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    dt = proxy(name, fn, args, size=[0] * len(size), stride=[1] * len(size))
    return make(size, dt, stride)


@rule("native_layer_norm")
def _native_layer_norm(name, fn, args):
    x, n = args["input"], len(args["normalized_shape"])
    if list(x.shape[x.ndim - n:]) != list(args["normalized_shape"]):
        raise RuntimeError(f"{name}(): normalized_shape does not match the input's trailing dims")
    stats = list(x.shape[:x.ndim - n]) + [1] * n
    return (make(x.shape, x.dtype), make(stats, x.dtype), make(stats, x.dtype))


@rule("_batch_norm_train")
def _bn_train(name, fn, args):
    x = args["input"]
    if x.ndim < 2:
        raise RuntimeError(f"{name}(): expected a 2-D or more input (N, C, ...), got {x.ndim}-D")
    return (make(x.shape, x.dtype), make([x.shape[1]], x.dtype), make([x.shape[1]], x.dtype))


@rule("_batch_norm_train_backward")
def _bn_train_backward(name, fn, args):
    x = args["input"]
    wanted = (args["input_grad"], args["weight_grad"], args["bias_grad"])
    return tuple(make(s if f else [0], x.dtype) for s, f in zip((x.shape, [x.shape[1]], [x.shape[1]]), wanted))


# spectral: the transformed dims keep their sizes, but a real-to-complex transform's last (onesided)
# and a complex-to-real one's, which is last_dim_size

@rule("_fft_c2c")
def _fft_c2c(name, fn, args):
    return make(args["self"].shape, proxy(name, fn, args))


@rule("_fft_r2c")
def _fft_r2c(name, fn, args):
    x = args["self"]
    shape = list(x.shape)
    if args["onesided"] and args["dim"]:
        d = wrap_dim(args["dim"][-1], x.ndim)
        shape[d] = shape[d] // 2 + 1
    return make(shape, proxy(name, fn, args))


@rule("_fft_c2r")
def _fft_c2r(name, fn, args):
    x = args["self"]
    shape = list(x.shape)
    if args["dim"]:
        shape[wrap_dim(args["dim"][-1], x.ndim)] = args["last_dim_size"]
    return make(shape, proxy(name, fn, args, last_dim_size=1))


# backward kernels: each gradient has its input's shape

@rule("linear_backward")
def _linear_backward(name, fn, args):
    x, w = args["input"], args["weight"]
    dt = proxy(name, fn, args)
    shapes = (x.shape, w.shape, [w.shape[0]] if w.ndim == 2 else [])
    flags = (args["input_grad"], args["weight_grad"], args["bias_grad"])
    return tuple(make(s if f else [0], d) for s, f, d in zip(shapes, flags, dt))


@rule("conv2d_backward_input")
def _conv_backward_input(name, fn, args):
    return make(list(args["input_size"]), args["weight"].dtype)


@rule("conv2d_backward_weight")
def _conv_backward_weight(name, fn, args):
    return make(list(args["weight_size"]), args["input"].dtype)


@rule("pad_backward")
def _pad_backward(name, fn, args):
    return make(list(args["input_size"]), args["grad_output"].dtype)


@rule("avg_pool2d_backward", "adaptive_avg_pool2d_backward", "max_pool2d_backward", "nll_loss_backward")
def _like_self_backward(name, fn, args):
    return make(args["self"].shape, args["grad_output"].dtype)


@rule("sdpa_flash_backward")
def _sdpa_backward(name, fn, args):
    return tuple(make(args[k].shape, args[k].dtype) for k in ("query", "key", "value"))


@rule("lstm_gates_backward")
def _lstm_gates_backward(name, fn, args):
    return (make(args["gates"].shape, args["gates"].dtype), make(args["cx"].shape, args["cx"].dtype))


@rule("_lstm_layer_backward")
def _lstm_layer_backward(name, fn, args):
    g, h0, w = args["gates"], args["h0"], args["w_hh"]
    return (make(g.shape, g.dtype), make(h0.shape, g.dtype), make(args["c0"].shape, g.dtype),
            make(w.shape, g.dtype), make([g.shape[-1]], g.dtype))


@rule("native_layer_norm_backward")
def _native_layer_norm_backward(name, fn, args):
    x, ns = args["input"], list(args["normalized_shape"])
    wanted = (args["input_grad"], args["weight_grad"] and args["weight"] is not None,
              args["bias_grad"] and args["bias"] is not None)
    return tuple(make(s if f else [0], x.dtype) for s, f in zip((x.shape, ns, ns), wanted))


# linear algebra: batched over the leading dims

def _square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}(): A must be batches of square matrices, but they are {a.shape[-2] if a.ndim > 1 else 0} "
                           f"by {a.shape[-1] if a.ndim else 0} matrices")
    return list(a.shape[:-2])


@rule("_linalg_det")
def _det(name, fn, args):
    return make(_square(name, args["a"]), proxy(name, fn, args))


@rule("_linalg_logabsdet")
def _logabsdet(name, fn, args):
    batch = _square(name, args["a"])
    dts = proxy(name, fn, args)
    return tuple(make(batch, d) for d in dts)


@rule("_linalg_inv_ex")
def _inv_ex(name, fn, args):
    a = args["a"]
    batch = _square(name, a)
    dts = proxy(name, fn, args)
    return (make(a.shape, dts[0]), make(batch, dts[1]))


@rule("_linalg_solve_triangular")
def _solve_triangular(name, fn, args):
    a, b = args["a"], args["b"]
    _square(name, a)
    batch = broadcast(name, a.shape[:-2], b.shape[:-2])
    return make(batch + list(b.shape[-2:]), proxy(name, fn, args))


def _batch_mn(name, a):
    if a.ndim < 2:
        raise RuntimeError(f"{name}(): The input tensor A must have at least 2 dimensions.")
    return list(a.shape[:-2]), a.shape[-2], a.shape[-1]


@rule("_linalg_lu_factor_ex")
def _lu_factor(name, fn, args):
    a = args["a"]
    b, m, n = _batch_mn(name, a)
    dts = proxy(name, fn, args)
    return (make(a.shape, dts[0]), make(b + [min(m, n)], dts[1]), make(b, dts[2]))


@rule("_linalg_cholesky_ex")
def _cholesky(name, fn, args):
    a = args["a"]
    batch = _square(name, a)
    dts = proxy(name, fn, args)
    return (make(a.shape, dts[0]), make(batch, dts[1]))


@rule("_linalg_eigh", "_linalg_eig")
def _eig(name, fn, args):
    a = args["a"]
    batch = _square(name, a)
    dts = proxy(name, fn, args)
    vecs = a.shape if args["compute_v"] else [0]
    return (make(batch + [a.shape[-1]], dts[0]), make(vecs, dts[1]), make(batch, dts[2]))


@rule("_linalg_svd")
def _svd(name, fn, args):
    a = args["a"]
    b, m, n = _batch_mn(name, a)
    k = min(m, n)
    dts = proxy(name, fn, args)
    if not args["compute_uv"]:
        u, vh = b + [0, 0], b + [0, 0]
    elif args["full_matrices"]:
        u, vh = b + [m, m], b + [n, n]
    else:
        u, vh = b + [m, k], b + [k, n]
    return (make(u, dts[0]), make(b + [k], dts[1]), make(vh, dts[2]), make(b, dts[3]))


@rule("_linalg_qr")
def _qr(name, fn, args):
    a = args["a"]
    b, m, n = _batch_mn(name, a)
    k = m if args["complete"] else min(m, n)
    dts = proxy(name, fn, args)
    q = b + [m, k] if args["compute_q"] else [0]
    return (make(q, dts[0]), make(b + [k, n], dts[1]))


@rule("_linalg_lu_solve")
def _lu_solve(name, fn, args):
    lu, rhs = args["lu"], args["b"]
    _square(name, lu)
    batch = broadcast(name, lu.shape[:-2], rhs.shape[:-2])
    return make(batch + list(rhs.shape[-2:]), proxy(name, fn, args))


@rule("linalg_householder_product")
def _householder(name, fn, args):
    return make(args["input"].shape, proxy(name, fn, args))


@rule("_linalg_solve_ex")
def _solve_ex(name, fn, args):
    a, b = args["a"], args["b"]
    batch = _square(name, a)
    if b.ndim != a.ndim or b.shape[-2] != a.shape[-1]:
        raise RuntimeError(f"{name}(): Incompatible shapes of A and B for the equation AX = B")
    if list(b.shape[:-2]) != batch:
        raise RuntimeError(f"{name}(): B must have the batch dimensions of the matrix (broadcast them first)")
    dts = proxy(name, fn, args)
    return (make(b.shape, dts[0]), make(batch, dts[1]))


@rule("multinomial")
def _multinomial(name, fn, args):
    x, k = args["self"], args["num_samples"]
    if x.ndim not in (1, 2):
        raise RuntimeError(f"{name}(): prob_dist must be 1 or 2 dim")
    if not args["replacement"] and k > x.shape[-1]:
        raise RuntimeError(f"{name}(): cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    return make(list(x.shape[:-1]) + [k], int64)
