"""loom.sparse, as torch.sparse: products and sums with sparse COO tensors (loom._sparse_ops)."""
from ._sparse_ops import sparse_addmm as addmm, sparse_mm as mm, sparse_sum as sum  # noqa: F401

__all__ = ["addmm", "mm", "sum"]
