"""DistributedSampler: each of num_replicas processes visits its own 1/num_replicas of the
dataset, as torch.utils.data.distributed.DistributedSampler (same padding and split)."""
import math

import numpy as np

from ... import distributed as dist
from ..._generator import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            if not dist.is_initialized():
                raise RuntimeError("DistributedSampler: give num_replicas and rank, or call "
                                   "loom.distributed.init_process_group first")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def _index_array(self):
        n = len(self.dataset)
        if self.shuffle:   # the same permutation on every rank: seeded by seed + epoch
            idx = Generator().manual_seed(self.seed + self.epoch)._permutation(n).astype(np.int64)
        else:
            idx = np.arange(n, dtype=np.int64)
        if not self.drop_last:
            pad = self.total_size - n   # repeat the first indices so every rank gets as many
            if pad:
                idx = np.concatenate([idx] + [idx] * (pad // n) + [idx[:pad % n]]) if n else idx
        else:
            idx = idx[:self.total_size]
        assert len(idx) == self.total_size
        return idx[self.rank:self.total_size:self.num_replicas]

    def __iter__(self):
        return iter(self._index_array().tolist())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch
