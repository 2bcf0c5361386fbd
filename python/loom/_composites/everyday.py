"""Composite ops of ops/everyday.yaml: the everyday PyTorch functions (einsum, searching and
counting, order statistics, index and shape helpers), each written with other loom ops so that
autograd goes through their parts. The generated function of the same name in loom._ops checks
the arguments and calls it."""
import builtins as _b
import itertools as _itertools
import math as _math

from .. import _ops
from .._args import _check_tensor_list
from .._dtype import bool_, int32, int64, float32, float64
from .._errors import LoomIndexError
from .._multi import broadcast_shapes, meshgrid
from .._numpy import tensor as _tensor
from .._runtime import get_default_dtype as _default_dtype
from .._promotion import promote_types

# PyTorch's names for dtypes in its "expected scalar type" messages
_TORCH_TYPE = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
               "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
               "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _tname(dt):
    return _TORCH_TYPE.get(dt.name, dt.name)


def _wrap(dim, ndim):
    n = _b.max(ndim, 1)   # a 0-d tensor takes dims 0 and -1, as PyTorch's
    if not -n <= dim < n:
        raise LoomIndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _same_dtype(tensors):
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(f"expected scalar type {_tname(tensors[0].dtype)} but found {_tname(t.dtype)}")


# ---------------------------------------------------------------------------------------- einsum

_ELL = "..."


def _einsum_parse(equation, n_ops):
    """(per-operand label lists, output label list or None): labels are letters, _ELL the ellipsis."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > n_ops:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < n_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    offset = [0]

    def labels(term, who):
        out, i = [], 0
        while i < len(term):
            c = term[i]
            if c == ".":
                if _ELL in out:
                    raise RuntimeError(f"einsum(): found '.' for {who} for which an ellipsis was already found")
                if term[i:i + 3] != _ELL:
                    part = "(...)" if who == "output" else ""
                    raise RuntimeError(f"einsum(): found '.' for {who} that is not part of any ellipsis{' ' + part if part else ''}")
                out.append(_ELL)
                i += 3
                continue
            if not ("a" <= c <= "z" or "A" <= c <= "Z"):
                raise RuntimeError(f"einsum(): invalid subscript given at index {offset[0] + i} in the equation "
                                   "string, subscripts must be in [a-zA-Z]")
            out.append(c)
            i += 1
        offset[0] += len(term) + 1
        return out

    ins = [labels(t, f"operand {k}") for k, t in enumerate(terms)]
    offset[0] += 1   # the '>' of the arrow
    out = labels(rhs, "output") if arrow else None
    return ins, out


def _diagonal_labels(t, labels, k):
    """t with each repeated label's dims replaced by their diagonal (at the end), and its labels."""
    while True:
        seen = {}
        rep = None
        for i, lab in enumerate(labels):
            if lab in seen:
                rep = (seen[lab], i)
                break
            seen[lab] = i
        if rep is None:
            return t, labels
        i, j = rep
        if t.shape[i] != t.shape[j]:
            raise RuntimeError(f"einsum(): subscript {labels[i]} is repeated for operand {k} but the sizes don't "
                               f"match, {t.shape[j]} != {t.shape[i]}")
        t = _ops.diagonal(t, 0, i, j)
        labels = [lab for n, lab in enumerate(labels) if n not in (i, j)] + [labels[i]]


def _sum_out(t, labels, keep):
    drop = [i for i, lab in enumerate(labels) if lab not in keep]
    if not drop:
        return t, labels
    return t.sum(drop), [lab for lab in labels if lab in keep]


