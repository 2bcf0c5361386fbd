"""Flatten and Unflatten."""
from .module import Module


class Flatten(Module):
    """Flattens dims start_dim..end_dim (by default all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expands dim into unflattened_size (which may hold one -1)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int):
            if not isinstance(unflattened_size, (list, tuple)) or \
                    not all(isinstance(s, int) for s in unflattened_size):
                raise TypeError("unflattened_size must be tuple of ints, but found type "
                                f"{type(unflattened_size).__name__}")
        else:
            raise TypeError(f"invalid argument type for dim parameter: {type(dim).__name__} (only int is supported)")
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        shape = list(input.shape)
        d = self.dim + len(shape) if self.dim < 0 else self.dim
        if not 0 <= d < len(shape):
            raise IndexError(f"Unflatten: dim {self.dim} is out of range for a {len(shape)}-D input")
        known = 1
        for s in self.unflattened_size:
            known *= s if s != -1 else 1
        if -1 not in self.unflattened_size and known != shape[d]:
            raise ValueError(f"unflatten: Provided sizes {list(self.unflattened_size)} don't multiply up to the size "
                             f"of dim {self.dim} ({shape[d]}) in the input tensor")
        return input.reshape(shape[:d] + list(self.unflattened_size) + shape[d + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
