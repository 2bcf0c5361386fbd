"""Nested tuples, lists and dicts of tensors (torch.utils._pytree's subset that torch.func uses)."""


def flatten(tree):
    """(leaves, spec): spec rebuilds the structure from a list of leaves (unflatten)."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for e in tree:
            lv, sp = flatten(e)
            leaves += lv
            specs.append((sp, len(lv)))
        return leaves, (type(tree), specs, getattr(tree, "_fields", None))
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k, e in tree.items():
            lv, sp = flatten(e)
            leaves += lv
            specs.append((sp, len(lv)))
        return leaves, (dict, specs, list(tree.keys()))
    return [tree], None


def unflatten(leaves, spec):
    if spec is None:
        return leaves[0]
    kind, specs, extra = spec
    out, i = [], 0
    for sp, n in specs:
        out.append(unflatten(leaves[i:i + n], sp))
        i += n
    if kind is dict:
        return dict(zip(extra, out))
    if extra is not None:   # a namedtuple
        return kind(*out)
    return kind(out)


def broadcast_prefix(prefix, tree, what):
    """prefix (an int/None, or a structure matching tree's top levels) spread over tree's leaves."""
    if not isinstance(prefix, (tuple, list, dict)):
        return [prefix] * len(flatten(tree)[0])
    if isinstance(prefix, dict):
        if not isinstance(tree, dict) or set(prefix) != set(tree):
            raise ValueError(what)
        return [d for k in tree for d in broadcast_prefix(prefix[k], tree[k], what)]
    if not isinstance(tree, (tuple, list)) or len(prefix) != len(tree):
        raise ValueError(what)
    return [d for p, t in zip(prefix, tree) for d in broadcast_prefix(p, t, what)]
