"""loom.cuda.amp: torch.cuda.amp's older spellings of loom.amp.GradScaler("cuda") and
loom.autocast("cuda"), which many training scripts still use."""
from ._autocast import autocast as _autocast
from .amp import GradScaler as _GradScaler


def GradScaler(init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
    return _GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def autocast(enabled=True, dtype=None, cache_enabled=True):
    return _autocast("cuda", dtype=dtype, enabled=enabled)
