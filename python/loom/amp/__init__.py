"""loom.amp, as torch.amp: autocast regions and the gradient scaler for float16 training."""
from .._autocast import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler", "is_autocast_enabled", "get_autocast_dtype"]
