"""Size arguments of the composite nn ops (conv1d, conv_transpose2d, upsample, pooling 1-d): an int or a
sequence of 1 or n ints as n ints, checked here so an error names the op that was called."""
from numbers import Integral


def ntuple(value, n, op, name):
    vals = [value] if isinstance(value, Integral) else list(value)
    if not vals or len(vals) not in (1, n) or not all(isinstance(v, Integral) and not isinstance(v, bool)
                                                      for v in vals):
        raise ValueError(f"{op}(): {name} must be an int or {n} ints, got {value!r}")
    return [int(v) for v in vals] * (n // len(vals)) if len(vals) == 1 else [int(v) for v in vals]
