"""__array_namespace_info__(): the namespace's capabilities, devices and dtypes."""
from .._dtype import CPU
from ._dtypes import (BOOL, COMPLEX, DEFAULT_COMPLEX, DEFAULT_FLOAT, DEFAULT_INDEX, DEFAULT_INT, INTEGRAL,
                      NUMERIC, REAL_FLOATING, SIGNED, UNSIGNED)

_KINDS = {
    "bool": BOOL, "signed integer": SIGNED, "unsigned integer": UNSIGNED, "integral": INTEGRAL,
    "real floating": REAL_FLOATING, "complex floating": COMPLEX, "numeric": NUMERIC,
}


class Info:
    """The inspection object the standard's __array_namespace_info__() returns."""

    def capabilities(self):
        """boolean indexing and data-dependent shapes are supported; arrays are at most 64-d."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        """The CPU."""
        return CPU

    def devices(self):
        """The devices arrays may live on."""
        return [CPU]

    def default_dtypes(self, *, device=None):
        """The default real floating, complex, integer and indexing dtypes."""
        return {"real floating": DEFAULT_FLOAT, "complex floating": DEFAULT_COMPLEX,
                "integral": DEFAULT_INT, "indexing": DEFAULT_INDEX}

    def dtypes(self, *, device=None, kind=None):
        """The supported dtypes by name, of one kind (or a tuple of kinds) when given."""
        if kind is None:
            kinds = ("bool", "numeric")
        elif isinstance(kind, tuple):
            kinds = kind
        else:
            kinds = (kind,)
        out = {}
        for k in kinds:
            if k not in _KINDS:
                raise ValueError(f"dtypes(): unknown kind {k!r}")
            for d in _KINDS[k]:
                out[d.name] = d
        return out


def __array_namespace_info__():
    """The namespace's inspection object."""
    return Info()