def _contract(a, la, b, lb, needed):
    """a and b contracted over their shared labels that no later operand or the output needs, with
    one bmm: (batch, a-only, shared) @ (batch, shared, b-only)."""
    a, la = _sum_out(a, la, set(lb) | needed)
    b, lb = _sum_out(b, lb, set(la) | needed)
    size = {}
    for t, ls in ((a, la), (b, lb)):
        for lab, n in zip(ls, t.shape):
            size[lab] = n if size.get(lab, 1) == 1 else size[lab]
    batch = [lab for lab in la if lab in lb and lab in needed]
    summed = [lab for lab in la if lab in lb and lab not in needed]
    only_a = [lab for lab in la if lab not in lb]
    only_b = [lab for lab in lb if lab not in la]
    # a size-1 dim against a larger one broadcasts: summed ones are summed on the larger side first
    for lab in summed:
        ia, ib = la.index(lab), lb.index(lab)
        if a.shape[ia] != b.shape[ib]:
            if a.shape[ia] == 1:
                b = b.sum([ib], True)
            else:
                a = a.sum([ia], True)
    size.update({lab: a.shape[la.index(lab)] for lab in summed})

    def arrange(t, ls, order, shape3):
        t = t.permute([ls.index(lab) for lab in order])
        t = t.expand([size[lab] if lab in batch else n for lab, n in zip(order, t.shape)])
        return t.reshape(shape3)

    nb = _math.prod(size[lab] for lab in batch)
    m = _math.prod(size[lab] for lab in only_a)
    n = _math.prod(size[lab] for lab in only_b)
    k = _math.prod(size[lab] for lab in summed)
    a3 = arrange(a, la, batch + only_a + summed, [nb, m, k])
    b3 = arrange(b, lb, batch + summed + only_b, [nb, k, n])
    r = _ops.bmm(a3, b3)
    labels = batch + only_a + only_b
    return r.reshape([size[lab] for lab in labels]), labels


def einsum(equation, tensors, path):
    _check_tensor_list(tensors, "einsum", "tensors")   # the generated entry leaves a composite's Tensor[] unchecked
    if not tensors:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    ins, out = _einsum_parse(equation, len(tensors))
    _same_dtype(tensors)
    ell = 0
    for k, (t, ls) in enumerate(zip(tensors, ins)):
        n = len(ls) - (_ELL in ls)
        if _ELL in ls:
            if n > t.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) is more than the "
                                   f"number of dimensions ({t.ndim}) for operand {k}")
            ell = _b.max(ell, t.ndim - n)
        elif n != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does not match the number "
                               f"of dimensions ({t.ndim}) for operand {k} and no ellipsis was given")
    ell_labels = [(_ELL, i) for i in range(ell)]   # aligned at the right, as broadcasting aligns

    ops_, labs = [], []
    for k, (t, ls) in enumerate(zip(tensors, ins)):
        if _ELL in ls:
            i = ls.index(_ELL)
            m = t.ndim - (len(ls) - 1)
            ls = ls[:i] + ell_labels[ell - m:] + ls[i + 1:]
        t, ls = _diagonal_labels(t, ls, k)
        ops_.append(t)
        labs.append(ls)

    seen_size = {}
    for k, (t, ls) in enumerate(zip(ops_, labs)):
        for lab, n in zip(ls, t.shape):
            prev = seen_size.get(lab)
            if prev is not None and n != prev and n != 1 and prev != 1:
                name = "..." if isinstance(lab, tuple) else lab
                raise RuntimeError(f"einsum(): subscript {name} has size {n} for operand {k} which does not "
                                   f"broadcast with previously seen size {prev}")
            if prev is None or prev == 1:
                seen_size[lab] = n

    if out is None:   # implicit: the ellipsis, then the labels used once, in alphabetical order
        counts = {}
        for ls in ins:
            for lab in ls:
                if lab != _ELL:
                    counts[lab] = counts.get(lab, 0) + 1
        out_labels = ell_labels + sorted(lab for lab, c in counts.items() if c == 1)
    else:
        out_labels = []
        for lab in out:
            if lab == _ELL:
                out_labels += ell_labels
                continue
            if lab in out_labels:
                raise RuntimeError(f"einsum(): output subscript {lab} appears more than once in the output")
            if not any(lab in ls for ls in ins):
                raise RuntimeError(f"einsum(): output subscript {lab} does not appear in the equation for any "
                                   "input operand")
            out_labels.append(lab)

    t, ls = ops_[0], labs[0]
    for j in range(1, len(ops_)):
        needed = set(out_labels).union(*[set(x) for x in labs[j + 1:]])
        t, ls = _contract(t, ls, ops_[j], labs[j], needed)
    t, ls = _sum_out(t, ls, set(out_labels))
    t = t.permute([ls.index(lab) for lab in out_labels])
    # a label broadcast only within one operand (size 1 there) takes the size seen elsewhere
    want = [seen_size[lab] for lab in out_labels]
    if list(t.shape) != want:
        t = t.expand(want)
    return t


