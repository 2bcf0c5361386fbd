"""Storages come from the device's allocator (native/core/alloc.c): the CPU one
caches large blocks; a device built without a backend is refused by name."""
import pytest

import loom
from loom import _C


@pytest.mark.skipif(loom.cuda.is_available(), reason="a CUDA GPU is present")
def test_cuda_without_backend_is_a_clear_error():
    for make in (lambda: loom.zeros(2, device="cuda"), lambda: loom.empty(3, 4, device="cuda:0"),
                 lambda: loom.arange(3, device="cuda"), lambda: loom.full((2,), 1.5, device="cuda")):
        with pytest.raises(RuntimeError, match="not compiled with CUDA enabled|No CUDA GPUs are available"):
            make()


def test_cpu_allocator_caches_large_blocks():
    _C.lib.lm_allocator_trim()
    assert _C.lib.lm_allocator_cached_bytes() == 0
    t = loom.ones(1 << 20)   # 4 MiB: the big-block path
    assert t.sum().item() == 1 << 20
    del t
    cached = _C.lib.lm_allocator_cached_bytes()
    assert cached >= 4 << 20
    u = loom.zeros(1 << 20)   # the cached block is reused
    assert _C.lib.lm_allocator_cached_bytes() == cached - (4 << 20)
    assert u.sum().item() == 0
    del u
    _C.lib.lm_allocator_trim()
    assert _C.lib.lm_allocator_cached_bytes() == 0
