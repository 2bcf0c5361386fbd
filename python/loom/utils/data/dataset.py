"""Map-style and iterable datasets, as torch.utils.data.dataset."""
from ..._tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset"]


class Dataset:
    """A map-style dataset: __getitem__(index) and usually __len__."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class IterableDataset(Dataset):
    """A dataset that is a stream: __iter__ yields samples."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Sample i is (t[i] for t in tensors); all tensors share their first dimension."""

    def __init__(self, *tensors):
        if not all(isinstance(t, Tensor) for t in tensors):
            raise TypeError("TensorDataset(): every argument must be a loom.Tensor")
        if not tensors or any(t.ndim == 0 for t in tensors):
            raise ValueError("TensorDataset(): needs at least one tensor, each with a first dimension")
        if any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)
