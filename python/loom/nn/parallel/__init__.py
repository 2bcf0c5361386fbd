"""Data parallelism across processes (loom.distributed)."""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
