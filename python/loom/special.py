"""loom.special, as torch.special (scipy.special's names): the ops whose ops/ entries say
`python_module: special` (generated into loom._namespaces)."""
from ._namespaces import special as _names

globals().update(_names)
__all__ = sorted(_names)