def tensordot(self, other, dims_self, dims_other):
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    _same_dtype([self, other])
    da = [_wrap(d, self.ndim) for d in dims_self]
    db = [_wrap(d, other.ndim) for d in dims_other]
    for x, y, ux, uy in zip(da, db, dims_self, dims_other):
        if self.shape[x] != other.shape[y] and self.shape[x] != 1 and other.shape[y] != 1:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {self.shape[x]} in dim "
                               f"{ux} and second has size {other.shape[y]} in dim {uy}")
    for x, y in zip(da, db):   # a size-1 dim against a larger one: sum the larger side over it
        if self.shape[x] != other.shape[y]:
            if self.shape[x] == 1:
                other = other.sum([y], True)
            else:
                self = self.sum([x], True)
    fa = [d for d in range(self.ndim) if d not in da]
    fb = [d for d in range(other.ndim) if d not in db]
    k = _math.prod(self.shape[d] for d in da)
    a = self.permute(fa + da).reshape([_math.prod(self.shape[d] for d in fa), k])
    b = other.permute(db + fb).reshape([k, _math.prod(other.shape[d] for d in fb)])
    return _ops.mm(a, b).reshape([self.shape[d] for d in fa] + [other.shape[d] for d in fb])


def kron(self, other):
    nd = _b.max(self.ndim, other.ndim)
    a = self.reshape([1] * (nd - self.ndim) + list(self.shape))
    b = other.reshape([1] * (nd - other.ndim) + list(other.shape))
    # a[i] * b[j] at position i * b.shape + j: interleave the dims, then merge each pair
    ai = a.reshape([x for n in a.shape for x in (n, 1)])
    bi = b.reshape([x for n in b.shape for x in (1, n)])
    return (ai * bi).reshape([x * y for x, y in zip(a.shape, b.shape)])


# ----------------------------------------------------------------------------- distances, counting

def cdist(x1, x2, p, compute_mode):
    modes = (None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_tname(t.dtype)}")
    for name, t in (("X1", x1), ("X2", x2)):
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    _same_dtype([x1, x2])
    batch = list(broadcast_shapes(x1.shape[:-2], x2.shape[:-2]))
    a = x1.expand(batch + list(x1.shape[-2:]))
    b = x2.expand(batch + list(x2.shape[-2:]))
    r1, r2 = a.shape[-2], b.shape[-2]
    mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or
                     (compute_mode in (None, "use_mm_for_euclid_dist_if_necessary") and (r1 > 25 or r2 > 25)))
    if mm:
        # |a|^2 - 2 a.b + |b|^2 in one matmul, as PyTorch's; rounding can leave it below 0, hence the clamp
        na = (a * a).sum([-1], True)
        nb = (b * b).sum([-1], True)
        ones_a, ones_b = _ops.ones_like(na), _ops.ones_like(nb)
        left = _ops.cat([a * -2, na, ones_a], -1)
        right = _ops.cat([b, ones_b, nb], -1)
        return _ops.matmul(left, right.transpose(-1, -2)).clamp_min(0).sqrt()
    d = (a.unsqueeze(-2) - b.unsqueeze(-3)).abs()
    if p == 0:
        return (d != 0).to(a.dtype).sum([-1])
    if p == 1:
        return d.sum([-1])
    if _math.isinf(p):
        return d.amax([-1]) if d.shape[-1] else d.sum([-1])
    if p == 2:
        return (d * d).sum([-1]).sqrt()
    return d.pow(p).sum([-1]).pow(1.0 / p)


def bincount(self, weights, minlength):
    if self.ndim != 1 or self.dtype.is_floating_point or self.dtype.is_complex or self.dtype == bool_:
        if self.dtype.is_floating_point or self.dtype == bool_:
            raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_tname(self.dtype)}'")
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != self.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = self.shape[0]
    if n and int(self.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    size = _b.max(int(self.max()) + 1 if n else 0, minlength)
    idx = self.to(int64)
    if weights is None:
        return _ops.zeros([size], dtype=int64, device=self.device).index_add(0, idx, _ops.ones_like(idx))
    # PyTorch counts float32 weights in float32 and every other dtype in float64
    wt = float32 if weights.dtype == float32 else float64
    w = weights.to(wt)
    return _ops.zeros([size], dtype=wt, device=self.device).index_add(0, idx, w)


def _searchsorted_checks(sorted_sequence, self, right, side, sorter):
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"side can only be 'left' or 'right' but got {side}")
    if side is not None and (side == "right") != right and right:
        raise RuntimeError(f"side and right can't be set to opposites, got side of {side} "
                           f"while right was {right}")
    if sorted_sequence.ndim == 0:
        raise RuntimeError("boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if sorted_sequence.ndim > 1 and (self.ndim != sorted_sequence.ndim or
                                     self.shape[:-1] != sorted_sequence.shape[:-1]):
        raise RuntimeError("boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor "
                           f"{list(self.shape)}")
    if sorter is not None:
        if sorter.shape != sorted_sequence.shape:
            raise RuntimeError(f"boundary and sorter must have the same size, but got "
                               f"boundary tensor {list(sorted_sequence.shape)}and got sorter tensor "
                               f"{list(sorter.shape)}")
        if sorter.dtype != int64:
            raise RuntimeError(f"sorter must be a tensor of long dtype but got dtype "
                               f"{_tname(sorter.dtype)}")
    return right or side == "right"


