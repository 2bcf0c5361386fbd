"""loom.backends: switches of the backends, as torch.backends."""
from . import cuda, cudnn, mps  # noqa: F401
