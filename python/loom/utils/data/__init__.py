"""Datasets, samplers, collation and the DataLoader, as torch.utils.data."""
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .distributed import DistributedSampler
from ._worker import get_worker_info
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split", "Sampler",
           "SequentialSampler", "RandomSampler", "BatchSampler", "DataLoader", "default_collate", "default_convert",
           "get_worker_info", "ChainDataset", "StackDataset", "SubsetRandomSampler", "WeightedRandomSampler",
           "DistributedSampler"]
