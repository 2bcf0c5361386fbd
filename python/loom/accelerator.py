"""loom.accelerator: the device-agnostic questions modern scripts ask first, as torch.accelerator
(CUDA is loom's one accelerator)."""
from . import cuda as _cuda
from ._dtype import device as _device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "synchronize"]


def is_available():
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """device('cuda') where loom was built with CUDA and a GPU is there, else None."""
    return _device("cuda") if _cuda.is_available() else None


def device_count():
    return _cuda.device_count() if _cuda.is_available() else 0


def current_device_index():
    return _cuda.current_device() if _cuda.is_available() else -1


def synchronize(device=None):
    if _cuda.is_available():
        _cuda.synchronize(device)