def _search(seq, values, right):
    """For rows seq (..., m) sorted ascending and values (..., n): how many seq elements are below each
    value (<= with right). One stable sort of both together, so O((m + n) log) and no (n, m) table:
    ties put the values after the sequence's elements for right, before them for left."""
    dt = promote_types(seq.dtype, values.dtype)
    seq, values = seq.to(dt), values.to(dt)
    m, n = seq.shape[-1], values.shape[-1]
    both = _ops.cat([seq, values] if right else [values, seq], -1)
    order = _ops.argsort(both, -1, stable=True)
    is_seq = order < m if right else order >= n
    below = _ops.cumsum(is_seq.to(int64), -1) - is_seq.to(int64)   # sequence elements before each place
    # scatter back: the place of each value in the sorted order holds its count
    counts = _ops.zeros(list(both.shape), dtype=int64, device=seq.device).scatter(-1, order, below)
    return counts.narrow(-1, m, n) if right else counts.narrow(-1, 0, n)


def searchsorted(sorted_sequence, self, out_int32, right, side, sorter):
    right = _searchsorted_checks(sorted_sequence, self, right, side, sorter)
    seq = sorted_sequence if sorter is None else _ops.gather(sorted_sequence, -1, sorter)
    if seq.ndim == 1:
        r = _search(seq.unsqueeze(0), self.reshape([1, -1]), right).reshape(list(self.shape))
    else:
        r = _search(seq, self, right)
    return r.to(int32) if out_int32 else r


def bucketize(self, boundaries, out_int32, right):
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    r = _search(boundaries.unsqueeze(0), self.reshape([1, -1]), right).reshape(list(self.shape))
    return r.to(int32) if out_int32 else r


