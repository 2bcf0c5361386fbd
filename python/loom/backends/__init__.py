"""loom.backends: switches of the backends, as torch.backends."""
from . import cpu, cuda, cudnn, mps  # noqa: F401
