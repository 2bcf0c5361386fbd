"""Utilities, as torch.utils: `data` (datasets, samplers, DataLoader), `checkpoint`."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
