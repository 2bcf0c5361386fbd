"""The batching rules the op model cannot say: products, losses, indexing, copies.

Each takes (name, fn, args by schema name, level, batch size) and returns the batched result;
registered by C name into _vmap_dispatch.HAND, where they win over generated ones."""
from .. import _ops
from .._batched import BatchedTensor
from .._vmap_dispatch import HAND, HAND_NAMES, materialize, result, unwrap


def rule(cname, name=None):
    def reg(f):
        HAND[cname] = f
        HAND_NAMES[cname] = name or cname
        return f
    return reg


def _mat(x, level, size):
    """(value, batched) with a logical vector/matrix as a batch of matrices (B, r, c)."""
    v, b = unwrap(x, level)
    return v, b


@rule("matmul")
def matmul(name, fn, args, level, size):
    a, ab = unwrap(args["self"], level)
    o, ob = unwrap(args["other"], level)
    an, on = args["self"].ndim, args["other"].ndim
    if ab and not ob and an >= 2:   # (B, ..., n, k) @ (k[, m]): one product over the merged batch
        return result(_ops.matmul(a, o), level)
    if ab and ob:
        if an == 1:
            a = a.unsqueeze(-2)
        if on == 1:
            o = o.unsqueeze(-1)
        if an == 2 and on == 2 or an == 1 or on == 1:
            r = _ops.matmul(a if a.ndim == 3 else a, o)
        else:   # batch dims of both: align the logical ranks under the vmap dim
            rank = max(an, on)
            a = a.reshape((size,) + (1,) * (rank - an) + tuple(a.shape[1:]))
            o = o.reshape((size,) + (1,) * (rank - on) + tuple(o.shape[1:]))
            r = _ops.matmul(a, o)
        if an == 1:
            r = r.squeeze(-2)
        if on == 1:
            r = r.squeeze(-1)
        return result(r, level)
    if ob and not ab:   # x @ (B, ...): through the transposes
        if on == 1:   # x @ v_b: (B, k) -> x (…, k) @ v^T
            r = _ops.matmul(a, o.transpose(0, 1)) if an >= 1 else None
            return result(_ops.movedim(r, -1, 0), level)
        if an == 1:
            return result(_ops.matmul(a.unsqueeze(0).unsqueeze(0), o).squeeze(-2), level)
        rank = max(an, on)
        o = o.reshape((size,) + (1,) * (rank - on) + tuple(o.shape[1:]))
        return result(_ops.matmul(a, o), level)
    if ab and an == 1:   # v_b @ M: (B, k) @ (k, m) or (…, k, m)
        if on == 2:
            return result(_ops.matmul(a, o), level)
        return result(_ops.matmul(a.reshape((size,) + (1,) * (on - 2) + (1, a.shape[-1])), o).squeeze(-2), level)
    return result(_ops.matmul(a, o), level)


@rule("mm")
def mm(name, fn, args, level, size):
    return matmul(name, fn, {"self": args["self"], "other": args["mat2"]}, level, size)


@rule("bmm")
def bmm(name, fn, args, level, size):
    return matmul(name, fn, {"self": args["self"], "other": args["mat2"]}, level, size)


@rule("dot")
def dot(name, fn, args, level, size):
    a = materialize(args["self"], level, size)
    b = materialize(args["tensor"], level, size)
    return result((a * b).sum(1), level)


@rule("linear")
def linear(name, fn, args, level, size):
    x, xb = unwrap(args["input"], level)
    w, wb = unwrap(args["weight"], level)
    bias = args["bias"]
    bv, bb = unwrap(bias, level) if bias is not None else (None, False)
    if not wb and not bb:   # the common case: one GEMM over every sample
        if not xb:
            return result(_ops.linear(x, w, bv), level)
        return result(_ops.linear(x, w, bv), level)
    xn = args["input"].ndim
    xv = materialize(args["input"], level, size)
    x3 = xv.reshape(size, -1, xv.shape[-1]) if xn != 1 else xv.unsqueeze(1)
    w3 = materialize(args["weight"], level, size)
    r = _ops.bmm(x3, w3.transpose(1, 2))
    if bias is not None:
        r = r + materialize(bias, level, size).unsqueeze(1)
    r = r.reshape((size,) + tuple(args["input"].shape[:-1]) + (r.shape[-1],))
    return result(r, level)


@rule("t")
def t(name, fn, args, level, size):
    x = args["self"]
    v, _ = unwrap(x, level)
    return result(v if x.ndim < 2 else v.transpose(1, 2), level)


