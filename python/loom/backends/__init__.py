"""loom.backends: switches of the backends, as torch.backends."""
from . import cuda  # noqa: F401
