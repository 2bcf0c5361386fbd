"""Layouts (torch.layout): how a tensor's elements are stored. loom.strided is every dense tensor's,
loom.sparse_coo a sparse COO tensor's (loom._sparse)."""


class layout:
    """A tensor layout object, compared by identity as torch.layout's are."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"loom.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


strided = layout("strided")
sparse_coo = layout("sparse_coo")
_LAYOUTS = {"strided": strided, "sparse_coo": sparse_coo}


def _by_name(name):
    return _LAYOUTS[name]