@rule("nll_loss")
def nll_loss(name, fn, args, level, size):
    x = materialize(args["self"], level, size)
    tgt = materialize(args["target"], level, size)
    w = args["weight"]
    if w is not None and w.__class__ is BatchedTensor and w._level == level:
        raise NotImplementedError("vmap: no batching rule for loom.nll_loss with a batched weight")
    red, ig = args["reduction"], args["ignore_index"]
    flat_x = x.reshape(-1, x.shape[-1]) if args["self"].ndim == 2 else x
    if args["self"].ndim > 2:
        raise NotImplementedError("vmap: no batching rule for loom.nll_loss over spatial dims")
    flat_t = tgt.reshape(-1)
    losses = _ops.nll_loss(flat_x, flat_t, w, "none", ig)
    if red == "none":
        return result(losses.reshape(tuple(tgt.shape)), level)
    losses = losses.reshape(size, -1)
    if red == "sum":
        return result(losses.sum(1), level)
    keep = (flat_t != ig).to(losses.dtype)
    if w is not None:
        keep = keep * _ops.index_select(w, 0, flat_t.clamp(0, w.shape[0] - 1))
    return result(losses.sum(1) / keep.reshape(size, -1).sum(1), level)


@rule("copy_")
def copy_(name, fn, args, level, size):
    self, src = args["self"], args["src"]
    if not (self.__class__ is BatchedTensor and self._level == level):
        raise RuntimeError("vmap: copy_(self, src) is not possible because `src` is vmapped over but `self` is not")
    v = self._value
    s, sb = unwrap(src, level)
    if not sb:
        s = s.unsqueeze(0)
    elif s.ndim - 1 < self.ndim:
        s = s.reshape((size,) + (1,) * (self.ndim - s.ndim + 1) + tuple(s.shape[1:]))
    v.copy_(s.expand(v.shape))
    return self


def _same_rank(name, fn, args, level, size, tensors):
    new = dict(args)
    nd = args[tensors[0]].ndim
    for n in tensors:
        if args[n] is not None:
            new[n] = materialize(args[n], level, size)
    new["dim"] = (args["dim"] % max(nd, 1)) + 1
    return result(fn(**new), level)


for _c, _ts in (("gather", ("self", "index")), ("scatter_src", ("self", "index", "src")),
                ("scatter_value", ("self", "index")), ("scatter_add", ("self", "index", "src"))):
    rule(_c, _c.split("_")[0] if _c != "scatter_add" else _c)(
        lambda name, fn, args, level, size, _ts=_ts: _same_rank(name, fn, args, level, size, _ts))


@rule("index_select")
def index_select(name, fn, args, level, size):
    x, xb = unwrap(args["self"], level)
    i, ib = unwrap(args["index"], level)
    d = args["dim"] % max(args["self"].ndim, 1)
    if not ib:
        return result(_ops.index_select(materialize(args["self"], level, size), d + 1, i), level)
    x = materialize(args["self"], level, size)   # per-sample indices: a gather over dim d + 1
    shape = [size] + [1] * args["self"].ndim
    shape[d + 1] = i.shape[1]
    idx = i.reshape(shape).expand([size] + [s if k != d else i.shape[1] for k, s in enumerate(args["self"].shape)])
    return result(_ops.gather(x, d + 1, idx), level)


@rule("native_layer_norm")
def native_layer_norm(name, fn, args, level, size):
    ns, eps = list(args["normalized_shape"]), args["eps"]
    w, wb = unwrap(args["weight"], level) if args["weight"] is not None else (None, False)
    b, bb = unwrap(args["bias"], level) if args["bias"] is not None else (None, False)
    if not wb and not bb:   # the batch dim leads and the normalised dims trail: one call
        x, _ = unwrap(args["input"], level)
        return result(fn(input=x, normalized_shape=ns, weight=w, bias=b, eps=eps), level)
    x = materialize(args["input"], level, size)
    dims = list(range(x.ndim - len(ns), x.ndim))
    mean = x.mean(dims, keepdim=True)
    rstd = (((x - mean) ** 2).mean(dims, keepdim=True) + eps).rsqrt()
    out = (x - mean) * rstd
    per_sample = [size] + [1] * (x.ndim - 1 - len(ns)) + ns   # a batched weight/bias against its sample
    if w is not None:
        out = out * (materialize(args["weight"], level, size).reshape(per_sample))
    if b is not None:
        out = out + (materialize(args["bias"], level, size).reshape(per_sample))
    return result((out, mean, rstd), level)


