"""Dropout and Dropout2d (whole channels)."""
from . import functional as F
from .module import Module


class Dropout(Module):
    """Zeroes elements with probability p in training mode (scaling the rest by 1/(1-p)); identity in eval mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout):
    """Zeroes whole channels with probability p in training mode (scaling the rest by 1/(1-p))."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)