def histc(self, bins, min, max):
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_tname(self.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"bins must be > 0, but got {bins} for dimension 0")
    if self.is_meta:   # the range may come from the values: only the size is known
        return _ops.empty([bins], dtype=self.dtype, device=self.device)
    lo, hi = float(min), float(max)
    if lo == hi and self.numel():
        lo, hi = float(self.min()), float(self.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (_math.isfinite(lo) and _math.isfinite(hi)):
        def fmt(v):
            return "-nan" if _math.isnan(v) else f"{v:g}"   # C++'s formatting, as PyTorch prints it
        raise RuntimeError(f"range of [{fmt(lo)}, {fmt(hi)}] is not finite")
    if lo > hi:
        raise RuntimeError("max must be larger than min")
    x = self.reshape([-1]).detach()
    inside = (x >= lo) & (x <= hi)
    x = _ops.masked_select(x, inside)
    pos = ((x - lo) * bins / (hi - lo)).to(int64).clamp(0, bins - 1)   # hi lands in the last bin
    return _ops.zeros([bins], dtype=self.dtype, device=self.device).index_add(0, pos, _ops.ones_like(x))


# --------------------------------------------------------------------------------- order statistics

def _flat_or_dim(self, dim):
    """(tensor with the reduced dim last, dim) for an int dim, or flattened for None."""
    if dim is None:
        return self.reshape([1, -1]) if self.ndim else self.reshape([1, 1]), None
    d = _wrap(dim, self.ndim)
    t = self if self.ndim else self.reshape([1])
    return t.movedim([d], [-1]), d


def _nan_last_sort(t):
    """Sorted rows, NaN last, and where they came from (stable, so equal values keep their order)."""
    return _ops.sort(t, -1, stable=True)


def _pick(values, indices, pos):
    """values and indices at position pos (..., 1) of each row."""
    return _ops.gather(values, -1, pos).squeeze(-1), _ops.gather(indices, -1, pos).squeeze(-1)


def _median_rows(t, ignore_nan):
    s, i = _nan_last_sort(t)
    n = t.shape[-1]
    valid = (~_ops.isnan(t)).sum([-1], True) if t.dtype.is_floating_point else None
    if valid is None:
        pos = _ops.full(list(t.shape[:-1]) + [1], (n - 1) // 2, dtype=int64, device=t.device)
    elif ignore_nan:   # the lower median of the non-NaN values; NaN (the first one) when all are
        pos = ((valid - 1).clamp_min(0) // 2)
    else:   # any NaN makes the median NaN: the first NaN, at position valid
        pos = _ops.where(valid < n, valid, _ops.full_like(valid, (n - 1) // 2))
    return _pick(s, i, pos)


def _keep(r, self, d, keepdim):
    return r.unsqueeze(d) if keepdim and self.ndim else r


def median(self):
    if self.numel() == 0:
        return _ops.full([], float("nan"), dtype=self.dtype, device=self.device)
    return _median_rows(self.reshape([1, -1]), False)[0].reshape([])


def nanmedian(self):
    if self.numel() == 0:
        return _ops.full([], float("nan"), dtype=self.dtype, device=self.device)
    return _median_rows(self.reshape([1, -1]), True)[0].reshape([])


def _median_dim(self, dim, keepdim, ignore_nan, op):
    t, d = _flat_or_dim(self, dim)
    if t.numel() == 0:
        if t.shape[-1] == 0 and dim is not None:
            raise LoomIndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
        shape = [n for j, n in enumerate(self.shape) if j != d or keepdim]
        shape = [1 if j == d else n for j, n in enumerate(self.shape)] if keepdim else shape
        return (_ops.empty(shape, dtype=self.dtype, device=self.device),
                _ops.empty(shape, dtype=int64, device=self.device))
    v, i = _median_rows(t, ignore_nan)
    return _keep(v, self, d, keepdim), _keep(i, self, d, keepdim)


def median_dim(self, dim, keepdim):
    return _ops.median_dim_result(*_median_dim(self, dim, keepdim, False, "median"))


def nanmedian_dim(self, dim, keepdim):
    return _ops.nanmedian_dim_result(*_median_dim(self, dim, keepdim, True, "nanmedian"))


def mode(self, dim, keepdim):
    t, d = _flat_or_dim(self, dim)
    n = t.shape[-1]
    if n == 0:
        raise LoomIndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    s, order = _ops.sort(t.detach(), -1, stable=True)
    starts = _ops.ones(list(s.shape), dtype=bool_, device=s.device)
    if n > 1:
        starts = _ops.cat([starts.narrow(-1, 0, 1), s.narrow(-1, 1, n - 1) != s.narrow(-1, 0, n - 1)], -1)
    run = _ops.cumsum(starts.to(int64), -1) - 1                     # each sorted element's run
    lengths = _ops.zeros(list(s.shape), dtype=int64, device=s.device).scatter_add(-1, run, _ops.ones_like(run))
    count = _ops.gather(lengths, -1, run)
    # the longest run, the smallest value among equally long ones: the first position of the largest key
    positions = _ops.arange(n, device=s.device)
    key = count * (n + 1) + (n - positions)
    first = _ops.argmax(key, -1, True)
    last = first + _ops.gather(count, -1, first) - 1   # PyTorch gives the last index of the value
    values = _ops.gather(t, -1, _ops.gather(order, -1, first)).squeeze(-1)
    indices = _ops.gather(order, -1, last).squeeze(-1)
    return _ops.mode_result(_keep(values, self, d, keepdim), _keep(indices, self, d, keepdim))


def msort(self):
    return _ops.sort(self, 0)[0]


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(self, q, dim, keepdim, interpolation, ignore_nan, op):
    if self.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    if q.ndim > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
    if self.dtype not in (float32, float64):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if q.dtype != self.dtype:
        raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if q.numel() and not (q.is_meta or self.is_meta) and not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    t, d = _flat_or_dim(self, dim)
    s = _ops.sort(t, -1)[0]
    n = s.shape[-1]
    valid = (~_ops.isnan(s)).sum([-1], True)
    qq = q.reshape([-1])
    if ignore_nan:
        rank = qq * (valid - 1).clamp_min(0).to(self.dtype)    # (rows..., len(q))
    else:   # a row with NaN gives NaN: its rank points at the last element, a NaN
        rank = _ops.where(valid < n, _ops.full_like(qq, n - 1), qq * (n - 1))
    if interpolation == "lower":
        rank = rank.floor()
    elif interpolation == "higher":
        rank = rank.ceil()
    elif interpolation == "nearest":
        rank = rank.round()                            # half to even, as PyTorch's
    below = rank.floor().to(int64)
    above = rank.ceil().to(int64).clamp_max(n - 1)
    vb, va = _ops.gather(s, -1, below), _ops.gather(s, -1, above)
    if interpolation == "midpoint":
        r = vb + (va - vb) * 0.5
    elif interpolation == "linear":
        r = _ops.lerp(vb, va, rank - below.to(self.dtype))
    else:
        r = vb
    if ignore_nan:   # a row of NaN only gives NaN
        r = _ops.where(valid == 0, _ops.full_like(r, float("nan")), r)
    r = r.movedim([-1], [0])                             # (len(q), rows...)
    if keepdim:
        shape = [1] * self.ndim if dim is None else list(self.shape)
        if dim is not None and self.ndim:
            shape[d] = 1
        r = r.reshape([qq.shape[0]] + shape)
    elif dim is None:
        r = r.reshape([qq.shape[0]])
    return r if q.ndim else r.squeeze(0)


def quantile(self, q, dim, keepdim, interpolation):
    return _quantile(self, q, dim, keepdim, interpolation, False, "quantile")


def quantile_scalar(self, q, dim, keepdim, interpolation):
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    return _quantile(self, _ops.full([], q, dtype=self.dtype, device=self.device), dim, keepdim, interpolation,
                     False, "quantile")


def nanquantile(self, q, dim, keepdim, interpolation):
    return _quantile(self, q, dim, keepdim, interpolation, True, "nanquantile")


def nanquantile_scalar(self, q, dim, keepdim, interpolation):
    if not 0 <= q <= 1:
        raise RuntimeError(f"nanquantile() q must be in the range [0, 1] but got {q}")
    return _quantile(self, _ops.full([], q, dtype=self.dtype, device=self.device), dim, keepdim, interpolation,
                     True, "nanquantile")


def var_mean(self, dim, correction, keepdim):
    return _ops.var_mean_result(_ops.var(self, dim, correction=correction, keepdim=keepdim),
                                _ops.mean(self, dim, keepdim))


def var_mean_unbiased(self, dim, unbiased, keepdim):
    return _ops.var_mean_unbiased_result(_ops.var(self, dim, correction=1 if unbiased else 0, keepdim=keepdim),
                                         _ops.mean(self, dim, keepdim))


def std_mean(self, dim, correction, keepdim):
    return _ops.std_mean_result(_ops.std(self, dim, correction=correction, keepdim=keepdim),
                                _ops.mean(self, dim, keepdim))


def std_mean_unbiased(self, dim, unbiased, keepdim):
    return _ops.std_mean_unbiased_result(_ops.std(self, dim, correction=1 if unbiased else 0, keepdim=keepdim),
                                         _ops.mean(self, dim, keepdim))


# ------------------------------------------------------------------------------- index and shape

def ravel(self):
    return self.reshape([-1])


def argwhere(self):
    return _ops.nonzero(self)


def take(self, index):
    if index.dtype != int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    n = self.numel()
    flat = index.reshape([-1])
    if flat.numel() and not (self.is_meta or index.is_meta):   # meta: no values to check, as PyTorch's
        lo, hi = int(flat.min()), int(flat.max())
        for bad in (lo, hi):
            if not -n <= bad < n:
                raise LoomIndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    flat = _ops.where(flat < 0, flat + n, flat)
    return _ops.index_select(self.reshape([-1]), 0, flat).reshape(list(index.shape))


def isin(elements, test_elements, assume_unique, invert):
    dt = promote_types(elements.dtype, test_elements.dtype)
    e, s = elements.to(dt), _ops.sort(test_elements.reshape([-1]).to(dt))[0]
    if s.numel() == 0:
        found = _ops.zeros(list(e.shape), dtype=bool_, device=e.device)
    else:
        pos = _search(s.unsqueeze(0), e.reshape([1, -1]), False).reshape([-1]).clamp_max(s.numel() - 1)
        found = (_ops.index_select(s, 0, pos) == e.reshape([-1])).reshape(list(e.shape))
    return ~found if invert else found


def _clamped_sum(row, col, k):
    """sum over i < row of min(max(i + k, 0), col), in closed form: 0 up to a, i + k up to b, col after."""
    a = _b.min(row, _b.max(0, -k))
    b = _b.min(row, _b.max(a, col - k))
    return (b - a) * k + (a + b - 1) * (b - a) // 2 + (row - b) * col


def _triangle_indices(row, col, offset, dtype, device, lower):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    # the result's size first: an impossible one fails now, not after a row x col scan
    n = _clamped_sum(row, col, offset + 1) if lower else row * col - _clamped_sum(row, col, offset)
    sized = _ops.empty([2, n], dtype=int64 if dtype is None else dtype, device=device)
    if sized.is_meta:
        return sized
    r = _ops.arange(row, dtype=int64, device=device).unsqueeze(1).expand([row, col])
    c = _ops.arange(col, dtype=int64, device=device).unsqueeze(0).expand([row, col])
    keep = (c - r <= offset) if lower else (c - r >= offset)
    out = _ops.stack([_ops.masked_select(r, keep), _ops.masked_select(c, keep)])
    return out.to(int64 if dtype is None else dtype)


def tril_indices(row, col, offset, dtype, device, requires_grad):
    return _triangle_indices(row, col, offset, dtype, device, True).requires_grad_(requires_grad)


def triu_indices(row, col, offset, dtype, device, requires_grad):
    return _triangle_indices(row, col, offset, dtype, device, False).requires_grad_(requires_grad)


def diag_embed(self, offset, dim1, dim2):
    nd = self.ndim + 1
    d1, d2 = _wrap(dim1, nd), _wrap(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    m = self.shape[-1] if self.ndim else 1
    n = m + _b.abs(offset)
    src = self if self.ndim else self.reshape([1])
    lead = list(src.shape[:-1])
    if self.dtype.differentiable:
        k = _ops.arange(m, dtype=int64, device=self.device)
        flat = (k + _b.max(-offset, 0)) * n + (k + _b.max(offset, 0))   # (row, col) of each diagonal element
        out = _ops.zeros(lead + [n * n], dtype=self.dtype, device=self.device).index_add(-1, flat, src)
        out = out.reshape(lead + [n, n])
    else:   # no gradient to carry: a copy into the diagonal, which uint16/32/64 take (index_add does not)
        out = _ops.zeros(lead + [n, n], dtype=self.dtype, device=self.device)
        out.diagonal(offset, -2, -1).copy_(src)
    # the two new dims land at dim1 and dim2, the others keep their order
    return out.movedim([nd - 2, nd - 1], [d1, d2])


# ------------------------------------------------------------------------------- more shape and statistics

def block_diag(tensors):
    _check_tensor_list(tensors, "block_diag", "tensors")   # the check the generated entry does not make
    mats = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
        mats.append(t.reshape([1, 1]) if t.ndim == 0 else t.reshape([1, -1]) if t.ndim == 1 else t)
    if not mats:
        return _ops.empty([1, 0])
    dt = mats[0].dtype
    for m in mats[1:]:
        dt = promote_types(dt, m.dtype)
    width = _b.sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:   # each block padded with zeros to the full width: cat keeps every gradient
        h, w = m.shape
        parts = [_ops.zeros([h, left], dtype=dt, device=m.device), m.to(dt),
                 _ops.zeros([h, width - left - w], dtype=dt, device=m.device)]
        rows.append(_ops.cat(parts, 1))
        left += w
    return _ops.cat(rows, 0)


def cartesian_prod(tensors):
    _check_tensor_list(tensors, "cartesian_prod", "tensors")
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _ops.stack([g.reshape([-1]) for g in grids], 1)


def combinations(self, r, with_replacement):
    if self.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(self.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    pick = _itertools.combinations_with_replacement if with_replacement else _itertools.combinations
    n = self.shape[0]
    count = _math.comb(n + r - 1, r) if with_replacement else _math.comb(n, r)
    _ops.empty([count, r], dtype=int64, device=self.device)   # an impossible count fails before the loop
    rows = list(pick(range(n), r))
    if r == 0 or not rows:
        return _ops.empty([0] if r == 0 else [0, r], dtype=self.dtype, device=self.device)
    idx = _tensor(rows, dtype=int64, device=self.device)
    return _ops.index_select(self, 0, idx.reshape([-1])).reshape([len(rows), r])


def logspace(start, end, steps, base, dtype, device, requires_grad):
    dt = dtype
    e = _ops.linspace(start, end, steps, dtype=float64, device=device)
    r = (_ops.full([], float(base), dtype=float64, device=device) ** e)
    r = r.to(dt if dt is not None else _default_dtype())
    return r.requires_grad_(True) if requires_grad else r


def _spacing(x, y, dim, op):
    """The sample spacings along dim: diff of x, which is 1-D (then along dim) or y's shape."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[dim] = x.shape[0] - 1 if x.shape[0] else 0
        return _ops.diff(x).reshape(shape)
    return _ops.diff(x, 1, dim)


def trapezoid_x(y, x, dim):
    d = _wrap(dim, y.ndim)
    if y.shape[d] == 0:
        return y.sum(d)
    n = y.shape[d]
    return ((y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * _spacing(x, y, d, "trapezoid")).sum(d) / 2


def trapezoid_dx(y, dx, dim):
    d = _wrap(dim, y.ndim)
    if y.shape[d] == 0:
        return y.sum(d)
    n = y.shape[d]
    return (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)).sum(d) * (dx / 2)


def cumulative_trapezoid_x(y, x, dim):
    d = _wrap(dim, y.ndim)
    n = y.shape[d]
    if n == 0:
        return y
    return ((y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * _spacing(x, y, d, "cumulative_trapezoid") / 2).cumsum(d)


def cumulative_trapezoid_dx(y, dx, dim):
    d = _wrap(dim, y.ndim)
    n = y.shape[d]
    if n == 0:
        return y
    return ((y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * (dx / 2)).cumsum(d)


def cov(self, correction, fweights, aweights):
    if self.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{self.ndim} dimensions")
    x = self.reshape([1, -1]) if self.ndim < 2 else self
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(_default_dtype())
    n = x.shape[1]
    w = None
    for name, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        if wt.ndim > 1 or wt.numel() != n:
            raise RuntimeError(f"cov(): expected {name} to have one dimension and {n} elements "
                               f"but got {list(wt.shape)}")
        if bool((wt < 0).any()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = wt if w is None else w * wt
    if w is None:   # numpy.cov's normalisation: n - correction (weights: their sum, less the aweights' share)
        xc = x - x.mean(1, keepdim=True)
        c = (xc @ xc.conj().T) / _b.max(n - correction, 0)
    else:
        w = w.to(x.real.dtype if x.dtype.is_complex else x.dtype)
        wsum = w.sum()
        xc = x - (x * w).sum(1, keepdim=True) / wsum
        norm = wsum - (correction * (w * aweights.to(w.dtype)).sum() / wsum if aweights is not None else correction)
        c = ((xc * w) @ xc.conj().T) / norm.clamp(min=0)
    return c.squeeze() if self.ndim < 2 else c


def corrcoef(self):
    c = cov(self, 1, None, None)
    if c.ndim == 0:
        return c / c
    d = _ops.diagonal(c, 0, 0, 1)
    sd = d.real.sqrt() if c.dtype.is_complex else d.sqrt()
    c = c / sd.unsqueeze(1) / sd.unsqueeze(0)
    return c if c.dtype.is_complex else c.clamp(-1, 1)


def _index_mask(self, dim, index, op):
    d = _wrap(dim, _b.max(self.ndim, 1))
    if index.dtype != int64:
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    size = self.shape[d] if self.ndim else 1
    hit = _ops.zeros([size], dtype=int64, device=self.device).index_add(0, index.reshape([-1]),
                                                                         _ops.ones([index.numel()], dtype=int64,
                                                                                   device=self.device))
    shape = [1] * self.ndim
    if self.ndim:
        shape[d] = size
    return d, (hit > 0).reshape(shape)


def index_fill(self, dim, index, value):
    _, mask = _index_mask(self, dim, index, "index_fill")
    return _ops.where(mask, _ops.full([], value, dtype=self.dtype, device=self.device), self)


def index_copy(self, dim, index, source):
    d, mask = _index_mask(self, dim, index, "index_copy")   # checks index
    if self.ndim == 0:
        return source.reshape([]).to(self.dtype) if index.numel() else self
    # for each position along d, the source slice written there (a repeated index: the last one, as a
    # sequence of writes would leave it), then one select: differentiable in self and source, any dtype
    flat = index.reshape([-1])
    size = self.shape[d]
    k = _ops.arange(flat.numel(), dtype=int64, device=self.device)
    src_of = _ops.full([size], -1, dtype=int64, device=self.device).scatter(0, _ops.where(flat < 0, flat + size, flat), k)
    picked = source.to(self.dtype).index_select(d, src_of.clamp(min=0))
    return _ops.where(mask, picked, self)
