"""loom.backends.cudnn: the settings scripts write (benchmark, deterministic, enabled, allow_tf32),
kept as plain values. loom's convolutions do not use cuDNN, so is_available() is False and the
settings change nothing (loom's kernels are deterministic already)."""
benchmark = False
deterministic = False
enabled = True
allow_tf32 = True


def is_available():
    return False


def version():
    return None
