"""Meta-device rules read off the op model: which rule each op gets, as data.

A rule is a tuple the runtime (python/loom/_meta_dispatch.py) interprets; each computes a result's
shape from its inputs' and takes the dtype from the CPU op run on one-element stand-ins:

- ("pointwise", tensors): the broadcast shape of the Tensor arguments, contiguous.
- ("reduction", tensor, dim, keepdim): the reduced dims dropped (kept as 1 with keepdim).
- ("factory", size): a kernel factory (empty, full, rand ...): the shape is its int[] size.
- ("mutating", tensor): an op writing into an argument (fill_, random fills): that argument.

An op the model cannot place (views, matmul, conv, indexing ...) gets no entry here: its rule is
hand-written in _meta_dispatch (HAND), or the op raises NotImplementedError naming it. Composite
ops need none: their bodies run their parts on meta tensors."""
from . import vmapgen


def rule(op):
    """The op's generated meta rule (a tuple), or None where the model cannot say."""
    if op.kind == "composite":
        return None
    tensors = tuple(a.name for a in op.inputs)
    if op.mutating:
        return ("mutating", op.schema.mutates[0].name)
    if op.kind == "pointwise":
        return ("pointwise", tensors)
    if op.kind == "reduction":
        names = [a.name for a in op.ctx_args]
        return ("reduction", tensors[0], "dim" if "dim" in names else None, "keepdim" if "keepdim" in names else None)
    sizes = [a.name for a in op.ctx_args if a.name in vmapgen.SIZE_NAMES and a.type.base == "int" and a.type.is_list]
    if not tensors and sizes and any(a.type.base == "Device" for a in op.ctx_args):
        return ("factory", sizes[0])
    return None


def table(ops):
    """[(cname, name, rule)] for every op, rule None where it is hand-written or missing: the
    dispatcher names every op by its Python name."""
    return [(op.cname, op.name, rule(op)) for op in ops if op.kind != "composite"]
