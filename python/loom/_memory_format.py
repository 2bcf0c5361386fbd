"""Memory formats (torch.memory_format): the layouts memory_format= asks a result for.

contiguous_format is C order; channels_last stores an (N, C, H, W) tensor as N, H, W, C (the
layout convolution libraries prefer), channels_last_3d an (N, C, D, H, W) one as N, D, H, W, C;
preserve_format keeps the strides of the input where it is dense. The codes are the C entries'
(native/core/memory_format.c)."""

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


class memory_format:
    __slots__ = ("name", "code")

    def __init__(self, name, code):
        self.name, self.code = name, code

    def __repr__(self):
        return f"loom.{self.name}"

    def __reduce__(self):   # one object per format, across pickling as well
        return self.name


contiguous_format = memory_format("contiguous_format", 0)
channels_last = memory_format("channels_last", 1)
channels_last_3d = memory_format("channels_last_3d", 2)
preserve_format = memory_format("preserve_format", 3)


def code_of(x, op, name):
    """A memory_format= argument as the C entries take it (-1: none given)."""
    if x is None:
        return -1
    if isinstance(x, memory_format):
        return x.code
    raise TypeError(f"{op}(): argument '{name}' must be loom.memory_format, not {type(x).__name__}")
