"""Data parallelism: across processes (DistributedDataParallel, over loom.distributed), and
DataParallel, which runs the module on its one device."""
from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