@rule("embedding")
def embedding(name, fn, args, level, size):
    w, wb = unwrap(args["weight"], level)
    if wb:
        raise NotImplementedError("vmap: no batching rule for loom.embedding with a batched weight")
    i, _ = unwrap(args["indices"], level)
    return result(fn(weight=w, indices=i, padding_idx=args["padding_idx"],
                     scale_grad_by_freq=args["scale_grad_by_freq"]), level)


@rule("one_hot")
def one_hot(name, fn, args, level, size):
    return result(fn(self=unwrap(args["self"], level)[0], num_classes=args["num_classes"]), level)


def _spatial(rank, tensor="self"):
    """Ops taking (N, C, H, W) or (C, H, W): the batch folds into N."""
    def apply(name, fn, args, level, size):
        x = args[tensor]
        v, _ = unwrap(x, level)
        new = dict(args)
        if x.ndim == rank:
            new[tensor] = v.reshape((-1,) + tuple(v.shape[2:]))
            r = fn(**new)
            unfold = (lambda t: t.reshape((size, -1) + tuple(t.shape[1:])))
        else:
            new[tensor] = v
            r = fn(**new)
            unfold = (lambda t: t)
        if isinstance(r, tuple):
            return result(type(r)(*[unfold(e) for e in r]), level)
        return result(unfold(r), level)
    return apply


for _c in ("max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d"):
    rule(_c)(_spatial(4))


@rule("conv2d")
def conv2d(name, fn, args, level, size):
    w, wb = unwrap(args["weight"], level)
    b = args["bias"]
    bb = b is not None and b.__class__ is BatchedTensor and b._level == level
    if wb or bb:
        raise NotImplementedError("vmap: no batching rule for loom.conv2d with a batched weight or bias")
    return _spatial(4, "input")(name, fn, args, level, size)


def _index_key(self, key):
    level = self._level
    key = key if isinstance(key, tuple) else (key,)
    for k in key:
        if k.__class__ is BatchedTensor:
            if k._level == level:
                raise NotImplementedError("vmap: no batching rule for loom.index with a batched index tensor")
    return (slice(None),) + key


def getitem(self, key):
    return result(self._value[_index_key(self, key)], self._level)


def setitem(self, key, value):
    v, vb = unwrap(value, self._level) if isinstance(value, BatchedTensor) else (value, False)
    if vb:
        target = self._value[_index_key(self, key)]
        target.copy_(v.reshape((v.shape[0],) + (1,) * (target.ndim - v.ndim) + tuple(v.shape[1:])).expand(target.shape))
    else:
        self._value[_index_key(self, key)] = v


BatchedTensor.__getitem__ = getitem
BatchedTensor.__setitem__ = setitem


def detach(self):
    return result(self._value.detach(), self._level)


BatchedTensor.detach = detach
BatchedTensor.T = property(lambda self: self.permute(tuple(range(self.ndim - 1, -1, -1))))


def _channels_merged(t, level, size):
    """(B, N, C, ...) at level as (N, B*C, ...): batch norm's statistics per (sample of the vmap, channel)."""
    x = materialize(t, level, size)
    return x.transpose(0, 1).reshape([x.shape[1], size * x.shape[2]] + list(x.shape[3:]))


def _channels_split(t, size):
    """_batch_norm_train's (N, B*C, ...) back to (B, N, C, ...)."""
    return t.reshape([t.shape[0], size, t.shape[1] // size] + list(t.shape[2:])).transpose(0, 1)


def _per_channel(t, level, size):
    return None if t is None else materialize(t, level, size).reshape([-1])


@rule("_batch_norm_train")
def _batch_norm_train(name, fn, args, level, size):
    x = _channels_merged(args["input"], level, size)
    out, mean, invstd = fn(input=x, weight=_per_channel(args["weight"], level, size),
                           bias=_per_channel(args["bias"], level, size), eps=args["eps"])
    return result((_channels_split(out, size), mean.reshape([size, -1]), invstd.reshape([size, -1])), level)


@rule("_batch_norm_train_backward")
def _batch_norm_train_backward(name, fn, args, level, size):
    x = _channels_merged(args["input"], level, size)
    dx, dw, db = fn(grad_out=_channels_merged(args["grad_out"], level, size), input=x,
                    mean=_per_channel(args["mean"], level, size), invstd=_per_channel(args["invstd"], level, size),
                    weight=_per_channel(args["weight"], level, size), input_grad=args["input_grad"],
                    weight_grad=args["weight_grad"], bias_grad=args["bias_grad"])
    dx = _channels_split(dx, size) if dx.numel() else dx.reshape([size, 0])
    return result((dx, dw.reshape([size, dw.numel() // size]), db.reshape([size, db.numel() // size])), level)
