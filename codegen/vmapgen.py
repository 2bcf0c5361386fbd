"""vmap's batching rules, read off the op model: which rule each op gets, as data.

A rule is a tuple the runtime (python/loom/_vmap_dispatch.py) interprets:

- ("pointwise", tensors): elementwise with broadcasting; batched operands keep the batch dim in
  front, padded with size-1 dims to the widest logical rank, unbatched ones broadcast from the right.
- ("dims", tensors, dims, new_dim): every other op whose position arguments are named `dim`,
  `dim0`, `start_dim`, `dims` ... (reductions, scans, softmax, views such as transpose/squeeze/
  narrow): those are wrapped against the logical rank (plus one where the op inserts a dim) and
  shifted past the batch dim; `int[]? dim=None` (all dims) becomes the list of the logical dims.
- ("size", tensors, size): view/reshape/expand: the batch size is put in front of the shape.
- ("trailing", tensors): one-Tensor ops with no position argument that act on trailing dims or
  elementwise (clone, to, real, pad, the linalg kernels, which take leading batch dims).
- ("random", tensors): random ops, governed by vmap's randomness= mode.

An op the model cannot place (matmul, conv, indexing, gather ...) gets no entry here; its rule
is hand-written in python/loom/func/_rules.py, or vmap names it as having none."""
from . import pygen

DIM_NAMES = ("dim", "dims", "dim0", "dim1", "dim2", "start_dim", "end_dim", "source", "destination", "dimension")
SIZE_NAMES = ("size", "shape")
NEW_DIM_OPS = ("unsqueeze", "stack")   # a dim argument that may name the new (rank + 1) position
# one-Tensor kernels with no dim argument that still see the tensor's rank: no generic rule
RANK_BOUND = ("t", "nonzero", "multinomial", "max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d",
              "adaptive_max_pool2d", "one_hot", "embedding")
STORAGE_BOUND = ("as_strided",)   # reads self's storage by position: a batch dim cannot be put in front


def is_random(op):
    return op.kind != "composite" and (op.file.endswith("random.yaml") or bool(op.test.get("nondeterministic")))


def rule(op):
    """The op's generated rule (a tuple), or None where the model cannot say."""
    if op.kind == "composite" or op.name in STORAGE_BOUND:
        return None   # composites run their parts under vmap
    tensors = tuple(a.name for a in op.inputs)
    lists = [a for a in op.inputs if a.type.is_list]
    if is_random(op):
        return ("random", tensors)
    if not tensors:
        return None
    if op.kind == "pointwise":
        return ("pointwise", tensors)
    dims = tuple(a.name for a in op.ctx_args if a.name in DIM_NAMES and a.type.base == "int")
    single = len(tensors) == 1
    same_rank = not op.index_args and not any(a.name in ("index", "indices", "target") for a in op.inputs)
    if dims and (single or same_rank):   # several Tensors: taken to have self's rank (softmax_backward, cat)
        return ("dims", tensors, dims, op.name in NEW_DIM_OPS)
    sizes = [a.name for a in op.ctx_args if a.name in SIZE_NAMES and a.type.base == "int" and a.type.is_list]
    if sizes and single:
        return ("size", tensors, sizes[0])
    if single and not lists and op.name not in RANK_BOUND and not dims:
        if any(a.type.base == "int" and a.type.is_list for a in op.ctx_args) and op.name != "pad":
            return None   # an int[] it reads against the shape (output_size, kernel_size)
        return ("trailing", tensors)
    return None


def table(ops):
    """[(cname, name, rule)] for every op with a generated rule."""
    return [(op.cname, op.name, r) for op in ops for r in [rule(op)] if r is not None]


def args_dict(op):
    """The source of a dict of the op's arguments by schema name, as the generated function holds
    them (a varargs int[] resolved; a factory's requires_grad too): what a batching rule receives."""
    va = pygen.varargs_arg(op)
    parts = []
    for a in op.schema.args:
        if a is va:
            parts.append(f'"{a.name}": _varargs(_{a.name}, {a.name} if not _{a.name} else None, "{op.name}", "{a.name}")')
        else:
            parts.append(f'"{a.name}": {a.name}')
    if pygen.is_factory(op):
        parts.append('"requires_grad": requires_grad')
    return "{" + ", ".join(parts) + "}"
